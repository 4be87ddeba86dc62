// Bench spec of the harness's col_atomic test case: a plain Triton kernel whose outputs are
// accumulated across programs with atomics (tt.atomic_rmw fadd and max, acq_rel, gpu scope),
// checked against a CPU reference. Per column j of X[n_rows, n_cols]:
//   S[j] = sum_i x[i, j]                        (f32, tl.atomic_add)
//   Q[j] = max(0, max_i int(64 * x[i, j]))      (i32, tl.atomic_max; int() truncates toward 0)
// Both outputs start at zero in every call (zero_outputs: the harness clears them, inside the
// timed call). Launch args (X, S, Q, n_rows, n_cols). The shapes cover a partial last chunk,
// rows that are not 16-byte aligned (n_cols odd), a row shorter than one chunk, and more rows
// than programs. Metric: 2 * n_rows * n_cols bytes (read x).
#include <cmath>
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 4096}, {300, 1000}, {257, 1001}, {64, 100}, {33, 5000}};

class ColAtomic final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-4; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  bool zero_outputs() const override { return true; }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::f16, s.d[0] * s.d[1]);
    l.output("S", DType::f32, s.d[1]);
    l.output("Q", DType::i32, s.d[1]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    return h.fill_normal(in[0], seed + 1, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(static_cast<size_t>(rows * cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return h.fail("col_atomic reference: copy of the input failed");
    std::vector<double> sum(static_cast<size_t>(cols), 0.0);
    std::vector<float> q(static_cast<size_t>(cols), 0.f);
    for (long long r = 0; r < rows; ++r)
      for (long long j = 0; j < cols; ++j) {
        const float v = __half2float(x[size_t(r * cols + j)]);
        sum[size_t(j)] += v;
        q[size_t(j)] = std::fmax(q[size_t(j)], float(int(v * 64.0f)));
      }
    std::vector<float> s32(sum.begin(), sum.end());
    if (cudaMemcpy(ref[0].ptr, s32.data(), s32.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaMemcpy(ref[1].ptr, q.data(), q.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess)
      return h.fail("col_atomic reference: copy of the reference failed");
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

SCHED2CU_BENCH_SPEC(ColAtomic)
