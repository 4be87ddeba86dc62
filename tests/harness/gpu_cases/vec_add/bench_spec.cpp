// Bench spec of the harness's own GPU test case: z = x + y over f32 vectors, launch args
// (x, y, z, n). Small and obviously right, so that compare/check/bench can be validated on the
// H200 independently of the corpus kernels; hang/ and fault/ reuse it with broken kernels. It
// also exercises a check-only shape (the third: checked, never timed) and the roofline copy (a
// device-to-device copy of 6n bytes reads and writes the 12n bytes the metric counts).
#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

__global__ void add_ref(const float* x, const float* y, float* z, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    z[i] = x[i] + y[i];
}

class VecAdd final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-6; }
  int num_shapes() const override { return 3; }
  Shape shape(int i) const override {
    return shape_of(i == 0 ? (1ll << 20) : i == 1 ? (1ll << 26) : 4100);
  }
  bool check_only(int i) const override { return i == 2; }
  Metric metric(const Shape& s) const override { return {12.0 * double(s.d[0]), 1e9, "GB/s"}; }
  long long roofline_copy_bytes(const Shape& s) const override { return 6 * s.d[0]; }
  void declare(const Shape& s, Layout& l) const override {
    l.input("x", DType::f32, s.d[0]);
    l.input("y", DType::f32, s.d[0]);
    l.output("z", DType::f32, s.d[0]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    return h.fill_uniform(in[1], seed * 2 + 2, -1.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    add_ref<<<1024, 256>>>(static_cast<const float*>(in[0].ptr),
                           static_cast<const float*>(in[1].ptr), static_cast<float*>(ref[0].ptr),
                           s.d[0]);
    if (cudaGetLastError() != cudaSuccess) return h.fail("add_ref launch failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(VecAdd)
