// Bench spec of the harness's splitk_gemm test case: C = A·B by split-K, A [M,K] and B [K,N] f16
// row-major, C [M,N] f32 accumulated by atomic adds of the SPLIT_K = 4 partial tiles (lifted to TMA
// reduce-adds), so the harness zeroes C before each call (counted in the time). Launch args
// (a, b, c, M, N, K, stride_am, stride_bk, stride_cm). Reference: f32 cuBLAS; vendor: cuBLAS into
// f32. Shapes: a tall contraction (few output tiles, the split's use), a square one, and
// check-only shapes ending in partial tiles along M, N and K, one with K under a single slice
// (three of the four programs of each tile add zeros).
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {1024, 1024, 16384}, {4096, 4096, 4096}, {300, 264, 1000}, {128, 136, 64}};

class SplitKGemm final : public RowMajorF16Gemm {
 public:
  // f32 output summed in another order than the reference's (four partial sums per element).
  SplitKGemm() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 2e-3) {}
  bool check_only(int i) const override { return i > 1; }
  bool zero_outputs() const override { return true; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.output("c", DType::f32, M * N);
  }
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

SCHED2CU_BENCH_SPEC(SplitKGemm)
