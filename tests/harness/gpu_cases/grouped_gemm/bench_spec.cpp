// Bench spec of the harness's grouped_gemm test case (the Triton tutorial's matmul through tensor
// descriptors, grouped launch order): C = f16(leaky_relu(f32(A·B))), slope 0.01, A [M,K], B
// [K,N], C [M,N] f16 row-major; launch args (a, b, c, M, N, K). Reference: f32 cuBLAS A·B, the
// leaky ReLU on the CPU. The shapes cover partial tiles in M, N and K and a last group of fewer
// than GROUP_SIZE_M (8) tile rows (1300 rows: 11 of them), and one timed shape. Metric 2MNK
// TFLOPS.
#include <vector>

#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {
    {2048, 2048, 2048}, {1300, 1096, 192}, {300, 264, 200}, {128, 8, 64}};

class GroupedGemm final : public RowMajorF16Gemm {
 public:
  GroupedGemm() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    if (int rc = h.gemm_ref_f32(in[0], false, in[1], false, ref[0], M, N, K)) return rc;
    std::vector<float> y(static_cast<size_t>(M * N));
    if (cudaMemcpy(y.data(), ref[0].ptr, y.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("grouped_gemm reference: copy to the host failed");
    for (float& v : y) v = v >= 0.f ? v : 0.01f * v;
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("grouped_gemm reference: copy of the reference failed");
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GroupedGemm)
