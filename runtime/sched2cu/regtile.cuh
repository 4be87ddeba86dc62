// Register tiles in the wgmma accumulator layout: a warpgroup's M x N f32 tile (M a multiple
// of 64, one m64 "slab" per wgmma), row vectors for reductions/broadcasts, conversions to
// f16/bf16 and to the register-A operand of the next wgmma, and stores into TMA-swizzled
// shared memory. Every index is a compile-time constant after unrolling: never index these
// arrays with a run-time value (that moves them to local memory).
//
// Layout (PTX ISA, wgmma .m64nNk16 f32 accumulator D): in slab s, thread t of the warpgroup
// (warp w = t / 32, lane l) holds v[s][i] for i in [0, N/2) at
//   row = 64*s + 16*w + l/4 + 8*((i % 4) / 2),   col = 8*(i / 4) + 2*(l % 4) + (i % 2).
// So each thread owns 2 rows per slab (l/4 and l/4+8); a row is spread over the 4 lanes of a
// quad (l/4 equal), which is why row reductions shuffle across lanes xor 1 and 2.
#pragma once

#include <type_traits>

#include "sched2cu/common.cuh"
#include "sched2cu/tma.cuh"

namespace sched2cu::rt {

template <int M, int N>
struct AccTile {
  static_assert(M % 64 == 0 && M >= 64, "M is a multiple of 64 (one wgmma slab each)");
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "N is 8..256 step 8");
  static constexpr int kSlabs = M / 64;
  static constexpr int kPerSlab = N / 2;
  float v[kSlabs][kPerSlab];
};

// Two values per slab: this thread's rows l/4 (index 0) and l/4 + 8 (index 1).
template <int M>
struct RowVec {
  float v[M / 64][2];
};

// Coordinates of element i of a slab for the calling thread (row within the slab, column).
SCHED2CU_DEVICE int acc_row(int i) {
  const int t = static_cast<int>(threadIdx.x % 128);
  return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i % 4) / 2);
}
SCHED2CU_DEVICE int acc_col(int i) {
  const int l = static_cast<int>(threadIdx.x % 32);
  return 8 * (i / 4) + 2 * (l % 4) + (i % 2);
}

// ---- fill / elementwise ---------------------------------------------------------------------

// Columns [Off, Off + N2) of an accumulator tile as a tile of its own (tl.split of the column
// halves, docs/emitter.md "Column halves"): element i of a slab of `d` is element Off / 2 + i of
// the same slab of `a` (col = 8 * (i / 4) + ..., so an offset of 8k columns is 4k elements).
// Register moves only: ptxas renames them away.
template <int Off, int M, int N, int N2>
SCHED2CU_DEVICE void acc_cols(AccTile<M, N2>& d, const AccTile<M, N>& a) {
  static_assert(Off % 8 == 0 && Off >= 0 && Off + N2 <= N, "whole 8-column groups inside the tile");
#pragma unroll
  for (int s = 0; s < AccTile<M, N>::kSlabs; ++s)
#pragma unroll
    for (int i = 0; i < N2 / 2; ++i) d.v[s][i] = a.v[s][Off / 2 + i];
}

template <int M, int N>
SCHED2CU_DEVICE void acc_fill(AccTile<M, N>& d, float x) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = x;
}

// d = 0 where `cond` holds, else unchanged. A select, not a branch: a fill inside a branch
// redefines the accumulator registers on one path only, which made ptxas spill a 64x256 wgmma
// accumulator (seen with nvcc 13.0). It costs one select per element, so the emitter instead
// duplicates the code after a zero-trip loop (docs/emitter.md).
template <int M, int N>
SCHED2CU_DEVICE void acc_zero_if(AccTile<M, N>& d, bool cond) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = cond ? 0.f : d.v[s][i];
}

// d = f(a) elementwise; f is any device callable float(float).
template <int M, int N, class F>
SCHED2CU_DEVICE void acc_map(AccTile<M, N>& d, const AccTile<M, N>& a, F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = f(a.v[s][i]);
}

// d = f(a, b) elementwise.
template <int M, int N, class F>
SCHED2CU_DEVICE void acc_zip(AccTile<M, N>& d, const AccTile<M, N>& a, const AccTile<M, N>& b,
                             F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = f(a.v[s][i], b.v[s][i]);
}

