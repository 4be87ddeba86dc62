// Bench spec of the harness's matmul_tutorial_i64 test case (matmul_tutorial with 64-bit index
// math; pointer tiles lifted to tensor maps by schedule): C = A·B, A [M,K], B [K,N], C [M,N], f16
// row-major; launch args (a, b, c, M, N, K, stride_am, stride_bk, stride_cm), the unit strides
// specialized away (kernel.py). Reference: f32 cuBLAS; vendor: cuBLAS. The check-only shapes end
// in partial tiles along M, N and K: the rows and columns the tutorial wraps (`% M`, `% N`) and
// the K tail it masks.
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1000}, {300, 264, 200}, {128, 8, 64}};

class MatmulTutorialI64 final : public RowMajorF16Gemm {
 public:
  MatmulTutorialI64() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 1; }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    a.i(s.d[2]);  // stride_am: A's rows are K long
    a.i(s.d[1]);  // stride_bk: B's rows are N long
    a.i(s.d[1]);  // stride_cm
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(MatmulTutorialI64)
