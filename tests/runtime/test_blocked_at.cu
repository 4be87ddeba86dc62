// GPU test of the vector loads from affine addresses of runtime/sched2cu/blocked_at.cuh (bcol_at,
// brow_at, mcol_bcast_at, mrow_bcast_at, prefetch_l1), which the emitter uses for vector loads it
// never holds in registers (src/emit/lazy_loads.cpp). Each adapter must read, at every slot,
// exactly what a bload through the vector of pointers that brange + addptr gives reads into that
// slot (the eager path, test_blocked.cu), for a layout whose slots tile the vector, one whose
// columns are replicated over lanes (no slot step), the accumulator's column layout and its row
// layout, from an unaligned base (element 1 of the buffer). bload_at (the register-held load
// from an affine address) must load the same values into the same slots.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

constexpr int kLen = 512;  // buffer elements (every layout below reads at most 257 of them)

// Writes, per thread and slot, the adapter's value and the eager load's value side by side:
// out[2 * (thread * kSlots + slot)] = adapter, [... + 1] = eager.
// kAt: the first of each pair is bload_at's slot instead of the read-at-use adapter's.
template <class L, int kSlots, bool kAt = false>
__device__ void col_case(const float* p, float* out) {
  BCol<int, L> offs;
  brange(offs, 1);  // element 1 on: an unaligned base
  BCol<float*, L> ptrs;
  bmap(
      ptrs, [p](auto x) { return const_cast<float*>(p) + x; }, bcol(offs));
  BCol<float, L> eager;
  bload<1>(eager, ptrs, bsplat(true), bsplat(0.f));
  prefetch_l1(p + 1, L::C * 4);
  const auto lazy = bcol_at<L>(p + 1);
  BCol<float, L> at;
  if (kAt) bload_at(at, p + 1);
  for (int c = 0; c < L::kCols; ++c) {
    out[2 * (threadIdx.x * kSlots + c)] = kAt ? at.v[c] : lazy.at(0, c);
    out[2 * (threadIdx.x * kSlots + c) + 1] = eager.v[c];
  }
}

template <class L, int kSlots, bool kAt = false>
__device__ void row_case(const float* p, float* out) {
  BRow<int, L> offs;
  brange(offs, 1);
  BRow<float*, L> ptrs;
  bmap(
      ptrs, [p](auto x) { return const_cast<float*>(p) + x; }, brow(offs));
  BRow<float, L> eager;
  bload<1>(eager, ptrs, bsplat(true), bsplat(0.f));
  const auto lazy = brow_at<L>(p + 1);
  BRow<float, L> at;
  if (kAt) bload_at(at, p + 1);
  for (int r = 0; r < L::kRows; ++r) {
    out[2 * (threadIdx.x * kSlots + r)] = kAt ? at.v[r] : lazy.at(r, 0);
    out[2 * (threadIdx.x * kSlots + r) + 1] = eager.v[r];
  }
}

// Accumulator math reading the vectors: x - col[c] and x - row[r] over a 64 x N tile, through
// the eager adapters (mcol_bcast / mrow_bcast of loaded vectors) and the read-at-use ones.
template <int N>
__device__ void acc_case(const float* p, float* out) {
  using ColL = BLay<64, N, 1, 2, 8, 4, 4, 1>;  // the accumulator's column layout
  using RowL = MRowLay<64, 4>;
  BCol<int, ColL> co;
  brange(co, 1);
  BCol<float*, ColL> cp;
  bmap(
      cp, [p](auto x) { return const_cast<float*>(p) + x; }, bcol(co));
  BCol<float, ColL> cv;
  bload<1>(cv, cp, bsplat(true), bsplat(0.f));
  BRow<int, RowL> ro;
  brange(ro, 1);
  BRow<float*, RowL> rp;
  bmap(
      rp, [p](auto x) { return const_cast<float*>(p) + x; }, brow(ro));
  BRow<float, RowL> rv;
  bload<1>(rv, rp, bsplat(true), bsplat(0.f));
  AccTile<64, N> a, b;
  tile_map(
      a, [](float x0, float x1) { return 1000.f * x0 - x1; }, mcol_bcast(cv), mrow_bcast(rv));
  tile_map(
      b, [](float x0, float x1) { return 1000.f * x0 - x1; }, mcol_bcast_at<ColL>(p + 1),
      mrow_bcast_at<RowL>(p + 1));
  for (int i = 0; i < N / 2; ++i) {
    out[2 * (threadIdx.x * (N / 2) + i)] = b.v[0][i];
    out[2 * (threadIdx.x * (N / 2) + i) + 1] = a.v[0][i];
  }
}

