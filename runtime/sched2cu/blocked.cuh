// Register values in blocked layouts (Triton's #ttg.blocked with order [1, 0], over the NW warps
// of one role: the four of a warpgroup, or all of a cooperative role's warpgroups) and their
// slices: tiles, row vectors (one value per row, what a reduction along the columns leaves) and
// column vectors. Elementwise maps through operand adapters (reductions and scans of them:
// blocked_reduce.cuh), global loads and stores through pointer tiles with masks
// (16-byte vectors where the run is contiguous, aligned and unmasked at run time, element by
// element otherwise), TMA-box shared-memory reads and writes, and layout conversions through shared
// memory. Only layout arithmetic and memory access live here, never kernel policy; every array
// index is a compile-time constant after unrolling.
//
// Layout BLay<R, C, S0, S1, T0, T1, W0, W1, NW> of an R x C tensor: each thread holds S0 x S1
// elements per repetition, lanes are T0 x T1 (lane = l0 * T1 + l1), warps W0 x W1 = NW (warp =
// w0 * W1 + w1, the warp index modulo NW: a role's NW warps are contiguous, so that is a fixed
// numbering of them, which is all a layout needs); the CTA tile [S0 T0 W0, S1 T1 W1] repeats over
// the tensor, and a tensor smaller than the CTA tile is replicated (coordinates wrap). Thread
// element e = r * kCols + c holds
//   row(r) = ((r / S0) * CT0 + (w0 * T0 + l0) * S0 + r % S0) % R
//   col(c) = ((c / S1) * CT1 + (w1 * T1 + l1) * S1 + c % S1) % C.
#pragma once

#include <cstdint>

#include "sched2cu/common.cuh"
#include "sched2cu/tma.cuh"
#include "sched2cu/warpgroup.cuh"

