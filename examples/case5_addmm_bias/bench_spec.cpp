// Bench spec of case5_addmm_bias: persistent C = f16(f32(A·B) + f32(bias)), f16 in/out, f32
// accumulate; A [M,K], B [K,N], bias [M,N] and C [M,N] row-major; launch args
// (a, b, bias, c, M, N, K) (the kernel reads the SM count itself). Inputs N(0,1) with a fixed
// seed, bias too. Reference: f32 cuBLAS A·B plus the bias added in f32. Vendor baseline:
// cuBLASLt with the bias as an out-of-place C (D = A·B + 1·bias, f16 in/out, f32 compute), the
// fused epilogue a library user would call. Metric 2MNK TFLOPS (the bias add is not counted).
#include "sched2cu/harness/gemm_bench_spec.h"

namespace {

using namespace sched2cu::spec;

constexpr RowMajorF16Gemm::Mnk kShapes[] = {{256, 256, 128},    {1024, 1024, 1024},
                                            {2048, 2048, 2048}, {4096, 4096, 4096},
                                            {8192, 8192, 8192}, {1024, 1024, 16384}};

// The GEMM spec's shapes, tolerance and metric; a bias input, its reference and launch args.
class AddmmBias final : public RowMajorF16Gemm {
 public:
  AddmmBias() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.input("bias", DType::f16, M * N);
    l.output("c", DType::f16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 3 + 1, 0.f, 1.f)) return rc;
    if (int rc = h.fill_normal(in[1], seed * 3 + 2, 0.f, 1.f)) return rc;
    return h.fill_normal(in[2], seed * 3 + 3, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    if (int rc = h.gemm_ref_f32(in[0], false, in[1], false, ref[0], s.d[0], s.d[1], s.d[2]))
      return rc;
    return h.add_to_f32(ref[0], in[2]);
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(in[2].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }
  bool has_vendor() const override { return true; }
  const char* vendor_name() const override { return "cuBLASLt"; }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    return h.vendor_addmm(in[0], false, in[1], false, in[2], out[0], s.d[0], s.d[1], s.d[2]);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(AddmmBias)
