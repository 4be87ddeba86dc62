// Bench spec of the harness's matmul_persistent_tutorial test case (Triton's persistent-matmul
// tutorial with device-side descriptors and the subtiled epilogue): C = A·Bᵀ, A [M,K], B [N,K],
// C [M,N], f16 row-major, f32 accumulation; launch args (a, b, c, M, N, K). Reference: f32
// cuBLAS A·Bᵀ; vendor: cuBLAS on the same B layout. The check-only shapes end in partial tiles
// along M, N and K (TMA zero fill and clipping) and have fewer tiles than programs.
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1000}, {300, 264, 200}, {128, 8, 64}};

// The GEMM spec with B stored [N, K] (the tutorial's `b.T`).
class MatmulPersistentTutorial final : public RowMajorF16Gemm {
 public:
  MatmulPersistentTutorial()
      : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 1; }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    return h.gemm_ref_f32(in[0], false, in[1], true, ref[0], s.d[0], s.d[1], s.d[2]);
  }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    return h.vendor_gemm(in[0], false, in[1], true, out[0], s.d[0], s.d[1], s.d[2]);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(MatmulPersistentTutorial)