namespace sched2cu::rt {

template <int R_, int C_, int S0, int S1, int T0, int T1, int W0, int W1, int NW = 4>
struct BLay {
  static_assert(T0 * T1 == 32, "a blocked layout spans the 32 lanes of a warp");
  static_assert(NW % 4 == 0 && W0 * W1 == NW, "a blocked layout spans the NW warps of its role");
  static constexpr int kThreads = 32 * NW;  // the threads that sync around shared scratch
  static constexpr int R = R_, C = C_;
  static constexpr int kS0 = S0, kS1 = S1, kT0 = T0, kT1 = T1, kW0 = W0, kW1 = W1;
  static constexpr int CT0 = S0 * T0 * W0, CT1 = S1 * T1 * W1;
  static_assert(R % CT0 == 0 || CT0 % R == 0, "rows tile or replicate the CTA tile");
  static_assert(C % CT1 == 0 || CT1 % C == 0, "columns tile or replicate the CTA tile");
  static constexpr int kRows = (R >= CT0 ? R / CT0 : 1) * S0;  // row slots per thread
  static constexpr int kCols = (C >= CT1 ? C / CT1 : 1) * S1;  // column slots per thread
  static constexpr int kN = kRows * kCols;
  SCHED2CU_DEVICE static int lane() { return static_cast<int>(threadIdx.x % 32); }
  SCHED2CU_DEVICE static int warp() { return static_cast<int>((threadIdx.x / 32) % NW); }
  SCHED2CU_DEVICE static int row(int r) {
    return ((r / S0) * CT0 + ((warp() / W1) * T0 + lane() / T1) * S0 + r % S0) % R;
  }
  SCHED2CU_DEVICE static int col(int c) {
    return ((c / S1) * CT1 + ((warp() % W1) * T1 + lane() % T1) * S1 + c % S1) % C;
  }
  // row(r) and col(c) as this thread's part plus the slot's constant part, where no slot wraps
  // (the tensor is a whole number of CTA tiles along that axis): an address is then one base
  // register and an immediate offset per slot (blocked_at.cuh).
  static constexpr bool kRowsWhole = R % CT0 == 0, kColsWhole = C % CT1 == 0;
  SCHED2CU_DEVICE static int row_base() { return ((warp() / W1) * T0 + lane() / T1) * S0; }
  SCHED2CU_DEVICE static constexpr int row_step(int r) { return (r / S0) * CT0 + r % S0; }
  SCHED2CU_DEVICE static int col_base() { return ((warp() % W1) * T1 + lane() % T1) * S1; }
  SCHED2CU_DEVICE static constexpr int col_step(int c) { return (c / S1) * CT1 + c % S1; }
};

// The rows of the wgmma accumulator layout as a blocked-world layout (MRowLay<R, C>): a warpgroup's
// R-row slice (R a multiple of 64) of an R x C tensor with C = 1 (an N x 1 #nvidia_mma tensor) or
// a row vector (C = 4, the canonical one-CTA-tile column extent of a slice). Row slot r holds the
// accumulator row 64 (r / 2) + 16 warp + lane / 4 + 8 (r % 2), as RowVec does, replicated over
// the 4 lanes of a quad; no BLay has that order (rows step by 8 within a warp's 16). The members
// are BLay's, so elementwise maps, loads and ranges take it as they take a BLay; reductions and
// conversions through shared memory never do (the emitter refuses them).
template <int R_, int C_>
struct MRowLay {
  static_assert(R_ % 64 == 0, "a warpgroup's accumulator rows: a multiple of 64");
  static_assert(C_ == 1 || C_ == 4, "an N x 1 tensor or a row vector");
  static constexpr int kThreads = 128;
  static constexpr int R = R_, C = C_;
  static constexpr int kS0 = 2, kS1 = 1, kT0 = 8, kT1 = 4, kW0 = 4, kW1 = 1;
  static constexpr int CT0 = 64, CT1 = 4;
  static constexpr int kRows = R / 32;  // two rows per 64-row slab
  static constexpr int kCols = 1;
  static constexpr int kN = kRows;
  SCHED2CU_DEVICE static int lane() { return static_cast<int>(threadIdx.x % 32); }
  SCHED2CU_DEVICE static int warp() { return static_cast<int>((threadIdx.x / 32) % 4); }
  SCHED2CU_DEVICE static int row(int r) {
    return 64 * (r / 2) + 16 * warp() + lane() / 4 + 8 * (r % 2);
  }
  SCHED2CU_DEVICE static int col(int) { return (lane() % 4) % C; }
  static constexpr bool kRowsWhole = true, kColsWhole = false;
  SCHED2CU_DEVICE static int row_base() { return 16 * warp() + lane() / 4; }
  SCHED2CU_DEVICE static constexpr int row_step(int r) { return 64 * (r / 2) + 8 * (r % 2); }
  SCHED2CU_DEVICE static int col_base() { return 0; }
  SCHED2CU_DEVICE static constexpr int col_step(int) { return 0; }
};

template <class T, class L>
struct BTile {
  using Layout = L;
  T v[L::kN];
  static constexpr int kCount = L::kN;
  SCHED2CU_DEVICE static int lin(int e) {
    return L::row(e / L::kCols) * L::C + L::col(e % L::kCols);
  }
};
// One value per row (#ttg.slice<{dim = 1}>), replicated over the lanes and warps along columns.
template <class T, class L>
struct BRow {
  using Layout = L;
  T v[L::kRows];
  static constexpr int kCount = L::kRows;
  SCHED2CU_DEVICE static int lin(int e) { return L::row(e); }
};
// One value per column (#ttg.slice<{dim = 0}>), replicated over the lanes and warps along rows.
template <class T, class L>
struct BCol {
  using Layout = L;
  T v[L::kCols];
  static constexpr int kCount = L::kCols;
  SCHED2CU_DEVICE static int lin(int e) { return L::col(e); }
};

// ---- operand adapters: at(r, c) is the value seen at result slot (row slot r, column slot c);
// a row-vector result maps over (r, 0), a column-vector result over (0, c) ---------------------

template <class T, class L>
struct BTileRef {
  const BTile<T, L>& t;
  SCHED2CU_DEVICE T at(int r, int c) const { return t.v[r * L::kCols + c]; }
};
template <class T, class L>
SCHED2CU_DEVICE BTileRef<T, L> btile(const BTile<T, L>& t) {
  return {t};
}
template <class T, class L>
struct BRowRef {  // a row vector (as a vector, or broadcast along the columns of a tile)
  const BRow<T, L>& x;
  SCHED2CU_DEVICE T at(int r, int) const { return x.v[r]; }
};
template <class T, class L>
SCHED2CU_DEVICE BRowRef<T, L> brow(const BRow<T, L>& x) {
  return {x};
}
// A one-column tile (an [R, 1] tensor: `offs_m[:, None] < M`), broadcast along the columns of a
// tile of the same rows: every column slot of a row slot holds that row's value (column 0).
template <class T, class L>
struct BRowTileRef {
  const BTile<T, L>& t;
  SCHED2CU_DEVICE T at(int r, int) const { return t.v[r * L::kCols]; }
};
template <class T, class L>
SCHED2CU_DEVICE BRowTileRef<T, L> brow(const BTile<T, L>& t) {
  static_assert(L::C == 1, "only a one-column tile broadcasts as a row vector");
  return {t};
}
// A column vector, or a one-row tile (one value per column slot, the same slots), as a vector
// or broadcast along the rows of a tile.
template <class X>
struct BColRef {
  const X& x;
  SCHED2CU_DEVICE auto at(int, int c) const { return x.v[c]; }
};
template <class T, class L>
SCHED2CU_DEVICE BColRef<BCol<T, L>> bcol(const BCol<T, L>& x) {
  return {x};
}
template <class T, class L>
SCHED2CU_DEVICE BColRef<BTile<T, L>> bcol(const BTile<T, L>& t) {
  static_assert(L::R == 1, "only a one-row tile broadcasts as a column vector");
  return {t};
}
// A column vector or one-row tile of the accumulator's column layout (BLay S1 = 2, T1 = 4: slot
// k holds column 8 (k / 2) + 2 (lane % 4) + k % 2), read by accumulator-tile math at element
// (slab, i) of the wgmma layout (column 8 (i / 4) + 2 (lane % 4) + i % 2), widened to f32.
template <class X>
struct MColBcast {
  const X& x;
  SCHED2CU_DEVICE float at(int, int i) const {
    return static_cast<float>(x.v[(i / 4) * 2 + i % 2]);
  }
};
template <class X>
SCHED2CU_DEVICE MColBcast<X> mcol_bcast(const X& x) {
  static_assert(X::Layout::kS1 == 2 && X::Layout::kT1 == 4 && X::Layout::kW1 == 1,
                "the accumulator's column layout");
  return {x};
}
// A row vector or N x 1 tile of the accumulator's row layout (MRowLay: slot r holds the rows of
// slab r / 2, half r % 2), read by accumulator-tile math at element (slab s, i) of the wgmma layout
// (row 16 warp + lane / 4 + 8 ((i % 4) / 2) of slab s), widened to f32.
template <class X>
struct MRowBcast {
  const X& x;
  SCHED2CU_DEVICE float at(int s, int i) const {
    return static_cast<float>(x.v[2 * s + (i % 4) / 2]);
  }
};
template <class X>
SCHED2CU_DEVICE MRowBcast<X> mrow_bcast(const X& x) {
  static_assert(
      X::Layout::kS0 == 2 && X::Layout::kT0 == 8 && X::Layout::CT0 == 64 && X::Layout::kCols == 1,
      "the accumulator's row layout");
  return {x};
}
// The same two reads without the widening, for integer and i1 vectors: an index or predicate
// tile of the accumulator layout (a causal mask) compares them at each element in their own type.
template <class X>
struct MColVal {
  const X& x;
  SCHED2CU_DEVICE auto at(int, int i) const { return x.v[(i / 4) * 2 + i % 2]; }
};
template <class X>
SCHED2CU_DEVICE MColVal<X> mcol_val(const X& x) {
  static_assert(X::Layout::kS1 == 2 && X::Layout::kT1 == 4 && X::Layout::kW1 == 1,
                "the accumulator's column layout");
  return {x};
}
template <class X>
struct MRowVal {
  const X& x;
  SCHED2CU_DEVICE auto at(int s, int i) const { return x.v[2 * s + (i % 4) / 2]; }
};
template <class X>
SCHED2CU_DEVICE MRowVal<X> mrow_val(const X& x) {
  static_assert(
      X::Layout::kS0 == 2 && X::Layout::kT0 == 8 && X::Layout::CT0 == 64 && X::Layout::kCols == 1,
      "the accumulator's row layout");
  return {x};
}
template <class T>
struct BSplat {
  T x;
  SCHED2CU_DEVICE T at(int, int) const { return x; }
};
template <class T>
SCHED2CU_DEVICE BSplat<T> bsplat(T x) {
  return {x};
}

// ---- elementwise maps ------------------------------------------------------------------------

template <class T, class L, class F, class... A>
SCHED2CU_DEVICE void bmap(BTile<T, L>& d, F f, const A&... a) {
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c = 0; c < L::kCols; ++c) d.v[r * L::kCols + c] = f(a.at(r, c)...);
}
template <class T, class L, class F, class... A>
SCHED2CU_DEVICE void bmap(BRow<T, L>& d, F f, const A&... a) {
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) d.v[r] = f(a.at(r, 0)...);
}
template <class T, class L, class F, class... A>
SCHED2CU_DEVICE void bmap(BCol<T, L>& d, F f, const A&... a) {
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) d.v[c] = f(a.at(0, c)...);
}

