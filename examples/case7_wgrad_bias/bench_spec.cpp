// Bench spec of case7_wgrad_bias: the weight and bias gradients of a linear layer from
// dout[M, K_OUT] and act[M, N_IN] (row-major f16): dW[K_OUT, N_IN] = f16(doutᵀ·act) (f32
// accumulate, contraction over M) and db[K_OUT] = Σ_m f32(dout[m, :]) (f32). Launch args
// (dout, act, dw, db, M, K_OUT, N_IN); shapes are (M, K_OUT, N_IN). Inputs N(0,1) with a fixed
// seed. Both outputs are checked. Reference: dW = f32 cuBLAS doutᵀ·act (Host::gemm_ref_f32 with
// A transposed, no TF32), db = a column sum of the f16 dout accumulated in f64 (a kernel of this
// spec, independent of cuBLAS). Vendor baseline: cuBLAS, two calls as a PyTorch user writes
// `dout.t() @ act` and `dout.sum(0)`: cublasGemmEx doutᵀ·act (f16 out, f32 compute), then
// cublasGemmEx doutᵀ·ones[M] (f32 out, f32 compute, N = 1) for db, the ones vector being an extra
// input that the kernels do not read. Metric 2·M·K_OUT·N_IN TFLOPS (db not counted).
// Check-only shapes (checked, never timed) cover M not a multiple of the 64-row step, K_OUT and
// N_IN not multiples of the 128 tile, and more tiles than SMs (several tiles per CTA, db written
// by CTAs that also own pid_n > 0 tiles).
#include <cuda_fp16.h>

#include <cstdio>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

struct Mkn {
  long long m, k, n;  // M (contraction), K_OUT, N_IN
};
// Timed shapes first, then the check-only ones (kTimed of them are timed).
constexpr Mkn kShapes[] = {{1024, 256, 256},    {4096, 1024, 1024}, {8192, 2048, 1024},
                           {16384, 1024, 1024}, {1000, 200, 136},   {520, 2056, 1032}};
constexpr int kTimed = 4;

// Tolerances (relative error max|out-ref| / max|ref|). Inputs N(0,1): dW entries are ~N(0, M),
// max|dW| ≈ 4.9·sqrt(M) (≈ 630 at M = 16384 over 1024x1024 entries); db entries ~N(0, M),
// max|db| ≈ 3.2·sqrt(M).
// - dW, 5e-3 (like case5): a correct kernel's error is the f16 rounding of its output, at most
//   2^-11 ≈ 4.9e-4 of max|dW| (f32 accumulation over 16384 terms adds ~1e-6), and generated vs
//   hand-written differ by at most one f16 ulp, ≤ 9.8e-4. A kernel that drops a single row of
//   the contraction at M = 16384 is off by max|dout[m,:]|·max|act[m,:]| ≈ 11, 1.5e-2 to 1.9e-2
//   relative (simulated), and one dropped 64-row step by ≈ 6e-2: both fail.
// - db, 1e-3: a correct f32 sum is off by ~1e-6 relative; one dropped row of 16384 is off by
//   max|dout[m,:]| ≈ 3.3, i.e. 7.7e-3 to 8.4e-3 relative, and accumulating in f16 instead of f32
//   by ≈ 2e-2 (simulated): both fail at 1e-3 (the latter would pass at 5e-3 only narrowly).
constexpr double kTolDw = 5e-3;
constexpr double kTolDb = 1e-3;

// db[k] = Σ_m dout[m, k] in f64, one thread per column (consecutive threads read consecutive
// columns of a row), four independent partial sums per thread.
__global__ void column_sum_ref(const __half* dout, float* db, long long M, long long K) {
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= K) return;
  double s[4] = {0, 0, 0, 0};
  long long m = 0;
  for (; m + 4 <= M; m += 4)
    for (int j = 0; j < 4; ++j) s[j] += double(__half2float(dout[(m + j) * K + k]));
  for (; m < M; ++m) s[0] += double(__half2float(dout[m * K + k]));
  db[k] = float((s[0] + s[1]) + (s[2] + s[3]));
}

class WgradBias final : public BenchSpec {
 public:
  double tolerance() const override { return kTolDw; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i].m, kShapes[i].k, kShapes[i].n); }
  bool check_only(int i) const override { return i >= kTimed; }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], K = s.d[1], N = s.d[2];
    l.input("dout", DType::f16, M * K);
    l.input("act", DType::f16, M * N);
    l.input("ones", DType::f16, M);  // the vendor's column sum only
    l.output("dw", DType::f16, K * N, kTolDw);
    l.output("db", DType::f32, K, kTolDb);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    if (int rc = h.fill_normal(in[1], seed * 2 + 2, 0.f, 1.f)) return rc;
    return h.fill_value(in[2], 1.0);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], K = s.d[1], N = s.d[2];
    // dW[K, N] = doutᵀ·act: A = dout stored [M, K] = the transpose of a [K, M] operand.
    if (int rc = h.gemm_ref_f32(in[0], true, in[1], false, ref[0], K, N, M)) return rc;
    const long long blocks = (K + 127) / 128;
    column_sum_ref<<<unsigned(blocks), 128>>>(static_cast<const __half*>(in[0].ptr),
                                              static_cast<float*>(ref[1].ptr), M, K);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "case7_wgrad_bias db reference: %s", cudaGetErrorString(e));
      return h.fail(msg);
    }
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);   // dout
    a.ptr(in[1].ptr);   // act
    a.ptr(out[0].ptr);  // dw
    a.ptr(out[1].ptr);  // db
    a.i(s.d[0]);        // M
    a.i(s.d[1]);        // K_OUT
    a.i(s.d[2]);        // N_IN
    return 0;
  }
  bool has_vendor() const override { return true; }
  const char* vendor_name() const override { return "cuBLAS"; }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    const long long M = s.d[0], K = s.d[1], N = s.d[2];
    if (int rc = h.vendor_gemm(in[0], true, in[1], false, out[0], K, N, M)) return rc;
    // db[K] = doutᵀ·ones[M], an N = 1 GEMM with an f32 output.
    return h.vendor_gemm(in[0], true, in[2], false, out[1], K, 1, M);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(WgradBias)
