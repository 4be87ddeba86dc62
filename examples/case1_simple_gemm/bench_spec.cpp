// Bench spec of case1_simple_gemm: C = A·B, f16 in/out, f32 accumulate, A [M,K], B [K,N] and
// C [M,N] row-major; launch args (a, b, c, M, N, K) as in kernel.py. Reference: f32 cuBLAS;
// vendor baseline: cuBLAS f16 GEMM (gemm_bench_spec.h). Compiled by the harness at bench time.
#include "sched2cu/harness/gemm_bench_spec.h"

namespace {

constexpr sched2cu::spec::RowMajorF16Gemm::Mnk kShapes[] = {
    {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}};

class SimpleGemm final : public sched2cu::spec::RowMajorF16Gemm {
 public:
  SimpleGemm() : RowMajorF16Gemm(kShapes, 4, 5e-3) {}
};

}  // namespace

SCHED2CU_BENCH_SPEC(SimpleGemm)