SCHED2CU_DEVICE float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
SCHED2CU_DEVICE float fast_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// x / y as div.full.f32 (about 2 ulp, no slow path): what Triton emits for arith.divf of f32.
SCHED2CU_DEVICE float fast_div(float x, float y) {
  float z;
  asm("div.full.f32 %0, %1, %2;" : "=f"(z) : "f"(x), "f"(y));
  return z;
}
SCHED2CU_DEVICE float fast_rcp(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <int M, int N>
SCHED2CU_DEVICE void acc_add(AccTile<M, N>& d, const AccTile<M, N>& a, const AccTile<M, N>& b) {
  acc_zip(d, a, b, [](float x, float y) { return x + y; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_sub(AccTile<M, N>& d, const AccTile<M, N>& a, const AccTile<M, N>& b) {
  acc_zip(d, a, b, [](float x, float y) { return x - y; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_mul(AccTile<M, N>& d, const AccTile<M, N>& a, const AccTile<M, N>& b) {
  acc_zip(d, a, b, [](float x, float y) { return x * y; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_max(AccTile<M, N>& d, const AccTile<M, N>& a, const AccTile<M, N>& b) {
  acc_zip(d, a, b, [](float x, float y) { return fmaxf(x, y); });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_scale(AccTile<M, N>& d, const AccTile<M, N>& a, float s) {
  acc_map(d, a, [s](float x) { return x * s; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_exp2(AccTile<M, N>& d, const AccTile<M, N>& a) {
  acc_map(d, a, [](float x) { return fast_exp2(x); });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_log2(AccTile<M, N>& d, const AccTile<M, N>& a) {
  acc_map(d, a, [](float x) { return fast_log2(x); });
}

// ---- row reductions and broadcasts ------------------------------------------------------------

template <int M>
SCHED2CU_DEVICE void row_fill(RowVec<M>& r, float x) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) r.v[s][0] = r.v[s][1] = x;
}

// Combines each row's partials across the 4 lanes of its quad (xor 1, 2), in place: every lane
// holds the row's value afterwards.
template <int M, class F>
SCHED2CU_DEVICE void row_quad_reduce(RowVec<M>& r, F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) {
    float m0 = r.v[s][0], m1 = r.v[s][1];
    m0 = f(m0, __shfl_xor_sync(0xffffffffu, m0, 1));
    m1 = f(m1, __shfl_xor_sync(0xffffffffu, m1, 1));
    m0 = f(m0, __shfl_xor_sync(0xffffffffu, m0, 2));
    m1 = f(m1, __shfl_xor_sync(0xffffffffu, m1, 2));
    r.v[s][0] = m0;
    r.v[s][1] = m1;
  }
}

// r = max over each row of a (all N columns; the 4 lanes of a quad agree afterwards).
template <int M, int N>
SCHED2CU_DEVICE void acc_row_max(RowVec<M>& r, const AccTile<M, N>& a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) {
    float m0 = a.v[s][0], m1 = a.v[s][2];
#pragma unroll
    for (int i = 0; i < N / 2; i += 4) {
      m0 = fmaxf(m0, fmaxf(a.v[s][i], a.v[s][i + 1]));
      m1 = fmaxf(m1, fmaxf(a.v[s][i + 2], a.v[s][i + 3]));
    }
    r.v[s][0] = m0;
    r.v[s][1] = m1;
  }
  row_quad_reduce(r, [](float x, float y) { return fmaxf(x, y); });
}

// r = sum over each row of a.
template <int M, int N>
SCHED2CU_DEVICE void acc_row_sum(RowVec<M>& r, const AccTile<M, N>& a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) {
    float s0 = 0.f, s1 = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i += 4) {
      s0 += a.v[s][i] + a.v[s][i + 1];
      s1 += a.v[s][i + 2] + a.v[s][i + 3];
    }
    r.v[s][0] = s0;
    r.v[s][1] = s1;
  }
  row_quad_reduce(r, [](float x, float y) { return x + y; });
}

// d = f(a, r[row]) elementwise with the row value broadcast along the row.
template <int M, int N, class F>
SCHED2CU_DEVICE void acc_row_apply(AccTile<M, N>& d, const AccTile<M, N>& a, const RowVec<M>& r,
                                   F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = f(a.v[s][i], r.v[s][(i % 4) / 2]);
}
template <int M, int N>
SCHED2CU_DEVICE void acc_sub_row(AccTile<M, N>& d, const AccTile<M, N>& a, const RowVec<M>& r) {
  acc_row_apply(d, a, r, [](float x, float y) { return x - y; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_mul_row(AccTile<M, N>& d, const AccTile<M, N>& a, const RowVec<M>& r) {
  acc_row_apply(d, a, r, [](float x, float y) { return x * y; });
}
template <int M, int N>
SCHED2CU_DEVICE void acc_add_row(AccTile<M, N>& d, const AccTile<M, N>& a, const RowVec<M>& r) {
  acc_row_apply(d, a, r, [](float x, float y) { return x + y; });
}

// ---- conversions ------------------------------------------------------------------------------

template <class T>
SCHED2CU_DEVICE uint32_t pack2(float lo, float hi);
template <>
SCHED2CU_DEVICE uint32_t pack2<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}
template <>
SCHED2CU_DEVICE uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

// The inverse of pack2: two 16-bit elements (lo = lower column) -> two floats.
template <class T>
SCHED2CU_DEVICE float2 unpack2(uint32_t bits);
template <>
SCHED2CU_DEVICE float2 unpack2<__half>(uint32_t bits) {
  return __half22float2(*reinterpret_cast<const __half2*>(&bits));
}
template <>
SCHED2CU_DEVICE float2 unpack2<__nv_bfloat16>(uint32_t bits) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits));
}

// A 16-bit copy of an accumulator tile: p[s][j] packs elements 2j, 2j+1 (same row, adjacent
// columns) of slab s.
template <int M, int N>
struct PackedTile {
  uint32_t p[M / 64][N / 4];
};

template <class T, int M, int N>
SCHED2CU_DEVICE void acc_convert(PackedTile<M, N>& d, const AccTile<M, N>& a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int j = 0; j < N / 4; ++j) d.p[s][j] = pack2<T>(a.v[s][2 * j], a.v[s][2 * j + 1]);
}

// Register-A operand (f16/bf16) for k-step ks (columns 16*ks .. 16*ks+15) of slab s: the
// accumulator layout of a k16 column block is exactly the wgmma A-fragment layout.
template <class T, int M, int N>
SCHED2CU_DEVICE void acc_to_a(uint32_t (&a)[4], const AccTile<M, N>& d, int s, int ks) {
#pragma unroll
  for (int j = 0; j < 4; ++j) a[j] = pack2<T>(d.v[s][8 * ks + 2 * j], d.v[s][8 * ks + 2 * j + 1]);
}
// Same from an already converted tile.
template <int M, int N>
SCHED2CU_DEVICE void packed_to_a(uint32_t (&a)[4], const PackedTile<M, N>& d, int s, int ks) {
#pragma unroll
  for (int j = 0; j < 4; ++j) a[j] = d.p[s][4 * ks + j];
}

// ---- stores to swizzled shared memory (TMA-store source) ----------------------------------

// Two adjacent elements of a row, converted to T, as the bytes a TMA box holds them: 16-bit
// types packed into 32 bits (pack2), fp8 into 16 bits by CUDA's __nv_fp8x2 conversions (round to
// nearest even, saturating to the largest finite value: cvt.rn.satfinite, as Triton rounds
// tt.fp_to_fp to fp8 on sm_90).
template <class T>
SCHED2CU_DEVICE void store_pair(uint8_t* at, float lo, float hi) {
  if constexpr (sizeof(T) == 2) {
    *reinterpret_cast<uint32_t*>(at) = pack2<T>(lo, hi);
  } else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
    *reinterpret_cast<__nv_fp8x2_storage_t*>(at) = __nv_fp8x2_e4m3(make_float2(lo, hi)).__x;
  } else {
    static_assert(std::is_same_v<T, __nv_fp8_e5m2>, "16-bit or fp8 outputs");
    *reinterpret_cast<__nv_fp8x2_storage_t*>(at) = __nv_fp8x2_e5m2(make_float2(lo, hi)).__x;
  }
}

// Writes columns [col0, col0 + BoxCols) of slab s, converted to T (16-bit or fp8), into a TMA box
// laid out as [rows][BoxCols * sizeof(T) bytes] with `Swizzle` (BoxCols * sizeof(T) == Swizzle,
// or any width when Swizzle == 0); this warpgroup's slab rows land at box rows row0 .. row0 + 63.
// col0 is a multiple of BoxCols. Conflict-free for 128B swizzle. Follow with
// fence_proxy_async() and a barrier of the writing threads before the TMA store.
template <class T, int Swizzle, int BoxCols, int M, int N>
SCHED2CU_DEVICE void acc_store_box(void* box, const AccTile<M, N>& d, int s, int col0, int row0) {
  constexpr int E = static_cast<int>(sizeof(T));
  static_assert(E == 1 || E == 2, "16-bit or fp8 outputs");
  constexpr int kRowBytes = BoxCols * E;
  uint8_t* b = static_cast<uint8_t*>(box);
  const int t = static_cast<int>(threadIdx.x % 128);
  const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
  const int cq = 2 * (t % 4);
#pragma unroll
  for (int blk = 0; blk < BoxCols / 8; ++blk) {
    const int i = (col0 / 8 + blk) * 4;  // first element of this 8-column block
    const uint32_t cb = static_cast<uint32_t>((8 * blk + cq) * E);
    store_pair<T>(b + swizzle_offset<Swizzle, kRowBytes>(r, cb), d.v[s][i], d.v[s][i + 1]);
    store_pair<T>(b + swizzle_offset<Swizzle, kRowBytes>(r + 8, cb), d.v[s][i + 2], d.v[s][i + 3]);
  }
}

// f32 variant (for TMA reduce-add of f32 partials): box rows are BoxCols * 4 bytes.
template <int Swizzle, int BoxCols, int M, int N>
SCHED2CU_DEVICE void acc_store_box_f32(void* box, const AccTile<M, N>& d, int s, int col0,
                                       int row0) {
  constexpr int kRowBytes = BoxCols * 4;
  uint8_t* b = static_cast<uint8_t*>(box);
  const int t = static_cast<int>(threadIdx.x % 128);
  const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
  const int cq = 2 * (t % 4);
#pragma unroll
  for (int blk = 0; blk < BoxCols / 8; ++blk) {
    const int i = (col0 / 8 + blk) * 4;
    const uint32_t cb = static_cast<uint32_t>((8 * blk + cq) * 4);
    *reinterpret_cast<float2*>(b + swizzle_offset<Swizzle, kRowBytes>(r, cb)) =
        make_float2(d.v[s][i], d.v[s][i + 1]);
    *reinterpret_cast<float2*>(b + swizzle_offset<Swizzle, kRowBytes>(r + 8, cb)) =
        make_float2(d.v[s][i + 2], d.v[s][i + 3]);
  }
}

// Writes a warpgroup's whole 16-bit tile into a [Rows][N] tile of shared memory laid out as TMA
// would write it with `Swizzle` (32, 64 or 128 bytes): N * 2 / Swizzle boxes of [Rows][Swizzle
// bytes], box j at j * Rows * Swizzle bytes; slab s lands at rows row0 + 64 s .. + 63. That is
// the layout a wgmma descriptor of the same swizzle reads, K-major as stored or MN-major when the
// tile is read transposed (a register tile exchanged through shared memory). Conflict-free: a
// warp's 8 rows of one 16-byte column chunk sit in 8 distinct chunks of the swizzle atom. Follow
// with fence_proxy_async() before a wgmma or TMA reads it.
//
// By stmatrix: a warp's 16 rows of two 8-column blocks are four 8x8 matrices whose fragments
// (row lane / 4, columns 2 (lane % 4) and + 1) are exactly the accumulator's registers, and
// each matrix row is one 16-byte chunk of the swizzled layout, so one stmatrix.x4 writes what
// eight 4-byte stores did, from four row addresses instead of sixteen (their swizzle math was
// redone every iteration of attention backward's loop, an issue-bound one).
template <int Swizzle, int Rows, int M, int N>
SCHED2CU_DEVICE void packed_store_smem(void* tile, const PackedTile<M, N>& d, int row0) {
  static_assert(Swizzle == 32 || Swizzle == 64 || Swizzle == 128, "a wgmma operand is swizzled");
  static_assert((N * 2) % Swizzle == 0, "the tile's rows are whole swizzle boxes");
  static_assert(N % 16 == 0, "whole pairs of 8-column blocks (stmatrix.x4)");
  constexpr int kBoxCols = Swizzle / 2;
  const uint32_t base = smem_u32(tile);
  const int lane = static_cast<int>(threadIdx.x % 32);
  // This lane addresses row lane % 8 of matrix lane / 8: rows + 8 for odd matrices, the next
  // 8-column block for matrices 2 and 3.
  const int r = 16 * static_cast<int>((threadIdx.x % 128) / 32) + 8 * ((lane / 8) % 2) + lane % 8;
  const int half = lane / 16;
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int blk = 0; blk < N / 8; blk += 2) {
      const int col = 8 * (blk + half);
      const uint32_t box = static_cast<uint32_t>(col / kBoxCols) * Rows * Swizzle;
      const uint32_t cb = static_cast<uint32_t>((col % kBoxCols) * 2);
      const uint32_t row = static_cast<uint32_t>(row0 + 64 * s + r);
      const uint32_t a = base + box + swizzle_offset<Swizzle, Swizzle>(row, cb);
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(a),
                   "r"(d.p[s][2 * blk]), "r"(d.p[s][2 * blk + 1]), "r"(d.p[s][2 * blk + 2]),
                   "r"(d.p[s][2 * blk + 3])
                   : "memory");
    }
}

}  // namespace sched2cu::rt
