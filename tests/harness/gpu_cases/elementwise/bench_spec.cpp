// Bench spec of the harness's elementwise test case: a loop-free Triton kernel (the vector-add
// tutorial's shape) whose grid comes from its store masks, with bf16 tensor math, checked against
// a CPU reference computed from the bf16 inputs. Per element i < n of A, B (bf16):
//   C[i] = bf16( bf16(a * sigmoid(a)) * b )      (bf16)
//   D[i] = (a > 0 ? a : 0.01 a) + b              (f32)
// Launch args (A, B, C, D, n). Shapes: 2^24 elements (timed), and check-only sizes with a partial
// last block, a single element and one block exactly. Metric: 10 * n bytes (read 2 x 2, write 2 +
// 4).
#include <cmath>
#include <vector>

#include <cuda_bf16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[] = {1LL << 24, 1000, 1, 1024, 5 * 1024 + 3};

class Elementwise final : public BenchSpec {
 public:
  // bf16 outputs: two roundings of 2^-9 each, plus the f32 sigmoid's approximate exp and division.
  double tolerance() const override { return 1e-2; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override { return {10.0 * double(s.d[0]), 1e9, "GB/s"}; }
  void declare(const Shape& s, Layout& l) const override {
    l.input("A", DType::bf16, s.d[0]);
    l.input("B", DType::bf16, s.d[0]);
    l.output("C", DType::bf16, s.d[0]);
    l.output("D", DType::f32, s.d[0]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed + 1, 0.f, 2.f)) return rc;
    return h.fill_normal(in[1], seed + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const size_t n = static_cast<size_t>(s.d[0]);
    std::vector<__nv_bfloat16> a(n), b(n);
    if (cudaMemcpy(a.data(), in[0].ptr, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(b.data(), in[1].ptr, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("elementwise reference: copy of the inputs failed");
    std::vector<float> c(n), d(n);
    for (size_t i = 0; i < n; ++i) {
      const float x = __bfloat162float(a[i]), y = __bfloat162float(b[i]);
      const float gate = __bfloat162float(__float2bfloat16_rn(x / (1.0f + std::exp(-x))));
      c[i] = __bfloat162float(__float2bfloat16_rn(gate * y));
      d[i] = (x > 0 ? x : 0.01f * x) + y;
    }
    if (cudaMemcpy(ref[0].ptr, c.data(), n * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaMemcpy(ref[1].ptr, d.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
      return h.fail("elementwise reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.ptr(out[1].ptr);
    a.i(s.d[0]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(Elementwise)
