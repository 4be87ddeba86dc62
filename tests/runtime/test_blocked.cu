// GPU test of runtime/sched2cu/blocked.cuh, one warpgroup per check, against CPU references:
// - coverage: every element of a tile is held by exactly one thread slot (layouts with warps on
//   the columns and on the rows), and a row vector's copies agree with its rows;
// - breduce_cols (sum, max; in-warp, and across warps through scratch when W1 = 2),
//   breduce_rows (across W0 = 4 warps), breduce_all on a rank-1 tensor;
// - bload / bstore with masks and `other` over a partial last chunk, on aligned rows (16-byte
//   runs) and on rows one element off alignment (the element-by-element path);
// - bload_box (a descriptor box by plain loads): boxes inside, across the last row and column,
//   and at a negative row, on 16-byte-aligned rows (vector runs) and on an odd row stride;
// - bstore_smem / bload_smem round trips in TMA box form (128-byte swizzle, 64-wide boxes, and
//   unswizzled 512-wide rows), and bconvert between two distributions of one vector.
// Coordinates are checked against the layout formulas of the header comment through what the
// kernel writes, never through the header's own row()/col() alone.
#include <cuda_fp16.h>

#include <string>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

using LCols = BLay<8, 512, 1, 8, 1, 32, 2, 2>;  // Triton's case6 layout: warps split columns
using LRows = BLay<8, 512, 1, 8, 1, 32, 4, 1>;  // the emitter's: whole rows per warp
using L1 = BLay<1, 1024, 1, 8, 1, 32, 1, 4>;    // a rank-1 row of 1024
constexpr int kR = 8, kC = 512;

template <class L>
__device__ void load_g(BTile<float, L>& t, const float* g) {
#pragma unroll
  for (int e = 0; e < L::kN; ++e) t.v[e] = g[BTile<float, L>::lin(e)];
}

// out layout (floats): [0, R*C) coverage counts of LCols, [R*C, 2RC) of LRows,
// then per-row results: rowsum LCols (R), rowmax LCols (R), rowsum LRows (R), colsum LRows (C),
// the rank-1 sum (1), the smem round trips (2 * R*C), the converted vector (C).
__global__ void reduce_kernel(const float* x, const float* x1, float* out) {
  __shared__ float scratch[2048];
  __shared__ __align__(1024) uint8_t stage[kR * kC * 2];
  float* cov0 = out;
  float* cov1 = out + kR * kC;
  float* rs0 = out + 2 * kR * kC;
  float* rm0 = rs0 + kR;
  float* rs1 = rm0 + kR;
  float* cs1 = rs1 + kR;
  float* all = cs1 + kC;
  float* rt0 = all + 1;
  float* rt1 = rt0 + kR * kC;
  float* conv = rt1 + kR * kC;
  BTile<float, LCols> a;
  BTile<float, LRows> b;
  load_g(a, x);
  load_g(b, x);
  for (int e = 0; e < LCols::kN; ++e) atomicAdd(&cov0[BTile<float, LCols>::lin(e)], 1.f);
  for (int e = 0; e < LRows::kN; ++e) atomicAdd(&cov1[BTile<float, LRows>::lin(e)], 1.f);
  auto sum = [](float p, float q) { return p + q; };
  BRow<float, LCols> r0, m0;
  breduce_cols(r0, a, sum, scratch, 1);
  breduce_cols(
      m0, a, [](float p, float q) { return fmaxf(p, q); }, scratch, 1);
  BRow<float, LRows> r1;
  breduce_cols(r1, b, sum, nullptr, 1);
  BCol<float, LRows> c1;
  breduce_rows(c1, b, sum, scratch, 1);
  // Every replica writes: a replica that disagrees makes the plane differ from the reference
  // only by chance order, so each row's value is also checked by every thread below.
  for (int r = 0; r < LCols::kRows; ++r) {
    if (r0.v[r] != __shfl_sync(0xffffffffu, r0.v[r], 0, 32) && LCols::kT0 == 1)
      atomicAdd(&rs0[LCols::row(r)], 1e9f);  // replicas of one row disagree within a warp
    if (threadIdx.x % 32 == 0 && (threadIdx.x / 32) % LCols::kW1 == 0) {
      rs0[LCols::row(r)] += r0.v[r];
      rm0[LCols::row(r)] = m0.v[r];
    }
  }
  for (int r = 0; r < LRows::kRows; ++r)
    if (threadIdx.x % 32 == 0) rs1[LRows::row(r)] = r1.v[r];
  if (threadIdx.x < 32)
    for (int c = 0; c < LRows::kCols; ++c) cs1[LRows::col(c)] = c1.v[c];
  BTile<float, L1> v;
  load_g(v, x1);
  const float s = breduce_all(v, sum, scratch, 1);
  if (threadIdx.x == 77) all[0] = s;
  // Shared memory round trips in TMA box form.
  BTile<__half, LRows> h, back;
  bmap(
      h, [](float q) { return __float2half(q); }, btile(b));
  bstore_smem<128, 64, __half, LRows>(stage, btile(h));
  __syncthreads();
  bload_smem<128, 64, __half, LRows>(back, stage);
  for (int e = 0; e < LRows::kN; ++e) rt0[BTile<float, LRows>::lin(e)] = __half2float(back.v[e]);
  __syncthreads();
  bstore_smem<0, 512, __half, LRows>(stage, btile(h));
  __syncthreads();
  bload_smem<0, 512, __half, LRows>(back, stage);
  for (int e = 0; e < LRows::kN; ++e) rt1[BTile<float, LRows>::lin(e)] = __half2float(back.v[e]);
  // The unswizzled form is plain row-major: check one element against the formula.
  if (threadIdx.x == 0 && __half2float(reinterpret_cast<const __half*>(stage)[3 * kC + 300]) !=
                              __half2float(__float2half(x[3 * kC + 300])))
    rt1[0] = 1e9f;
  __syncthreads();
  // bconvert: a rank-1 [512] tile (Triton's 1-D layout) into the tile's column vector.
  using LW = BLay<1, 512, 1, 1, 1, 32, 1, 4>;
  BTile<float, LW> w;
  load_g(w, x);  // the first row of x
  BCol<float, LRows> wc;
  bconvert(wc, w, scratch, 1);
  for (int c = 0; c < LRows::kCols; ++c)
    if (wc.v[c] != x[LRows::col(c)]) atomicAdd(&conv[LRows::col(c)], 1.f);
}

