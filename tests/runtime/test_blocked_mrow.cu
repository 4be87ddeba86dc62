// GPU test of the accumulator-row layout of runtime/sched2cu/blocked.cuh (MRowLay, mrow_bcast,
// the row-vector bload), one warpgroup, against CPU references: the rows a make_range gives in
// that layout are the rows the wgmma accumulator holds (checked through an AccTile written out
// by the accumulator's own coordinates, acc_row / acc_col, which test_regtile checks against the
// PTX layout), a per-row load through a row vector of pointers with a mask and `other` lands on
// those rows, and an N x 1 tile broadcasts like the row vector it came from.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

constexpr int kM = 128, kN = 16, kValid = 100;  // rows >= kValid are masked off

// out: [0, M*N) the range broadcast, [M*N, 2*M*N) the loaded scales broadcast (scaled by an
// N x 1 tile of them times 2).
__global__ void mrow_kernel(const float* scale, float* out) {
  using RowL = MRowLay<kM, 4>;
  using ColL = MRowLay<kM, 1>;
  BRow<int, RowL> rows;
  brange(rows, 0);
  BRow<float, RowL> rowsf;
  bmap(
      rowsf, [](auto x0) { return static_cast<float>(x0); }, brow(rows));
  AccTile<kM, kN> a;
  tile_map(
      a, [](float x0) { return x0; }, mrow_bcast(rowsf));
  // scale[row] where row < kValid, else -1 (`other`).
  BRow<float*, RowL> p;  // as the emitter spells pointer tensors (non-const elements)
  bmap(
      p, [scale](auto x0) { return const_cast<float*>(scale) + x0; }, brow(rows));
  BRow<bool, RowL> mask;
  bmap(
      mask, [](auto x0) { return x0 < kValid; }, brow(rows));
  BRow<float, RowL> s;
  bload<1>(s, p, brow(mask), bsplat(-1.f));
  BTile<float, ColL> s2;  // an N x 1 tile: expand_dims of the vector, times 2
  bmap(
      s2, [](auto x0) { return 2.f * x0; }, brow(s));
  AccTile<kM, kN> b;
  tile_map(
      b, [](float x0) { return x0; }, mrow_bcast(s2));
#pragma unroll
  for (int sl = 0; sl < kM / 64; ++sl)
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) {
      const int r = 64 * sl + acc_row(i), c = acc_col(i);
      out[r * kN + c] = a.v[sl][i];
      out[kM * kN + r * kN + c] = b.v[sl][i];
    }
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  std::vector<float> scale(kM);
  for (int r = 0; r < kM; ++r) scale[r] = 0.5f + static_cast<float>(r);
  float *ds, *dout;
  RT_CHECK(cudaMalloc(&ds, kM * 4));
  RT_CHECK(cudaMalloc(&dout, 2 * kM * kN * 4));
  RT_CHECK(cudaMemcpy(ds, scale.data(), kM * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, 2 * kM * kN * 4));  // NaN: an unwritten element fails
  rt_test::launch_sync([&] { mrow_kernel<<<1, 128>>>(ds, dout); }, "mrow_kernel");
  std::vector<float> o(2 * kM * kN);
  RT_CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
  bool range = true, load = true;
  for (int r = 0; r < kM; ++r)
    for (int c = 0; c < kN; ++c) {
      range &= o[r * kN + c] == static_cast<float>(r);
      load &= o[kM * kN + r * kN + c] == (r < kValid ? 2.f * scale[r] : -2.f);
    }
  res.check(range, "make_range in MRowLay gives the accumulator's rows (mrow_bcast of a vector)");
  res.check(load, "masked row-vector bload lands on those rows; an N x 1 tile broadcasts alike");
  RT_CHECK(cudaFree(ds));
  RT_CHECK(cudaFree(dout));
  return res.exit_code();
}
