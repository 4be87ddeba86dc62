// Bench spec of the harness's bias2d test case: a loop-free 2-D Triton kernel (a tile per
// program on a 2-D grid derived from its store mask, [R, 1] and [1, C] tensors broadcast, a bias
// converted between layouts), checked against a CPU reference from the f16 inputs:
//   Y[m, n] = f16( x[m, n] + b[n] )      X, Y [M, N] f16 row-major, B [N] f32
// Launch args (X, B, Y, M, N). Shapes: 8192 x 8192 (timed), and check-only shapes with partial
// tiles in both dimensions and a single row. Metric: 4 * M * N bytes (read x, write y).
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 8192}, {100, 300}, {33, 129}, {1, 1000}, {257, 64}};

class Bias2d final : public BenchSpec {
 public:
  double tolerance() const override { return 2e-3; }  // one f16 rounding: 2^-11 of max|y|
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {4.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::f16, s.d[0] * s.d[1]);
    l.input("B", DType::f32, s.d[1]);
    l.output("Y", DType::f16, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(static_cast<size_t>(rows * cols));
    std::vector<float> b(static_cast<size_t>(cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(b.data(), in[1].ptr, b.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("bias2d reference: copy of the inputs failed");
    std::vector<float> y(x.size());
    for (long long m = 0; m < rows; ++m)
      for (long long n = 0; n < cols; ++n)
        y[size_t(m * cols + n)] = __half2float(x[size_t(m * cols + n)]) + b[size_t(n)];
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("bias2d reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(Bias2d)
