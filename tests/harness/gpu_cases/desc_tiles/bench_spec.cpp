// Bench spec of the harness's desc_tiles test case: a loop-free kernel moving [32, 64] tiles
// through tensor descriptors. X [M,N] f32 in; Y = f16(2 X) stored by TMA; Z += X + 1 by TMA
// reduce-add (f32, zeroed by the harness before each call, so Z = X + 1). Launch args
// (x, y, z, M, N). Shapes: one timed, and check-only ones with partial tiles in both dimensions
// (N a multiple of 8: a tensor map's row stride is a multiple of 16 bytes).
// Metric: 10 MN bytes (read 4, write 2 + 4; the reduce-add's read of Z not counted).
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 8192}, {100, 200}, {33, 72}, {32, 64}};

class DescTiles final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-3; }  // f16 rounding of 2x, relative
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  bool zero_outputs() const override { return true; }
  Metric metric(const Shape& s) const override {
    return {10.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.input("x", DType::f32, s.d[0] * s.d[1]);
    l.output("y", DType::f16, s.d[0] * s.d[1]);
    l.output("z", DType::f32, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    return h.fill_normal(in[0], seed + 1, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const size_t n = static_cast<size_t>(s.d[0] * s.d[1]);
    std::vector<float> x(n), y(n), z(n);
    if (cudaMemcpy(x.data(), in[0].ptr, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
      return h.fail("desc_tiles reference: copy of the input failed");
    for (size_t i = 0; i < n; ++i) {
      y[i] = __half2float(__float2half_rn(2.0f * x[i]));
      z[i] = x[i] + 1.0f;
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), n * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaMemcpy(ref[1].ptr, z.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
      return h.fail("desc_tiles reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.ptr(out[1].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(DescTiles)
