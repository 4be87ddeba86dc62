// Bench spec of case6_layernorm: LayerNorm forward over the rows of X[M, 512], f16 in/out;
// launch args (X, W, B, Y, M, eps) with eps = 1e-5. Inputs seeded normal: X ~ N(1, 2) (a row
// mean far from 0, so a kernel that forgets to subtract it fails), W ~ N(1, 0.5) and
// B ~ N(0, 0.5) (spread enough that a dropped, swapped or misplaced column of w or b fails).
// Reference on the GPU in f64 from the f16 inputs, one warp per row: mean, biased variance of the
// centred row, rstd = 1/sqrt(var + eps) with the kernels' f32 eps, y = (x - mean)·rstd·w + b.
// Metric 4·M·N bytes (X read once, Y written once) in GB/s; roofline baseline: a device-to-device
// copy of 2·M·N bytes (the size of X), which reads and writes exactly those 4·M·N bytes. Vendor
// baseline: torch.nn.functional.layer_norm on f16 through vendor_layernorm.py in its own child
// (docs/harness.md, "Vendor scripts"). Check-only shapes (checked, never timed) cover M of one
// row, fewer rows than one tile, and M not a multiple of the kernels' 8-row tiles. Never compute
// the reference in f16 or from anything but the f16 inputs the kernels read.
#include <cuda_fp16.h>

#include <cstdio>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kN = 512;
constexpr double kEps = 1e-5;
// Timed shapes first, then the check-only ones (kTimed of them are timed).
constexpr long long kRows[] = {16384, 65536, 262144, 1, 5, 4099, 70001};
constexpr int kTimed = 3;

// y = LayerNorm(x)·w + b per row, in f64; one warp per row, rows strided over the grid.
__global__ void layernorm_ref(const __half* x, const __half* w, const __half* b, float* y,
                              long long rows, float eps) {
  constexpr int kPerLane = kN / 32;
  const int lane = threadIdx.x % 32;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  for (long long r = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32; r < rows;
       r += warps) {
    const __half* xr = x + r * kN;
    double v[kPerLane];
    double s = 0;
    for (int i = 0; i < kPerLane; ++i) {
      v[i] = double(__half2float(xr[lane + 32 * i]));
      s += v[i];
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    const double mean = s / double(kN);
    double q = 0;
    for (int i = 0; i < kPerLane; ++i) q += (v[i] - mean) * (v[i] - mean);
    for (int o = 16; o > 0; o /= 2) q += __shfl_xor_sync(0xffffffffu, q, o);
    const double rstd = 1.0 / sqrt(q / double(kN) + double(eps));
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      y[r * kN + c] =
          float((v[i] - mean) * rstd * double(__half2float(w[c])) + double(__half2float(b[c])));
    }
  }
}

class LayerNormFwd final : public BenchSpec {
 public:
  // f16 output rounding is at most 2^-11 of max|y|; 2e-3 leaves room for f32 math and for
  // generated vs hand-written (each rounded on its own) and fails any real mistake.
  double tolerance() const override { return 2e-3; }
  int num_shapes() const override { return int(sizeof(kRows) / sizeof(kRows[0])); }
  Shape shape(int i) const override { return shape_of(kRows[i], kN); }
  bool check_only(int i) const override { return i >= kTimed; }
  Metric metric(const Shape& s) const override {
    return {4.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  long long roofline_copy_bytes(const Shape& s) const override { return 2 * s.d[0] * s.d[1]; }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::f16, s.d[0] * s.d[1]);
    l.input("W", DType::f16, s.d[1]);
    l.input("B", DType::f16, s.d[1]);
    l.output("Y", DType::f16, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 3 + 1, 1.f, 2.f)) return rc;
    if (int rc = h.fill_normal(in[1], seed * 3 + 2, 1.f, 0.5f)) return rc;
    return h.fill_normal(in[2], seed * 3 + 3, 0.f, 0.5f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0];
    const long long blocks = (rows + 7) / 8;  // 8 warps of 256 threads, one row each
    layernorm_ref<<<unsigned(blocks < 4096 ? blocks : 4096), 256>>>(
        static_cast<const __half*>(in[0].ptr), static_cast<const __half*>(in[1].ptr),
        static_cast<const __half*>(in[2].ptr), static_cast<float*>(ref[0].ptr), rows, float(kEps));
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "case6_layernorm reference: %s", cudaGetErrorString(e));
      return h.fail(msg);
    }
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    for (int t = 0; t < 3; ++t) a.ptr(in[t].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.f(kEps);
    return 0;
  }
  // torch.nn.functional.layer_norm runs in a Python child (docs/harness.md, "Vendor scripts").
  const char* vendor_name() const override { return "PyTorch"; }
  const char* vendor_script() const override { return "vendor_layernorm.py"; }
};

}  // namespace

SCHED2CU_BENCH_SPEC(LayerNormFwd)
