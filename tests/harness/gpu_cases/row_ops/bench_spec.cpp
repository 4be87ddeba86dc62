// Bench spec of the harness's row_ops test case (issue 9): a plain Triton row kernel exercising
// masked pointer loads with a non-zero `other`, selects, comparisons, sqrt / rsqrt / exp / log /
// erf / abs, sum, min and a custom combine reduction, tl.num_programs and a runtime row length,
// checked against a CPU reference computed in double from the f16 inputs. Per row r of
// X[n_rows, n_cols] (row stride n_cols) with G[n_cols]:
//   Y[r, j] = (x > 0 ? sqrt(x) : -log(1 + exp(x))) * g_j + erf(x)        (f16)
//   S[r]    = (min_j x + max_j |x|) * rsqrt(sum_j x^2 / n_cols + eps)     (f32)
// Launch args (X, G, Y, S, n_rows, n_cols, eps). The shapes cover a partial last chunk, rows
// that are not 16-byte aligned (n_cols odd), a row shorter than one chunk, many chunks per row,
// and more rows than programs. Metric: 4 * n_rows * n_cols bytes (read x, write y).
#include <cmath>
#include <vector>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kShapes[][2] = {{8192, 4096}, {300, 1000}, {257, 1001}, {64, 100}, {33, 5000}};
constexpr double kEps = 1e-5;

class RowOps final : public BenchSpec {
 public:
  double tolerance() const override { return 5e-3; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override { return shape_of(kShapes[i][0], kShapes[i][1]); }
  bool check_only(int i) const override { return i > 0; }
  Metric metric(const Shape& s) const override {
    return {4.0 * double(s.d[0]) * double(s.d[1]), 1e9, "GB/s"};
  }
  void declare(const Shape& s, Layout& l) const override {
    l.input("X", DType::f16, s.d[0] * s.d[1]);
    l.input("G", DType::f16, s.d[1]);
    l.output("Y", DType::f16, s.d[0] * s.d[1]);
    l.output("S", DType::f32, s.d[0]);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed + 1, 0.f, 2.f)) return rc;
    return h.fill_normal(in[1], seed + 2, 1.f, 0.5f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long rows = s.d[0], cols = s.d[1];
    std::vector<__half> x(static_cast<size_t>(rows * cols)), g(static_cast<size_t>(cols));
    if (cudaMemcpy(x.data(), in[0].ptr, x.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess ||
        cudaMemcpy(g.data(), in[1].ptr, g.size() * sizeof(__half), cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return h.fail("row_ops reference: copy of the inputs failed");
    std::vector<float> y(static_cast<size_t>(rows * cols)), sr(static_cast<size_t>(rows));
    for (long long r = 0; r < rows; ++r) {
      double lo = INFINITY, big = 0, ss = 0;
      for (long long j = 0; j < cols; ++j) {
        const double v = __half2float(x[size_t(r * cols + j)]);
        const double gj = __half2float(g[size_t(j)]);
        lo = std::fmin(lo, v);
        big = std::fmax(big, std::fabs(v));
        ss += v * v;
        const double t = v > 0 ? std::sqrt(v) : -std::log(1 + std::exp(v));
        y[size_t(r * cols + j)] = float(t * gj + std::erf(v));
      }
      sr[size_t(r)] = float((lo + big) / std::sqrt(ss / double(cols) + kEps));
    }
    if (cudaMemcpy(ref[0].ptr, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess ||
        cudaMemcpy(ref[1].ptr, sr.data(), sr.size() * sizeof(float), cudaMemcpyHostToDevice) !=
            cudaSuccess)
      return h.fail("row_ops reference: copy of the reference failed");
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.ptr(out[1].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.f(kEps);
    return 0;
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(RowOps)
