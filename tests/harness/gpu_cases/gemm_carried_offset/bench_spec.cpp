// Bench spec of the harness's gemm_carried_offset test case (a GEMM whose K offset is carried by
// the loop): C = A·B, A [M,K], B [K,N], C [M,N], f16 row-major; launch args (a, b, c, M, N, K).
// Reference: f32 cuBLAS; vendor: cuBLAS. The check-only shapes end in partial tiles along M, N and
// K (the carried offset runs past K into TMA's zero fill).
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {4096, 4096, 4096}, {1000, 1000, 1000}, {300, 264, 200}};

class GemmCarriedOffset final : public RowMajorF16Gemm {
 public:
  GemmCarriedOffset() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 0; }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GemmCarriedOffset)
