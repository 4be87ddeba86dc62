// Bench spec of the harness's gemm_fp8_out test case: C = e4m3(scale · A·Bᵀ), A [M,K] and B [N,K]
// bf16 row-major, C [M,N] fp8 e4m3; launch args (a, b, c, M, N, K, scale). Reference: f32 cuBLAS
// A·Bᵀ times scale (1/8, which keeps |C| well below e4m3's 448 at these K), compared with the fp8
// output: e4m3's 3 mantissa bits round by up to 2^-4 of a value, so the tolerance is 7e-2 of the
// largest output. The shapes cover partial tiles in M, N and K (N a multiple of 16: a TMA row of
// fp8 must be too) and one timed shape. Metric 2MNK TFLOPS; no vendor.
#include <vector>

#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {{4096, 4096, 4096}, {300, 272, 200}, {128, 16, 64}};
constexpr float kScale = 0.125f;

class GemmFp8Out final : public RowMajorF16Gemm {
 public:
  GemmFp8Out() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 7e-2) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::bf16, M * K);
    l.input("b", DType::bf16, N * K);
    l.output("c", DType::e4m3, M * N);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    if (int rc = h.gemm_ref_f32(in[0], false, in[1], true, ref[0], M, N, K)) return rc;
    std::vector<float> y(static_cast<size_t>(M * N));
    if (cudaMemcpy(y.data(), ref[0].ptr, y.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("gemm_fp8_out reference: copy to the host failed");
    for (float& v : y) v *= kScale;
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("gemm_fp8_out reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    a.f(kScale);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GemmFp8Out)
