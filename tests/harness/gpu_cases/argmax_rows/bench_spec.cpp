// Bench spec of the harness's argmax_rows test case: the maximum of every row of X and its first
// index (tl.max with return_indices: a two-operand reduction), persistent over blocks of 4 rows,
// checked exactly against a CPU reference. Launch args (X, V, I, n_rows, n_cols), X f32
// [n_rows, n_cols] with n_cols <= 1024, V f32 and I i32 [n_rows]. Shapes (n_rows, n_cols, ties):
// 65536 x 1000 (timed), and check-only shapes with one row, a row of one element, a full
// 1024-wide block, and rows of small integers (ties = 1: every row has its maximum several
// times, so the first index is what is checked). Metric: 4 * n_rows * n_cols bytes read.
#include <cmath>
#include <vector>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][3] = {
    {65536, 1000, 0}, {1, 777, 0}, {301, 1, 0}, {129, 1024, 0}, {1000, 517, 1}};

class ArgmaxRows final : public BenchSpec {
 public:
  double tolerance() const override { return 0.0; }  // a maximum and an index: exact
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1], kShapes[i][2]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {4.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.output("V", DType::f32, s.d[0]);
    l.output("I", DType::i32, s.d[0]);
    l.input("X", DType::f32, s.d[0] * s.d[1]);
  }
  int init_inputs(const Shape& s, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int e = h.fill_normal(in[0], seed + 1, 0.f, 2.f)) return e;
    if (s.d[2] == 0) return 0;
    // Ties: round to the integers -3 .. 3, so the maximum repeats within every row.
    std::vector<float> x(static_cast<size_t>(s.d[0] * s.d[1]));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("argmax_rows inputs: copy of X failed");
    for (float& v : x) v = std::fmin(3.f, std::fmax(-3.f, std::round(v)));
    if (cudaMemcpy(in[0].ptr, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      return h.fail("argmax_rows inputs: copy of X failed");
    return 0;
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<float> x(static_cast<size_t>(rows * cols)), v(static_cast<size_t>(rows));
    // The reference buffers are f32 whatever the output's type (bench_spec_api.h): the index is
    // written as a float (exact below 2^24) and compared with the i32 output converted.
    std::vector<float> idx(static_cast<size_t>(rows));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("argmax_rows reference: copy of the input failed");
    for (long long r = 0; r < rows; ++r) {
      long long best = 0;
      for (long long j = 1; j < cols; ++j)
        if (x[size_t(r * cols + j)] > x[size_t(r * cols + best)]) best = j;
      v[size_t(r)] = x[size_t(r * cols + best)];
      idx[size_t(r)] = static_cast<float>(best);
    }
    if (cudaMemcpy(ref[0].ptr, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaMemcpy(ref[1].ptr, idx.data(), idx.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess)
      return h.fail("argmax_rows reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(out[0].ptr);
    a.ptr(out[1].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(ArgmaxRows)
