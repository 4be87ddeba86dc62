// Bench spec of the harness's gemm_residual test case (a staging fill at function scope, with a
// chain of epilogue math evaluated box by box): C = f16(gelu(f32(A·B) + f32(R)) * scale), A
// [M,K], B [K,N], R and C [M,N], f16 row-major; launch args (a, b, r, c, M, N, K, scale).
// Reference: f32 cuBLAS A·B, then the residual, the exact (erf) GELU and the scale applied on the
// CPU in double. The shapes cover partial tiles in M, N and K (TMA zero fill and clipping) and
// one timed shape. Metric 2MNK TFLOPS.
#include <cmath>
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {2048, 2048, 2048}, {300, 264, 200}, {128, 8, 64}, {256, 512, 1024}};
constexpr double kScale = 0.75;

class GemmResidual final : public RowMajorF16Gemm {
 public:
  GemmResidual() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.input("r", DType::f16, M * N);
    l.output("c", DType::f16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 3 + 1, 0.f, 1.f)) return rc;
    if (int rc = h.fill_normal(in[1], seed * 3 + 2, 0.f, 1.f)) return rc;
    return h.fill_normal(in[2], seed * 3 + 3, 0.f, 4.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    if (int rc = h.gemm_ref_f32(in[0], false, in[1], false, ref[0], M, N, K)) return rc;
    std::vector<float> y(static_cast<size_t>(M * N));
    std::vector<__half> r(static_cast<size_t>(M * N));
    if (cudaMemcpy(y.data(), ref[0].ptr, y.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(r.data(), in[2].ptr, r.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("gemm_residual reference: copy to the host failed");
    for (size_t i = 0; i < y.size(); ++i) {
      const double x = double(y[i]) + double(__half2float(r[i]));
      y[i] = float(0.5 * x * (1.0 + std::erf(x * 0.7071067811865476)) * kScale);
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("gemm_residual reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(in[2].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    a.f(kScale);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GemmResidual)
