// Bench spec of the harness's transpose test case: a plain Triton 2-D transpose (tl.trans of a
// blocked tile, through shared memory), checked exactly against the input:
//   Y[n, m] = X[m, n]      X [M, N], Y [N, M] f16 row-major
// Launch args (X, Y, M, N). Shapes: 8192 x 8192 (timed), and check-only shapes with partial tiles
// in both dimensions, a single row and a single column. Metric: 4 * M * N bytes (read, write).
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 8192}, {100, 300}, {65, 129}, {1, 1000}, {777, 1}};

class Transpose final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-6; }  // a copy: exact
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
    return h.fill_normal(in[0], seed + 1, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(static_cast<size_t>(rows * cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("transpose reference: copy of the input failed");
    std::vector<float> y(x.size());
    for (long long m = 0; m < rows; ++m)
      for (long long n = 0; n < cols; ++n)
        y[size_t(n * rows + m)] = __half2float(x[size_t(m * cols + n)]);
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("transpose reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(Transpose)