using Tiled = BLay<1, 256, 1, 2, 1, 32, 1, 4>;     // 256 columns over 4 warps
using Replicated = BLay<64, 4, 1, 2, 8, 4, 4, 1>;  // 4 columns, CTA tile 8: wraps
using Rows = BLay<256, 1, 1, 1, 32, 1, 4, 1>;      // 256 rows, two per thread
using AccCols = BLay<64, 64, 1, 2, 8, 4, 4, 1>;    // the accumulator's column layout, 16 slots

__global__ void at_kernel(const float* p, float* tiled, float* replicated, float* rows,
                          float* acc) {
  col_case<Tiled, 2>(p, tiled);
  col_case<Replicated, 2>(p, replicated);
  row_case<Rows, 2>(p, rows);
  acc_case<64>(p, acc);
}

__global__ void load_at_kernel(const float* p, float* tiled, float* replicated, float* rows,
                               float* acc_cols) {
  col_case<Tiled, 2, true>(p, tiled);
  col_case<Replicated, 2, true>(p, replicated);
  row_case<Rows, 2, true>(p, rows);
  col_case<AccCols, 16, true>(p, acc_cols);
}

bool same_pairs(const std::vector<float>& o, float lo, float hi) {
  for (size_t i = 0; i < o.size(); i += 2)
    if (o[i] != o[i + 1] || o[i] < lo || o[i] > hi) return false;
  return true;
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  std::vector<float> h(kLen);
  for (int i = 0; i < kLen; ++i) h[i] = static_cast<float>(i) + 0.25f;
  float* dp;
  RT_CHECK(cudaMalloc(&dp, kLen * 4));
  RT_CHECK(cudaMemcpy(dp, h.data(), kLen * 4, cudaMemcpyHostToDevice));
  const size_t n_tiled = 2 * 128 * 2, n_rep = 2 * 128 * 2, n_rows = 2 * 128 * 2,
               n_acc = 2 * 128 * 32;
  float *dt, *dr, *drow, *dacc;
  RT_CHECK(cudaMalloc(&dt, n_tiled * 4));
  RT_CHECK(cudaMalloc(&dr, n_rep * 4));
  RT_CHECK(cudaMalloc(&drow, n_rows * 4));
  RT_CHECK(cudaMalloc(&dacc, n_acc * 4));
  for (auto [d, n] : {std::pair{dt, n_tiled}, {dr, n_rep}, {drow, n_rows}, {dacc, n_acc}})
    RT_CHECK(cudaMemset(d, 0xff, n * 4));  // NaN: an unwritten element fails
  rt_test::launch_sync([&] { at_kernel<<<1, 128>>>(dp, dt, dr, drow, dacc); }, "at_kernel");
  auto fetch = [](const float* d, size_t n) {
    std::vector<float> o(n);
    RT_CHECK(cudaMemcpy(o.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return o;
  };
  res.check(same_pairs(fetch(dt, n_tiled), 1.f, 257.f),
            "bcol_at reads every slot's element of a column vector tiled over the warps");
  res.check(same_pairs(fetch(dr, n_rep), 1.f, 5.f),
            "bcol_at reads the wrapped slots of a column vector replicated over the lanes");
  res.check(same_pairs(fetch(drow, n_rows), 1.f, 257.f),
            "brow_at reads every slot's element of a row vector");
  res.check(same_pairs(fetch(dacc, n_acc), -1e9f, 1e9f),
            "mcol_bcast_at / mrow_bcast_at give accumulator math the loaded vectors' elements");

  // bload_at into the same slots (the acc buffer holds 16 slots per thread of the column layout).
  for (auto [d, n] : {std::pair{dt, n_tiled}, {dr, n_rep}, {drow, n_rows}, {dacc, n_acc}})
    RT_CHECK(cudaMemset(d, 0xff, n * 4));
  rt_test::launch_sync([&] { load_at_kernel<<<1, 128>>>(dp, dt, dr, drow, dacc); },
                       "load_at_kernel");
  res.check(same_pairs(fetch(dt, n_tiled), 1.f, 257.f),
            "bload_at loads every slot's element of a column vector tiled over the warps");
  res.check(same_pairs(fetch(dr, n_rep), 1.f, 5.f),
            "bload_at loads the wrapped slots of a column vector replicated over the lanes");
  res.check(same_pairs(fetch(drow, n_rows), 1.f, 257.f),
            "bload_at loads every slot's element of a row vector");
  const std::vector<float> cols = fetch(dacc, 2 * 128 * 16);
  res.check(same_pairs(cols, 1.f, 65.f),
            "bload_at loads the accumulator's column layout (the emitter's M and Delta rows)");
  for (float* d : {dp, dt, dr, drow, dacc}) RT_CHECK(cudaFree(d));
  return res.exit_code();
}