// tt.make_range: the coordinate along the tensor's only dimension plus `start` (a rank-1 tensor is
// a [1, C] tile; a slice is a row or column vector of its parent).
template <class L>
SCHED2CU_DEVICE void brange(BTile<int, L>& d, int start) {
  static_assert(L::R == 1, "make_range makes a rank-1 tensor");
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) d.v[c] = L::col(c) + start;
}
template <class L>
SCHED2CU_DEVICE void brange(BCol<int, L>& d, int start) {
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) d.v[c] = L::col(c) + start;
}
template <class L>
SCHED2CU_DEVICE void brange(BRow<int, L>& d, int start) {
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) d.v[r] = L::row(r) + start;
}

// ---- global memory through pointer tiles -----------------------------------------------------

template <int Bytes>
struct VecOf;
template <>
struct VecOf<16> {
  using type = uint4;
};
template <>
struct VecOf<8> {
  using type = uint2;
};
template <>
struct VecOf<4> {
  using type = uint32_t;
};
template <>
struct VecOf<2> {
  using type = uint16_t;
};
template <>
struct VecOf<1> {  // single fp8 elements (the run branch is compiled even where Vec is 1)
  using type = uint8_t;
};

// One run of Vec slots starting at slot e (column slot c0 of row slot r): d = mask ? *p : other,
// as one vector when the whole run is unmasked and its first address is aligned to the vector
// (checked at run time), element by element otherwise, so a masked tail or an unaligned row is
// correct, only slower. The emitter proved the run's pointers consecutive (Vec divides S1).
template <int Vec, class T, class M, class O>
SCHED2CU_DEVICE void bload_run(T* d, T* const* p, const M& mask, const O& other, int r, int c0) {
  constexpr int kBytes = Vec * static_cast<int>(sizeof(T));
  bool all = true;
#pragma unroll
  for (int k = 0; k < Vec; ++k) all &= static_cast<bool>(mask.at(r, c0 + k));
  if (Vec > 1 && all && reinterpret_cast<uintptr_t>(p[0]) % kBytes == 0) {
    using V = typename VecOf<kBytes>::type;
    union {
      V u;
      T x[Vec];
    } w;
    w.u = *reinterpret_cast<const V*>(p[0]);
#pragma unroll
    for (int k = 0; k < Vec; ++k) d[k] = w.x[k];
  } else {
#pragma unroll
    for (int k = 0; k < Vec; ++k)
      d[k] = mask.at(r, c0 + k) ? *p[k] : static_cast<T>(other.at(r, c0 + k));
  }
}

