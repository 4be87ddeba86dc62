// Bench spec of the harness's batched_gemm test case (issue 14's GEMM over tl.program_id(2)):
// C[z] = f16(A[z]·B[z]) for z < BATCH, A [BATCH*M, K], B [BATCH*K, N], C [BATCH*M, N] f16
// row-major (batches stacked along the rows); launch args (a, b, c, M, N, K, BATCH). Shape
// (M, N, K, BATCH), M a multiple of 128 and K of 64 as the kernel requires (a tile never
// straddles two batches); N partial in one shape. Reference: f32 cuBLAS per batch on views of
// the stacked tensors. Metric 2·BATCH·MNK TFLOPS.
#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][4] = {{1024, 1024, 1024, 16}, {256, 200, 192, 3}, {128, 128, 64, 1}};

Tensor view(const Tensor& t, long long offset, long long numel) {
  Tensor v = t;
  v.ptr = static_cast<char*>(t.ptr) + offset * static_cast<long long>(dtype_size(t.dtype));
  v.numel = numel;
  return v;
}

class BatchedGemm final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-3; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override {
    return shape_of(kShapes[i][0], kShapes[i][1], kShapes[i][2], kShapes[i][3]);
  }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]) * double(s.d[3]), 1e12,
            "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2], Z = s.d[3];
    l.input("a", DType::f16, Z * M * K);
    l.input("b", DType::f16, Z * K * N);
    l.output("c", DType::f16, Z * M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed * 2 + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2], Z = s.d[3];
    for (long long z = 0; z < Z; ++z)
      if (int rc =
              h.gemm_ref_f32(view(in[0], z * M * K, M * K), false, view(in[1], z * K * N, K * N),
                             false, view(ref[0], z * M * N, M * N), M, N, K))
        return rc;
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    a.i(s.d[3]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(BatchedGemm)
