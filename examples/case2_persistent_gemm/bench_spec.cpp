// Bench spec of case2_persistent_gemm: persistent C = A·B, f16 in/out, f32 accumulate; A [M,K],
// B [K,N] and C [M,N] row-major; launch args (a, b, c, M, N, K) (the kernel reads the SM count
// itself). Reference: f32 cuBLAS; vendor baseline: cuBLAS f16 GEMM (gemm_bench_spec.h). The
// 8192x8192x256 shape has only four K steps per tile: the epilogue dominates.
#include "sched2cu/harness/gemm_bench_spec.h"

namespace {

constexpr sched2cu::spec::RowMajorF16Gemm::Mnk kShapes[] = {
    {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 8192, 256}};

class PersistentGemm final : public sched2cu::spec::RowMajorF16Gemm {
 public:
  PersistentGemm() : RowMajorF16Gemm(kShapes, 4, 5e-3) {}
};

}  // namespace

SCHED2CU_BENCH_SPEC(PersistentGemm)