// A tile through a tile of pointers, run by run.
template <int Vec, class T, class L, class M, class O>
SCHED2CU_DEVICE void bload(BTile<T, L>& d, const BTile<T*, L>& p, const M& mask, const O& other) {
  static_assert(L::kS1 % Vec == 0 && Vec * sizeof(T) <= 16, "a run lies within S1 slots");
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += Vec) {
      const int e = r * L::kCols + c0;
      bload_run<Vec>(d.v + e, p.v + e, mask, other, r, c0);
    }
}

// The same for a column vector (its slots are a tile row's: runs of Vec within S1), e.g. a
// bias or weight vector loaded straight into the layout its users read it in.
template <int Vec, class T, class L, class LP, class M, class O>
SCHED2CU_DEVICE void bload(BCol<T, L>& d, const BCol<T*, LP>& p, const M& mask, const O& other) {
  static_assert(L::kS1 % Vec == 0 && Vec * sizeof(T) <= 16, "a run lies within S1 slots");
#pragma unroll
  for (int c0 = 0; c0 < L::kCols; c0 += Vec) bload_run<Vec>(d.v + c0, p.v + c0, mask, other, 0, c0);
}

// A row vector through a row vector of pointers (one element per row slot: a row's lanes along
// the columns all load the same address, which the memory system serves once).
template <int Vec, class T, class L, class LP, class M, class O>
SCHED2CU_DEVICE void bload(BRow<T, L>& d, const BRow<T*, LP>& p, const M& mask, const O& other) {
  static_assert(Vec == 1, "rows are not contiguous along a row vector");
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
    d.v[r] = mask.at(r, 0) ? *p.v[r] : static_cast<T>(other.at(r, 0));
}