// Masked loads and stores over a rank-1 chunk: y[j] = load(x + base + j, j < n, other = -1) * 2
// for j < 1024, stored with the same mask.
__global__ void mask_kernel(const __half* x, __half* y, int n) {
  BTile<int, L1> offs;
  brange(offs, 0);
  BTile<bool, L1> m;
  bmap(
      m, [](int o, int k) { return o < k; }, btile(offs), bsplat(n));
  BTile<__half*, L1> px, py;
  bmap(
      px, [](__half* p, int o) { return p + o; }, bsplat(const_cast<__half*>(x)), btile(offs));
  bmap(
      py, [](__half* p, int o) { return p + o; }, bsplat(y), btile(offs));
  BTile<__half, L1> v;
  bload<8>(v, px, btile(m), bsplat(__float2half(-1.f)));
  BTile<float, L1> f;
  bmap(
      f, [](__half q) { return 2.f * __half2float(q); }, btile(v));
  bstore<8>(py, btile(f), btile(m));
}

// Box (row0, col0) of a [rows][cols] tensor with row stride ld, as bload_box reads it: each slot
// written to out[row * 512 + col] of its tile coordinates, so that the CPU checks the layout
// formulas and the zero fill.
__global__ void box_kernel(const __half* x, long long ld, int row0, int col0, int rows, int cols,
                           float* out) {
  BTile<__half, LRows> t;
  bload_box<8>(t, x, ld, row0, col0, rows, cols);
  for (int r = 0; r < LRows::kRows; ++r)
    for (int c = 0; c < LRows::kCols; ++c)
      out[LRows::row(r) * kC + LRows::col(c)] = __half2float(t.v[r * LRows::kCols + c]);
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  uint32_t seed = 12345;
  std::vector<float> x(kR * kC), x1(1024);
  for (auto& e : x) e = rt_test::urand(seed);
  for (auto& e : x1) e = rt_test::urand(seed);
  const size_t n_out = 2 * kR * kC + 3 * kR + kC + 1 + 2 * kR * kC + kC;
  float *dx, *dx1, *dout;
  RT_CHECK(cudaMalloc(&dx, x.size() * 4));
  RT_CHECK(cudaMalloc(&dx1, x1.size() * 4));
  RT_CHECK(cudaMalloc(&dout, n_out * 4));
  RT_CHECK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dx1, x1.data(), x1.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0, n_out * 4));
  rt_test::launch_sync([&] { reduce_kernel<<<1, 128>>>(dx, dx1, dout); }, "reduce_kernel");
  std::vector<float> o(n_out);
  RT_CHECK(cudaMemcpy(o.data(), dout, n_out * 4, cudaMemcpyDeviceToHost));
  size_t k = 0;
  bool cov0 = true, cov1 = true;
  for (int i = 0; i < kR * kC; ++i) cov0 &= o[k + i] == 1.f;
  k += kR * kC;
  for (int i = 0; i < kR * kC; ++i) cov1 &= o[k + i] == 1.f;
  k += kR * kC;
  res.check(cov0, "LCols: every tile element in exactly one thread slot");
  res.check(cov1, "LRows: every tile element in exactly one thread slot");
  std::vector<float> rs(kR, 0), rm(kR, -1e30f), cs(kC, 0);
  for (int r = 0; r < kR; ++r)
    for (int c = 0; c < kC; ++c) {
      rs[r] += x[r * kC + c];
      rm[r] = std::fmax(rm[r], x[r * kC + c]);
      cs[c] += x[r * kC + c];
    }
  auto slice = [&](size_t n) {
    std::vector<float> v(o.begin() + static_cast<long>(k), o.begin() + static_cast<long>(k + n));
    k += n;
    return v;
  };
  res.check(rt_test::rel_err(slice(kR), rs) < 1e-5, "breduce_cols sum across 2 warps (scratch)");
  res.check(rt_test::rel_err(slice(kR), rm) == 0, "breduce_cols max across 2 warps (scratch)");
  res.check(rt_test::rel_err(slice(kR), rs) < 1e-5, "breduce_cols sum within one warp");
  res.check(rt_test::rel_err(slice(kC), cs) < 1e-5, "breduce_rows sum across 4 warps");
  double s1 = 0;
  for (float e : x1) s1 += e;
  res.check(std::fabs(slice(1)[0] - s1) < 1e-3, "breduce_all of a rank-1 tensor");
  std::vector<float> xh(x.size());
  for (size_t i = 0; i < x.size(); ++i) xh[i] = __half2float(__float2half(x[i]));
  res.check(rt_test::rel_err(slice(kR * kC), xh) == 0, "smem round trip, 128-byte swizzle");
  res.check(rt_test::rel_err(slice(kR * kC), xh) == 0, "smem round trip, unswizzled rows");
  bool conv = true;
  for (float e : slice(kC)) conv &= e == 0.f;
  res.check(conv, "bconvert: rank-1 tile into the tile's column vector");

  // Masked loads and stores: aligned (vector runs) and one element off (element by element).
  for (int off : {0, 1})
    for (int n : {1024, 1000, 5}) {
      __half *hx, *hy;
      RT_CHECK(cudaMalloc(&hx, 2048 * 2));
      RT_CHECK(cudaMalloc(&hy, 2048 * 2));
      std::vector<__half> xv(2048), yv(2048, __float2half(7.f));
      for (auto& e : xv) e = __float2half(rt_test::urand(seed));
      RT_CHECK(cudaMemcpy(hx, xv.data(), 2048 * 2, cudaMemcpyHostToDevice));
      RT_CHECK(cudaMemcpy(hy, yv.data(), 2048 * 2, cudaMemcpyHostToDevice));
      rt_test::launch_sync([&] { mask_kernel<<<1, 128>>>(hx + off, hy + off, n); }, "mask");
      RT_CHECK(cudaMemcpy(yv.data(), hy, 2048 * 2, cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int j = 0; j < 2048; ++j) {
        const int i = j - off;
        const float want = (i >= 0 && i < n && i < 1024)
                               ? __half2float(__float2half(2.f * __half2float(xv[j])))
                               : 7.f;  // masked-off and outside elements stay untouched
        ok &= __half2float(yv[j]) == want;
      }
      char what[120];
      std::snprintf(what, sizeof what, "bload/bstore with mask j < %d, rows %s", n,
                    off ? "one element off alignment" : "16-byte aligned");
      res.check(ok, what);
      RT_CHECK(cudaFree(hx));
      RT_CHECK(cudaFree(hy));
    }
  // Plain loads of a descriptor box: 0 outside the tensor, as TMA gives.
  struct Box {
    long long ld;
    int row0, col0, rows, cols;
    const char* what;
  };
  for (const Box& b : {Box{512, 8, 0, 64, 512, "inside, aligned rows"},
                       Box{512, 60, 0, 64, 512, "across the last row"},
                       Box{520, 0, 8, 16, 500, "across the last column, aligned rows"},
                       Box{501, 0, 0, 16, 501, "odd row stride (element loads)"},
                       Box{512, -3, 0, 16, 512, "negative first row"}}) {
    const size_t n = static_cast<size_t>(b.rows) * static_cast<size_t>(b.ld);
    std::vector<__half> xv(n);
    for (auto& e : xv) e = __float2half(rt_test::urand(seed));
    __half* hx;
    float* hout;
    RT_CHECK(cudaMalloc(&hx, n * 2));
    RT_CHECK(cudaMalloc(&hout, kR * kC * 4));
    RT_CHECK(cudaMemcpy(hx, xv.data(), n * 2, cudaMemcpyHostToDevice));
    RT_CHECK(cudaMemset(hout, 0xff, kR * kC * 4));  // NaN: a slot never written shows
    rt_test::launch_sync(
        [&] { box_kernel<<<1, 128>>>(hx, b.ld, b.row0, b.col0, b.rows, b.cols, hout); }, "box");
    std::vector<float> got(kR * kC);
    RT_CHECK(cudaMemcpy(got.data(), hout, kR * kC * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < kR; ++r)
      for (int c = 0; c < kC; ++c) {
        const int row = b.row0 + r, col = b.col0 + c;
        const bool in = row >= 0 && row < b.rows && col < b.cols;
        const float want =
            in ? __half2float(xv[static_cast<size_t>(row) * static_cast<size_t>(b.ld) + col]) : 0.f;
        ok &= got[r * kC + c] == want;
      }
    res.check(ok, (std::string("bload_box: ") + b.what).c_str());
    RT_CHECK(cudaFree(hx));
    RT_CHECK(cudaFree(hout));
  }
  RT_CHECK(cudaFree(dx));
  RT_CHECK(cudaFree(dx1));
  RT_CHECK(cudaFree(dout));
  return res.exit_code();
}
