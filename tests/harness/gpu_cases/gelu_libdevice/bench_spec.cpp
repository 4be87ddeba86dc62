// Bench spec of the harness's gelu_libdevice test case: libdevice calls (tanhf, powf, fast_expf)
// on bf16 inputs with 64-bit offsets, checked against a CPU reference in double from the bf16
// inputs. Per element i < n of X (bf16):
//   g = 0.5 x (1 + tanh(0.79788456 (x + 0.044715 x^3))),  Y[i] = g^2 + exp(-x^2)   (f32)
// Launch args (X, Y, n). Shapes: 2^24 elements (timed), and check-only sizes with a partial last
// block, a single element and one block exactly. Metric: 6 * n bytes (read 2, write 4).
#include <cmath>
#include <vector>

#include <cuda_bf16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[] = {1LL << 24, 1000, 1, 1024, 5 * 1024 + 3};

class GeluLibdevice final : public BenchSpec {
 public:
  // f32 outputs: libdevice's tanhf and powf are within 2 ulp, __nv_fast_expf (ex2.approx) within
  // about 2^-21 relative; 1e-5 of the largest output leaves room for both.
  double tolerance() const override { return 1e-5; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override { return {6.0 * double(s.d[0]), 1e9, "GB/s"}; }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::bf16, s.d[0]);
    l.output("Y", DType::f32, s.d[0]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    return h.fill_normal(in[0], seed + 1, 0.f, 2.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const size_t n = static_cast<size_t>(s.d[0]);
    std::vector<__nv_bfloat16> a(n);
    if (cudaMemcpy(a.data(), in[0].ptr, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("gelu_libdevice reference: copy of the input failed");
    std::vector<float> y(n);
    for (size_t i = 0; i < n; ++i) {
      const double x = __bfloat162float(a[i]);
      const double g = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      y[i] = static_cast<float>(g * g + std::exp(-x * x));
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
      return h.fail("gelu_libdevice reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(GeluLibdevice)