// d = the box of d's shape at (row0, col0) of a row-major [rows][cols] tensor at `base` with a
// row stride of `ld` elements, reading 0 outside the tensor (what a TMA load of that box gives):
// a tensor-descriptor load brought into registers with plain loads. A run of Vec slots (within
// S1, so its columns are consecutive) is one vector load when it lies inside the tensor and its
// address is aligned to the vector, element loads otherwise (a tail, an odd stride).
template <int Vec, class T, class L>
SCHED2CU_DEVICE void bload_box(BTile<T, L>& d, const T* base, long long ld, int row0, int col0,
                               int rows, int cols) {
  static_assert(L::kS1 % Vec == 0 && Vec * sizeof(T) <= 16, "a run lies within S1 slots");
  constexpr int kBytes = Vec * static_cast<int>(sizeof(T));
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) {
    const int row = row0 + L::row(r);
    const bool row_in = row >= 0 && row < rows;
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += Vec) {
      const int col = col0 + L::col(c0);
      const int e = r * L::kCols + c0;
      const T* p = base + static_cast<long long>(row) * ld + col;
      if (Vec > 1 && row_in && col >= 0 && col + Vec <= cols &&
          reinterpret_cast<uintptr_t>(p) % kBytes == 0) {
        using V = typename VecOf<kBytes>::type;
        union {
          V u;
          T x[Vec];
        } w;
        w.u = *reinterpret_cast<const V*>(p);
#pragma unroll
        for (int k = 0; k < Vec; ++k) d.v[e + k] = w.x[k];
      } else {
#pragma unroll
        for (int k = 0; k < Vec; ++k)
          d.v[e + k] = row_in && col + k >= 0 && col + k < cols ? p[k] : static_cast<T>(0.0f);
      }
    }
  }
}

