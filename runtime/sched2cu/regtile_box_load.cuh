// Loads from TMA-swizzled shared memory into the wgmma accumulator layout: the inverse of
// acc_store_box / acc_store_box_f32 (regtile.cuh). An epilogue that TMA-loads a tensor tile
// (a bias, a residual) into a staging box reads it back here, in the same fragment layout as the
// accumulator, so it can be combined elementwise and stored again through acc_store_box. Every
// thread touches exactly the bytes acc_store_box makes it write, so a load followed by a store of
// the same columns into the same box needs no barrier in between (the in-place epilogue relies on
// this). Index arrays only with compile-time constants; never add PTX here beyond plain loads.
#pragma once

#include "sched2cu/common.cuh"
#include "sched2cu/regtile.cuh"
#include "sched2cu/tma.cuh"

namespace sched2cu::rt {

namespace detail {

// This thread's share of columns [col0, col0 + BoxCols) of slab s in a TMA box laid out as
// [rows][BoxCols * ElemBytes bytes] with `Swizzle`, this warpgroup's slab rows at box rows
// row0 .. row0 + 63: per 8-column block f(i, off) for the pair d.v[s][i], [i + 1] at byte offset
// off of box row r, then f(i + 2, off) for the pair at row r + 8: the walk of acc_store_box /
// acc_store_box_f32 (regtile.cuh), so a load, a combine and a store back touch exactly the same
// bytes per thread. The stores keep their own copy of the walk: routed through this one, ptxas
// schedules the measured GEMM epilogues differently (same instruction count, other order).
template <int Swizzle, int BoxCols, int ElemBytes, class F>
SCHED2CU_DEVICE void box_walk(int col0, int row0, F f) {
  static_assert(BoxCols % 8 == 0, "whole 8-column blocks of the accumulator layout");
  constexpr int kRowBytes = BoxCols * ElemBytes;
  const int t = static_cast<int>(threadIdx.x % 128);
  const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
  const int cq = 2 * (t % 4);
#pragma unroll
  for (int blk = 0; blk < BoxCols / 8; ++blk) {
    const uint32_t cb = static_cast<uint32_t>((8 * blk + cq) * ElemBytes);
    const int i = (col0 / 8 + blk) * 4;  // first element of this 8-column block
    f(i, swizzle_offset<Swizzle, kRowBytes>(r, cb));
    f(i + 2, swizzle_offset<Swizzle, kRowBytes>(r + 8, cb));
  }
}

}  // namespace detail

// Reads columns [col0, col0 + BoxCols) of slab s from a TMA box of 16-bit T laid out as
// [rows][BoxCols * 2 bytes] with `Swizzle` (BoxCols * 2 == Swizzle, or any width when
// Swizzle == 0), converting to f32; this warpgroup's slab rows come from box rows
// row0 .. row0 + 63. col0 is a multiple of BoxCols; the other columns of d are untouched. The
// box must be visible to the caller (mbar_wait on the TMA barrier, or a barrier after ordinary
// stores). Conflict-free for 128B swizzle, like the store.
template <class T, int Swizzle, int BoxCols, int M, int N>
SCHED2CU_DEVICE void acc_load_box(AccTile<M, N>& d, const void* box, int s, int col0, int row0) {
  static_assert(sizeof(T) == 2, "16-bit boxes (use acc_load_box_f32 for f32)");
  const uint8_t* b = static_cast<const uint8_t*>(box);
  detail::box_walk<Swizzle, BoxCols, 2>(col0, row0, [&](int i, uint32_t off) {
    const float2 v = unpack2<T>(*reinterpret_cast<const uint32_t*>(b + off));
    d.v[s][i] = v.x;
    d.v[s][i + 1] = v.y;
  });
}

// f32 variant (box rows are BoxCols * 4 bytes): the inverse of acc_store_box_f32.
template <int Swizzle, int BoxCols, int M, int N>
SCHED2CU_DEVICE void acc_load_box_f32(AccTile<M, N>& d, const void* box, int s, int col0,
                                      int row0) {
  const uint8_t* b = static_cast<const uint8_t*>(box);
  detail::box_walk<Swizzle, BoxCols, 4>(col0, row0, [&](int i, uint32_t off) {
    const float2 v = *reinterpret_cast<const float2*>(b + off);
    d.v[s][i] = v.x;
    d.v[s][i + 1] = v.y;
  });
}

}  // namespace sched2cu::rt
