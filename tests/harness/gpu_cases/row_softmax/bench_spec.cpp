// Bench spec of the harness's row-softmax test case (issue 9's plain Triton row kernel): y = the
// softmax of each row of X[n_rows, n_cols] (f16 in and out, row stride n_cols), launch args
// (X, Y, n_rows, n_cols, stride). The reference is computed on the CPU in double from the f16
// inputs. The shapes cover a last chunk that is partial (n_cols % 1024 != 0), rows whose start
// is not 16-byte aligned (n_cols odd: the kernels' element-by-element path), a row shorter than
// one chunk and several chunks per row. Metric: 4 * n_rows * n_cols bytes (read x, write y).
#include <cmath>
#include <cstring>
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{4096, 4096}, {300, 1000}, {257, 1001}, {64, 100}, {33, 5000}};

class RowSoftmax final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-3; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {4.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::f16, s.d[0] * s.d[1]);
    l.output("Y", DType::f16, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    return h.fill_normal(in[0], seed + 1, 0.f, 2.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(size_t(rows * cols));
    std::vector<float> y(size_t(rows * cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("row_softmax reference: copy of X failed");
    for (long long r = 0; r < rows; ++r) {
      const __half* xr = x.data() + r * cols;
      double m = -INFINITY, l = 0;
      for (long long j = 0; j < cols; ++j) m = std::fmax(m, double(__half2float(xr[j])));
      for (long long j = 0; j < cols; ++j) l += std::exp(double(__half2float(xr[j])) - m);
      for (long long j = 0; j < cols; ++j)
        y[size_t(r * cols + j)] = float(std::exp(double(__half2float(xr[j])) - m) / l);
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("row_softmax reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(RowSoftmax)
