// GPU test of runtime/sched2cu/blocked_reduce.cuh's scans and two-operand reductions, one
// warpgroup per check, against CPU references:
// - bscan_cols, a sum along the columns, on a layout whose warps split the columns (S1 = 8,
//   W1 = 2: the warps' totals through the scratch) and on one that repeats its CTA tile twice
//   along the columns (S1 = 4, W1 = 4, C = 2 * CT1: the second repetition starts from the
//   first's total); and a non-commutative combine (f(p, q) = p, "the first element"), which
//   is wrong in any other order of combining;
// - breduce_cols and breduce_all of value-index pairs (BPair) with the argmax combine of
//   Triton's tl.max(..., return_indices=True), on rows where the maximum repeats, so the first
//   index is what is checked.
#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

using LCols = BLay<8, 512, 1, 8, 1, 32, 2, 2>;   // warps split the columns (W1 = 2)
using LReps = BLay<4, 1024, 1, 4, 1, 32, 1, 4>;  // CT1 = 512: two repetitions per row
using L1 = BLay<1, 1024, 1, 8, 1, 32, 1, 4>;     // a rank-1 row
constexpr int kR = 8, kC = 512, kR2 = 4, kC2 = 1024;

template <class T, class L>
__device__ void load_g(BTile<T, L>& t, const T* g) {
#pragma unroll
  for (int e = 0; e < L::kN; ++e) t.v[e] = g[BTile<T, L>::lin(e)];
}
template <class T, class L>
__device__ void store_g(const BTile<T, L>& t, T* g) {
#pragma unroll
  for (int e = 0; e < L::kN; ++e) g[BTile<T, L>::lin(e)] = t.v[e];
}

using Pair = BPair<float, int>;
__device__ Pair argmax(Pair p, Pair q) {
  const bool gt = p.a > q.a || (p.a == q.a && p.b < q.b);
  return gt ? p : q;
}

