// Bench spec of the harness's gemm_tf32 test case (tl.dot of f32 tiles, run as tf32 wgmma):
// C = A·Bᵀ, A [M,K], B [N,K], C [M,N], f32 row-major; launch args (a, b, c, M, N, K). Reference:
// f32 cuBLAS A·Bᵀ (CUBLAS_COMPUTE_32F, no tf32), so the tolerance covers tf32's 10-bit mantissa
// of both operands (relative error about 1e-3 of the largest output at these K). The shapes
// cover partial tiles in M, N and K (TMA zero fill and clipping) and one timed shape. Metric 2MNK
// TFLOPS; no vendor (the harness's cuBLAS GEMM computes f32 in full precision, not tf32).
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {{4096, 4096, 4096}, {300, 264, 200}, {128, 8, 64}};

class GemmTf32 final : public RowMajorF16Gemm {
 public:
  GemmTf32() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 1e-2) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f32, M * K);
    l.input("b", DType::f32, N * K);
    l.output("c", DType::f32, M * N);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    return h.gemm_ref_f32(in[0], false, in[1], true, ref[0], s.d[0], s.d[1], s.d[2]);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GemmTf32)
