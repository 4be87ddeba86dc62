// Bench spec of the harness's matmul_tma_persistent_tutorial test case (Triton's persistent-matmul
// tutorial with host tensor descriptors and the subtiled epilogue): C = A·Bᵀ, A [M,K], B [N,K],
// C [M,N], f16 row-major, f32 accumulation. Launch args: each TensorDescriptor as its base
// pointer, its extents and its strides (docs/abi.md), then M, N, K. Reference: f32 cuBLAS A·Bᵀ;
// vendor: cuBLAS on the same B layout. The check-only shapes end in partial tiles along M, N and K
// and have fewer tiles than programs.
#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1000}, {300, 264, 200}, {128, 8, 64}};

// A row-major [rows, cols] tensor as a TensorDescriptor argument: base, extents, strides.
void descriptor(ArgList& a, void* base, long long rows, long long cols) {
  a.ptr(base);
  a.i(rows);
  a.i(cols);
  a.i(cols);
  a.i(1);
}

// The GEMM spec with B stored [N, K] (the tutorial's `b.T`) and descriptor arguments.
class MatmulTmaPersistentTutorial final : public RowMajorF16Gemm {
 public:
  MatmulTmaPersistentTutorial()
      : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 1; }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    return h.gemm_ref_f32(in[0], false, in[1], true, ref[0], s.d[0], s.d[1], s.d[2]);
  }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    return h.vendor_gemm(in[0], false, in[1], true, out[0], s.d[0], s.d[1], s.d[2]);
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    descriptor(a, in[0].ptr, M, K);
    descriptor(a, in[1].ptr, N, K);
    descriptor(a, out[0].ptr, M, N);
    a.i(M);
    a.i(N);
    a.i(K);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(MatmulTmaPersistentTutorial)
