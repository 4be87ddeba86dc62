// Bench spec of the harness's matmul_tutorial_bias test case (Triton's matmul tutorial through
// pointer tiles, plus a bias per column loaded through pointers and a ReLU): C = f16(relu(A·B +
// bias)), A [M,K], B [K,N], bias [N], C [M,N], f16 row-major; launch args (a, b, bias, c, M, N, K,
// stride_am, stride_bk, stride_cm). Reference: f32 cuBLAS A·B, then the bias and the ReLU on the
// CPU in double. Check-only shapes end in partial tiles along M, N and K.
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/gemm_bench_spec.h"

using namespace sched2cu::spec;

namespace {

constexpr RowMajorF16Gemm::Mnk kShapes[] = {{4096, 4096, 4096}, {1000, 1000, 1000}, {300, 264, 200}};

class MatmulTutorialBias final : public RowMajorF16Gemm {
 public:
  MatmulTutorialBias() : RowMajorF16Gemm(kShapes, sizeof(kShapes) / sizeof(kShapes[0]), 5e-3) {}
  bool check_only(int i) const override { return i > 0; }
  bool has_vendor() const override { return false; }
  void declare(const Shape& s, Layout& l) const override {
    const long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.input("bias", DType::f16, N);
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
    std::vector<__half> bias(static_cast<size_t>(N));
    if (cudaMemcpy(y.data(), ref[0].ptr, y.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(bias.data(), in[2].ptr, bias.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("matmul_tutorial_bias reference: copy to the host failed");
    for (long long r = 0; r < M; ++r)
      for (long long c = 0; c < N; ++c) {
        const double x = double(y[size_t(r * N + c)]) + double(__half2float(bias[size_t(c)]));
        y[size_t(r * N + c)] = float(x > 0 ? x : 0.0);
      }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("matmul_tutorial_bias reference: copy of the reference failed");
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
    a.i(s.d[2]);  // stride_am
    a.i(s.d[1]);  // stride_bk
    a.i(s.d[1]);  // stride_cm
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(MatmulTutorialBias)
