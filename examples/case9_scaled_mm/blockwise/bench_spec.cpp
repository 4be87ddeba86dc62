// Bench spec of case9_scaled_mm/blockwise: the DeepSeek-V3 blockwise-scaled fp8 GEMM
//   D[M,N] = bf16( Σ_g (A[:, g] · B[:, g]ᵀ) · scale_a[g, m] · scale_b[n / 128, g] ),
// K groups g of 128; A [M,K] and B [N,K] e4m3 row-major, scale_a [cdiv(K,128), M] f32 (M-major:
// 1x128 blocks of A), scale_b [cdiv(N,128), cdiv(K,128)] f32 row-major (128x128 blocks of B);
// launch args (a, b, d, scale_a, scale_b, M, N, K). Inputs: A, B N(0,1) rounded to e4m3, scales
// U(0.25, 2). Reference: since a group's scale factorizes into a per-row factor of A and a
// per-column factor of B, D = (A ⊙ SA) · (B ⊙ SB)ᵀ with SA[m,k] = scale_a[k/128, m] and SB[n,k] =
// scale_b[n/128, k/128]: both operands scaled in f32 here, one f32 cuBLAS GEMM. Tolerance 5e-2
// (issue 10; bf16 output and the f32 promotion order). Metric 2MNK TFLOPS. Vendor: PyTorch's
// blockwise torch._scaled_mm (cuBLASLt), measured by vendor_scaled_mm.py in its own child
// (docs/harness.md, "Vendor scripts"), which also logs the tensor-wise fp8 GEMM of the same
// inputs as the fp8 throughput ceiling. The check-only shapes cover partial tiles in M and N and
// a partial last K group (K a multiple of 16, as a TMA row of 1-byte elements needs).
#include <cuda_fp8.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

struct Mnk {
  long long m, n, k;
};
constexpr Mnk kShapes[] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                           {8192, 8192, 8192}, {320, 392, 448},    {128, 128, 128}};
constexpr int kTimed = 4;

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

// dst[r, k] = f32(src[r, k]) · scale[r, k / 128] with scale(r, g) = s[g * rs + r * cs].
__global__ void scale_rows(const __nv_fp8_e4m3* src, const float* s, float* dst, long long rows,
                           long long K, long long rs, long long cs, int row_block) {
  const long long n = rows * K;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    const long long r = i / K, g = (i % K) / 128;
    dst[i] = static_cast<float>(src[i]) * s[g * rs + (r / row_block) * cs];
  }
}

class BlockwiseFp8 final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-2; }
  int num_shapes() const override { return sizeof(kShapes) / sizeof(kShapes[0]); }
  Shape shape(int i) const override { return shape_of(kShapes[i].m, kShapes[i].n, kShapes[i].k); }
  bool check_only(int i) const override { return i >= kTimed; }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2], G = cdiv(K, 128);
    l.input("a", DType::e4m3, M * K);
    l.input("b", DType::e4m3, N * K);
    l.input("scale_a", DType::f32, G * M);
    l.input("scale_b", DType::f32, cdiv(N, 128) * G);
    l.output("d", DType::bf16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 4 + 1, 0.f, 1.f)) return rc;
    if (int rc = h.fill_normal(in[1], seed * 4 + 2, 0.f, 1.f)) return rc;
    if (int rc = h.fill_uniform(in[2], seed * 4 + 3, 0.25f, 2.f)) return rc;
    return h.fill_uniform(in[3], seed * 4 + 4, 0.25f, 2.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2], G = cdiv(K, 128);
    float* af = nullptr;
    float* bf = nullptr;
    if (cudaMalloc(&af, sizeof(float) * M * K) != cudaSuccess ||
        cudaMalloc(&bf, sizeof(float) * N * K) != cudaSuccess) {
      cudaFree(af);
      return h.fail("blockwise fp8 reference: out of device memory for the scaled operands");
    }
    // A row m, group g: scale_a[g * M + m]; B row n, group g: scale_b[(n / 128) * G + g].
    scale_rows<<<1024, 256>>>(static_cast<const __nv_fp8_e4m3*>(in[0].ptr),
                              static_cast<const float*>(in[2].ptr), af, M, K, M, 1, 1);
    scale_rows<<<1024, 256>>>(static_cast<const __nv_fp8_e4m3*>(in[1].ptr),
                              static_cast<const float*>(in[3].ptr), bf, N, K, 1, G, 128);
    int rc = cudaGetLastError() == cudaSuccess
                 ? 0
                 : h.fail("blockwise fp8 reference: the scaling kernel did not launch");
    Tensor ta{af, DType::f32, M * K, "a_scaled"}, tb{bf, DType::f32, N * K, "b_scaled"};
    if (rc == 0) rc = h.gemm_ref_f32(ta, false, tb, true, ref[0], M, N, K);
    if (cudaDeviceSynchronize() != cudaSuccess && rc == 0)
      rc = h.fail("blockwise fp8 reference: the scaled GEMM failed");
    cudaFree(af);
    cudaFree(bf);
    return rc;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.ptr(in[2].ptr);
    a.ptr(in[3].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }
  const char* vendor_name() const override { return "torch._scaled_mm blockwise"; }
  const char* vendor_script() const override { return "vendor_scaled_mm.py"; }
};

}  // namespace

SCHED2CU_BENCH_SPEC(BlockwiseFp8)
