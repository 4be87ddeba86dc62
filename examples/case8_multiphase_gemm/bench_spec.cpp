// Bench spec of case8_multiphase_gemm: three GEMMs in one kernel, C1 = A1·B1 and C2 = A2·B2 in
// f16, C3 = A3·B3 in bf16 (f32 accumulate), every operand [M,K]·[K,N] row-major; launch args
// (a1, b1, c1, a2, b2, c2, a3, b3, c3, M, N, K). Inputs N(0,1) with a fixed seed. Reference:
// f32 cuBLAS per product. Vendor baseline: the three cuBLAS calls back to back (what a user runs
// without the fused kernel). No hand-written kernel by design: `compare` shows raw TFLOPS.
// Metric 3·2MNK TFLOPS. A check-only shape has partial tiles in M, N and K.
#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][3] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {300, 264, 200}};

class Multiphase final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-3; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override {
    return shape_of(kShapes[i][0], kShapes[i][1], kShapes[i][2]);
  }
  bool check_only(int i) const override { return i > 1; }
  Metric metric(const Shape& s) const override {
    return {3.0 * 2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a1", DType::f16, M * K);
    l.input("b1", DType::f16, K * N);
    l.input("a2", DType::f16, M * K);
    l.input("b2", DType::f16, K * N);
    l.input("a3", DType::bf16, M * K);
    l.input("b3", DType::bf16, K * N);
    l.output("c1", DType::f16, M * N);
    l.output("c2", DType::f16, M * N);
    // bf16 keeps 8 bits of mantissa: its rounding alone is up to 2^-9 of the value.
    l.output("c3", DType::bf16, M * N, 1e-2);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    for (int i = 0; i < 6; ++i)
      if (int rc = h.fill_normal(in[i], seed * 7 + static_cast<uint64_t>(i) + 1, 0.f, 1.f))
        return rc;
    return 0;
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    for (int p = 0; p < 3; ++p)
      if (int rc = h.gemm_ref_f32(in[2 * p], false, in[2 * p + 1], false, ref[p], s.d[0], s.d[1],
                                  s.d[2]))
        return rc;
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    for (int p = 0; p < 3; ++p) {
      a.ptr(in[2 * p].ptr);
      a.ptr(in[2 * p + 1].ptr);
      a.ptr(out[p].ptr);
    }
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }
  bool has_vendor() const override { return true; }
  const char* vendor_name() const override { return "cuBLAS x3"; }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    for (int p = 0; p < 3; ++p)
      if (int rc =
              h.vendor_gemm(in[2 * p], false, in[2 * p + 1], false, out[p], s.d[0], s.d[1], s.d[2]))
        return rc;
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(Multiphase)
