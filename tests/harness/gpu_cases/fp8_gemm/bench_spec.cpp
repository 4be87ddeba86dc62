// Bench spec of the harness's fp8_gemm test case (issue 10's tensor-wise fp8 GEMM): D =
// bf16((A·Bᵀ)·(a_scale·b_scale)), A [M,K] and B [N,K] e4m3 row-major, D [M,N] bf16; launch args
// (a, b, d, M, N, K, a_scale, b_scale). Reference: the f32 GEMM of the e4m3 inputs (cuBLAS on
// their exact f32 values), scaled on the CPU in double. The shapes cover partial tiles in M, N
// and K (K a multiple of 16, as a TMA row of 1-byte elements needs) and one timed shape. Metric
// 2MNK TFLOPS. No vendor: the fp8 baseline (cuBLASLt / torch._scaled_mm) belongs to case9.
#include <vector>

#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {{4096, 4096, 4096}, {300, 264, 208}, {128, 8, 128}};
constexpr double kScaleA = 0.75, kScaleB = 1.5;

class Fp8Gemm final : public RowMajorF16Gemm {
 public:
  // bf16 output: 2^-8 relative rounding, plus the f32 accumulation order.
  Fp8Gemm() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 1e-2) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::e4m3, M * K);
    l.input("b", DType::e4m3, N * K);
    l.output("d", DType::bf16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed * 2 + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    if (int rc = h.gemm_ref_f32(in[0], false, in[1], true, ref[0], M, N, K)) return rc;
    std::vector<float> y(static_cast<size_t>(M * N));
    if (cudaMemcpy(y.data(), ref[0].ptr, y.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("fp8_gemm reference: copy to the host failed");
    for (float& v : y) v = static_cast<float>(static_cast<double>(v) * kScaleA * kScaleB);
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("fp8_gemm reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    a.f(kScaleA);
    a.f(kScaleB);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(Fp8Gemm)
