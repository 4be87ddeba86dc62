// Bench spec of the harness's rmsnorm test case: a plain Triton RMSNorm forward in two passes per
// row (squared sums, then scale and store) with the row's 1 / rms computed between the loops,
// persistent over rows, checked against a CPU reference in double from the f16 inputs:
//   Y[r, j] = f16( x[r, j] * w[j] / sqrt(sum_j x[r, j]^2 / N + eps) )
// Launch args (X, W, Y, n_rows, N, eps). Shapes: 8192 x 4096 (timed), and check-only shapes with
// a partial last block, rows shorter than one block, several blocks per row and more rows than
// programs. Metric: 4 * n_rows * N bytes (read x once, write y; the second read of x and w hit L2).
#include <cmath>
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 4096}, {300, 1000}, {257, 3001}, {1000, 64}, {3, 5000}};
constexpr double kEps = 1e-5;

class RmsNorm final : public BenchSpec {
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
    l.input("W", DType::f32, s.d[1]);
    l.output("Y", DType::f16, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed + 2, 1.f, 0.25f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(static_cast<size_t>(rows * cols));
    std::vector<float> w(static_cast<size_t>(cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(w.data(), in[1].ptr, w.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("rmsnorm reference: copy of the inputs failed");
    std::vector<float> y(x.size());
    for (long long r = 0; r < rows; ++r) {
      double ss = 0;
      for (long long j = 0; j < cols; ++j) {
        const double v = __half2float(x[size_t(r * cols + j)]);
        ss += v * v;
      }
      const double rstd = 1.0 / std::sqrt(ss / double(cols) + kEps);
      for (long long j = 0; j < cols; ++j)
        y[size_t(r * cols + j)] =
            float(double(__half2float(x[size_t(r * cols + j)])) * rstd * double(w[size_t(j)]));
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("rmsnorm reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.f(kEps);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(RmsNorm)
