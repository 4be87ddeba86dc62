// Bench spec of the harness's cumsum_rows test case: a persistent Triton row kernel computing the
// running sum of every row (tl.cumsum: tt.scan), checked against a CPU reference in double:
// Y[r, j] = sum of X[r, 0..j], f32, rows of n_cols <= 1024 elements. The running sums of N(0, 1)
// values stay O(sqrt(n)), so f32's order of additions costs ~1e-6 of max|Y|; a dropped or
// repeated element costs ~0.1. Launch args (X, Y, n_rows, n_cols). Shapes: 65536 x 1000 (timed),
// and check-only shapes with one row, a row of one element and a full 1024-wide block.
// Metric: 8 * n_rows * n_cols bytes.
#include <vector>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{65536, 1000}, {1, 777}, {300, 1}, {129, 1024}};

class CumsumRows final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-4; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {8.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.output("Y", DType::f32, s.d[0] * s.d[1]);
    l.input("X", DType::f32, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    return h.fill_normal(in[0], seed + 1, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<float> x(static_cast<size_t>(rows * cols)), y(x.size());
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("cumsum_rows reference: copy of the input failed");
    for (long long r = 0; r < rows; ++r) {
      double sum = 0;
      for (long long j = 0; j < cols; ++j) {
        sum += double(x[size_t(r * cols + j)]);
        y[size_t(r * cols + j)] = float(sum);
      }
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("cumsum_rows reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(CumsumRows)
