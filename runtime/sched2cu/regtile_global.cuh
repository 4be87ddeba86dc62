// Register tiles loaded straight from global memory into the wgmma accumulator layout (see
// regtile.cuh for the layout), and elementwise ops that combine an f32 accumulator with such a
// 16-bit tile without widening it first. This is how a tile that only the consumer warpgroups'
// register math reads (a bias or residual added in the epilogue) is loaded: no shared memory,
// no TMA, no barrier. Out-of-bounds elements read as 0, exactly like a TMA load's OOB fill.
// Plain C++ (no PTX); every index is a compile-time constant after unrolling.
#pragma once

#include <cstdint>

#include "sched2cu/common.cuh"
#include "sched2cu/regtile.cuh"

namespace sched2cu::rt {

namespace detail {

// Elements (r, c) and (r, c + 1) of the row-major [rows][cols] tensor at `base` (leading
// dimension `ld` elements), packed lo | hi << 16; each one outside the tensor reads as 0. `vec`:
// base is 4-byte aligned and ld, c even, so the pair is one aligned 4-byte load.
template <class T>
SCHED2CU_DEVICE uint32_t load_pair(const T* base, long long ld, int r, int c, int rows, int cols,
                                   bool vec) {
  static_assert(sizeof(T) == 2, "16-bit elements");
  if (r < 0 || r >= rows) return 0u;
  const uint16_t* p = reinterpret_cast<const uint16_t*>(base) + static_cast<long long>(r) * ld + c;
  if (vec && c >= 0 && c + 1 < cols) return *reinterpret_cast<const uint32_t*>(p);
  const uint32_t lo = (c >= 0 && c < cols) ? p[0] : 0u;
  const uint32_t hi = (c + 1 >= 0 && c + 1 < cols) ? p[1] : 0u;
  return lo | (hi << 16);
}

template <class T>
SCHED2CU_DEVICE bool pairs_aligned(const T* base, long long ld, int col0) {
  return (reinterpret_cast<uintptr_t>(base) & 3u) == 0 && (ld & 1) == 0 && (col0 & 1) == 0;
}

}  // namespace detail

// Loads this warpgroup's M x N tile, element (r, c) = base[(row0 + r) * ld + col0 + c] of the
// row-major [rows][cols] tensor, in the accumulator layout as 16-bit pairs: p[s][j] holds the
// element pair 2j, 2j+1 of slab s (row 64s + 16w + l/4 + 8(j%2), columns 8(j/2) + 2(l%4) + {0,1}),
// the same packing as acc_convert. Elements outside [0, rows) x [0, cols) read as 0. One 4-byte
// load per pair when base is 4-byte aligned and ld, col0 are even; element loads otherwise.
// Half the registers of the f32 tile: combine with acc_*_packed instead of widening.
template <class T, int M, int N>
SCHED2CU_DEVICE void packed_load_global(PackedTile<M, N>& d, const T* base, long long ld, int row0,
                                        int col0, int rows, int cols) {
  const int t = static_cast<int>(threadIdx.x % 128);
  const int r0 = row0 + 16 * (t / 32) + (t % 32) / 4;
  const int c0 = col0 + 2 * (t % 4);
  const bool vec = detail::pairs_aligned(base, ld, col0);
  if (vec && row0 >= 0 && row0 + M <= rows && col0 >= 0 && col0 + N <= cols) {
    // The whole tile inside: one aligned 4-byte load per pair, no branch. Bounds-checked per
    // pair, every load sat in its own branch (64 per thread for a 64x256 tile), and issuing them
    // delayed the K loop that follows (case5's bias, issued at the start of each tile).
    const uint32_t* p = reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint16_t*>(base) +
                                                          static_cast<long long>(r0) * ld + c0);
    const long long ldw = ld / 2;  // in 4-byte words: ld is even here
#pragma unroll
    for (int s = 0; s < M / 64; ++s)
#pragma unroll
      for (int j = 0; j < N / 4; ++j) d.p[s][j] = p[(64 * s + 8 * (j % 2)) * ldw + 4 * (j / 2)];
    return;
  }
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int j = 0; j < N / 4; ++j)
      d.p[s][j] =
          detail::load_pair(base, ld, r0 + 64 * s + 8 * (j % 2), c0 + 8 * (j / 2), rows, cols, vec);
}

// d = f32(p): widens a packed tile.
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_unpack(AccTile<M, N>& d, const PackedTile<M, N>& p) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int j = 0; j < N / 4; ++j) {
      const float2 f = unpack2<T>(p.p[s][j]);
      d.v[s][2 * j] = f.x;
      d.v[s][2 * j + 1] = f.y;
    }
}

// Same, widened to f32 in an AccTile (twice the registers of packed_load_global).
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_load_global(AccTile<M, N>& d, const T* base, long long ld, int row0,
                                     int col0, int rows, int cols) {
  PackedTile<M, N> p;
  packed_load_global(p, base, ld, row0, col0, rows, cols);
  acc_unpack<T>(d, p);
}

// d = f(a, f32(b)) elementwise, b a packed 16-bit tile of element type T (widened pair by pair,
// so the f32 copy of b never exists). d may alias a.
template <class T, int M, int N, class F>
SCHED2CU_DEVICE void acc_zip_packed(AccTile<M, N>& d, const AccTile<M, N>& a,
                                    const PackedTile<M, N>& b, F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int j = 0; j < N / 4; ++j) {
      const float2 y = unpack2<T>(b.p[s][j]);
      d.v[s][2 * j] = f(a.v[s][2 * j], y.x);
      d.v[s][2 * j + 1] = f(a.v[s][2 * j + 1], y.y);
    }
}

template <class T, int M, int N>
SCHED2CU_DEVICE void acc_add_packed(AccTile<M, N>& d, const AccTile<M, N>& a,
                                    const PackedTile<M, N>& b) {
  acc_zip_packed<T>(d, a, b, [](float x, float y) { return x + y; });
}
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_sub_packed(AccTile<M, N>& d, const AccTile<M, N>& a,
                                    const PackedTile<M, N>& b) {
  acc_zip_packed<T>(d, a, b, [](float x, float y) { return x - y; });
}
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_mul_packed(AccTile<M, N>& d, const AccTile<M, N>& a,
                                    const PackedTile<M, N>& b) {
  acc_zip_packed<T>(d, a, b, [](float x, float y) { return x * y; });
}
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_max_packed(AccTile<M, N>& d, const AccTile<M, N>& a,
                                    const PackedTile<M, N>& b) {
  acc_zip_packed<T>(d, a, b, [](float x, float y) { return fmaxf(x, y); });
}

}  // namespace sched2cu::rt