// *p = x where mask holds; the same run rule as bload.
template <int Vec, class T, class L, class X, class M>
SCHED2CU_DEVICE void bstore(const BTile<T*, L>& p, const X& x, const M& mask) {
  static_assert(L::kS1 % Vec == 0 && Vec * sizeof(T) <= 16, "a run lies within S1 slots");
  constexpr int kBytes = Vec * static_cast<int>(sizeof(T));
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += Vec) {
      const int e = r * L::kCols + c0;
      bool all = true;
#pragma unroll
      for (int k = 0; k < Vec; ++k) all &= static_cast<bool>(mask.at(r, c0 + k));
      if (Vec > 1 && all && reinterpret_cast<uintptr_t>(p.v[e]) % kBytes == 0) {
        using V = typename VecOf<kBytes>::type;
        union {
          V u;
          T y[Vec];
        } w;
#pragma unroll
        for (int k = 0; k < Vec; ++k) w.y[k] = static_cast<T>(x.at(r, c0 + k));
        *reinterpret_cast<V*>(p.v[e]) = w.u;
      } else {
#pragma unroll
        for (int k = 0; k < Vec; ++k)
          if (mask.at(r, c0 + k)) *p.v[e + k] = static_cast<T>(x.at(r, c0 + k));
      }
    }
}

// ---- shared memory in TMA box form: the R x C tile as C / BoxW boxes [R][BoxW], box j at
// j * R * BoxW * sizeof(T) bytes, rows swizzled as the descriptor says (swizzle_offset) ---------

template <int Swizzle, int BoxW, class T, class L>
SCHED2CU_DEVICE uint32_t box_offset(int row, int col) {
  constexpr int kRowBytes = BoxW * static_cast<int>(sizeof(T));
  return static_cast<uint32_t>((col / BoxW) * L::R * kRowBytes) +
         swizzle_offset<Swizzle, kRowBytes>(static_cast<uint32_t>(row),
                                            static_cast<uint32_t>((col % BoxW) * sizeof(T)));
}

// Runs of 16 bytes (16 / sizeof(T) column slots within S1, starting on a 16-byte column) stay
// contiguous under every swizzle, so they move as one vector.
template <class T, class L>
struct SmemRun {
  static constexpr int kV = 16 / static_cast<int>(sizeof(T));
  static constexpr int value = L::kS1 % kV == 0 ? kV : 1;
};

template <int Swizzle, int BoxW, class T, class L>
SCHED2CU_DEVICE void bload_smem(BTile<T, L>& d, const uint8_t* base) {
  constexpr int kRun = SmemRun<T, L>::value;
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += kRun) {
      const uint32_t off = box_offset<Swizzle, BoxW, T, L>(L::row(r), L::col(c0));
      const int e = r * L::kCols + c0;
      if constexpr (kRun > 1) {
        union {
          uint4 u;
          T x[kRun];
        } w;
        w.u = *reinterpret_cast<const uint4*>(base + off);
#pragma unroll
        for (int k = 0; k < kRun; ++k) d.v[e + k] = w.x[k];
      } else {
        d.v[e] = *reinterpret_cast<const T*>(base + off);
      }
    }
}

template <int Swizzle, int BoxW, class T, class L, class X>
SCHED2CU_DEVICE void bstore_smem(uint8_t* base, const X& x) {
  constexpr int kRun = SmemRun<T, L>::value;
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += kRun) {
      const uint32_t off = box_offset<Swizzle, BoxW, T, L>(L::row(r), L::col(c0));
      union {
        uint4 u;
        T y[kRun > 1 ? kRun : 1];
      } w;
#pragma unroll
      for (int k = 0; k < kRun; ++k) w.y[k] = static_cast<T>(x.at(r, c0 + k));
      if constexpr (kRun > 1)
        *reinterpret_cast<uint4*>(base + off) = w.u;
      else
        *reinterpret_cast<T*>(base + off) = w.y[0];
    }
}

}  // namespace sched2cu::rt
