// Bench spec of case1_simple_gemm: C = A·B, f16 in/out, f32 accumulate, A [M,K] and B [K,N] and
// C [M,N] row-major; launch args (a, b, c, M, N, K) as in kernel.py. Reference: f32 cuBLAS;
// vendor baseline: cuBLAS f16 GEMM. Compiled by the harness at bench time; never links sched2cu.
#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

class SimpleGemm final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-3; }
  int num_shapes() const override { return 4; }
  Shape shape(int i) const override {
    static const long long n[] = {1024, 2048, 4096, 8192};
    return shape_of(n[i], n[i], n[i]);
  }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.output("c", DType::f16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed * 2 + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    return h.gemm_ref_f32(in[0], false, in[1], false, ref[0], s.d[0], s.d[1], s.d[2]);
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }
  bool has_vendor() const override { return true; }
  const char* vendor_name() const override { return "cuBLAS"; }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    return h.vendor_gemm(in[0], false, in[1], false, out[0], s.d[0], s.d[1], s.d[2]);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(SimpleGemm)