// x: [kR, kC] then [kR2, kC2] floats; xi: the same as ints (small values: ties).
// out: scan of x (LCols), scan of x2 (LReps), "first" scan of xi (LReps, as floats), then per
// row of x the argmax value and index (LCols), then the rank-1 argmax of x2's first row.
__global__ void scan_kernel(const float* x, const float* x2, const int* xi, float* out, int* idx) {
  __shared__ Pair scratch[1024];
  float* sc = reinterpret_cast<float*>(scratch);
  BTile<float, LCols> a, sa;
  BTile<float, LReps> b, sb;
  BTile<int, LReps> c, scn;
  load_g(a, x);
  load_g(b, x2);
  load_g(c, xi);
  auto sum = [](float p, float q) { return p + q; };
  bscan_cols(sa, a, sum, sc, 1);
  bscan_cols(sb, b, sum, sc, 1);
  bscan_cols(
      scn, c, [](int p, int) { return p; }, reinterpret_cast<int*>(scratch), 1);
  store_g(sa, out);
  store_g(sb, out + kR * kC);
  BTile<float, LReps> f;
  bmap(
      f, [](int v) { return static_cast<float>(v); }, btile(scn));
  store_g(f, out + kR * kC + kR2 * kC2);
  // argmax along the columns of x rounded to integers (ties), as pairs.
  BTile<Pair, LCols> z;
  BTile<int, LCols> col;
#pragma unroll
  for (int e = 0; e < LCols::kN; ++e) col.v[e] = LCols::col(e % LCols::kCols);
  bmap(
      z,
      [](float v, int i) {
        return Pair{rintf(v), i};
      },
      btile(a), btile(col));
  BRow<Pair, LCols> red;
  breduce_cols(
      red, z, [](Pair p, Pair q) { return argmax(p, q); }, scratch, 1);
  float* mv = out + kR * kC + 2 * kR2 * kC2;
  // Every replica of a row writes it (the butterfly and the scratch give them one value).
#pragma unroll
  for (int r = 0; r < LCols::kRows; ++r) {
    mv[LCols::row(r)] = red.v[r].a;
    idx[LCols::row(r)] = red.v[r].b;
  }
  BTile<float, L1> row;
  load_g(row, x2);
  BTile<int, L1> c1;
  brange(c1, 0);
  BTile<Pair, L1> z1;
  bmap(
      z1,
      [](float v, int i) {
        return Pair{rintf(v), i};
      },
      btile(row), btile(c1));
  const Pair best = breduce_all(
      z1, [](Pair p, Pair q) { return argmax(p, q); }, scratch, 1);
  if (threadIdx.x == 0) {
    mv[kR] = best.a;
    idx[kR] = best.b;
  }
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  uint32_t seed = 777;
  std::vector<float> x(kR * kC), x2(kR2 * kC2);
  std::vector<int> xi(kR2 * kC2);
  for (auto& e : x) e = 4.f * rt_test::urand(seed) - 2.f;
  for (auto& e : x2) e = 4.f * rt_test::urand(seed) - 2.f;
  for (size_t i = 0; i < xi.size(); ++i) xi[i] = static_cast<int>(i % 97) - 40;
  const size_t n_out = kR * kC + 2 * kR2 * kC2 + kR + 1;
  float *dx, *dx2, *dout;
  int *dxi, *didx;
  RT_CHECK(cudaMalloc(&dx, x.size() * 4));
  RT_CHECK(cudaMalloc(&dx2, x2.size() * 4));
  RT_CHECK(cudaMalloc(&dxi, xi.size() * 4));
  RT_CHECK(cudaMalloc(&dout, n_out * 4));
  RT_CHECK(cudaMalloc(&didx, (kR + 1) * 4));
  RT_CHECK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dx2, x2.data(), x2.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dxi, xi.data(), xi.size() * 4, cudaMemcpyHostToDevice));
  rt_test::launch_sync([&] { scan_kernel<<<1, 128>>>(dx, dx2, dxi, dout, didx); }, "scan_kernel");
  std::vector<float> o(n_out);
  std::vector<int> oi(kR + 1);
  RT_CHECK(cudaMemcpy(o.data(), dout, n_out * 4, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(oi.data(), didx, oi.size() * 4, cudaMemcpyDeviceToHost));
  auto scan_ref = [](const std::vector<float>& v, int rows, int cols) {
    std::vector<float> s(v.size());
    for (int r = 0; r < rows; ++r) {
      double acc = 0;
      for (int c = 0; c < cols; ++c) s[r * cols + c] = static_cast<float>(acc += v[r * cols + c]);
    }
    return s;
  };
  size_t k = 0;
  auto slice = [&](size_t n) {
    std::vector<float> v(o.begin() + static_cast<long>(k), o.begin() + static_cast<long>(k + n));
    k += n;
    return v;
  };
  res.check(rt_test::rel_err(slice(kR * kC), scan_ref(x, kR, kC)) < 1e-5,
            "bscan_cols sum, warps on the columns (W1 = 2, S1 = 8)");
  res.check(rt_test::rel_err(slice(kR2 * kC2), scan_ref(x2, kR2, kC2)) < 1e-5,
            "bscan_cols sum, two repetitions of the CTA tile (W1 = 4, S1 = 4)");
  bool first = true;
  const std::vector<float> fs = slice(kR2 * kC2);
  for (int r = 0; r < kR2; ++r)
    for (int c = 0; c < kC2; ++c) first &= fs[r * kC2 + c] == static_cast<float>(xi[r * kC2]);
  res.check(first, "bscan_cols of a non-commutative combine (the first element) keeps the order");
  const std::vector<float> mv = slice(kR + 1);
  bool am = true;
  for (int r = 0; r <= kR; ++r) {
    const float* row = r < kR ? &x[r * kC] : x2.data();
    const int n = r < kR ? kC : kC2;
    int best = 0;
    for (int c = 1; c < n; ++c)
      if (std::rint(row[c]) > std::rint(row[best])) best = c;
    am &= oi[r] == best && mv[r] == std::rint(row[best]);
  }
  res.check(am, "breduce_cols / breduce_all of (value, index) pairs: the first maximum");
  RT_CHECK(cudaFree(dx));
  RT_CHECK(cudaFree(dx2));
  RT_CHECK(cudaFree(dxi));
  RT_CHECK(cudaFree(dout));
  RT_CHECK(cudaFree(didx));
  return res.exit_code();
}
