// Generic register-value operations over the layouts the emitter models (docs/emitter.md,
// "Register values and layouts"): elementwise maps whose operands are read through layout adapters
// (a tile, a row vector broadcast along its rows, a column vector broadcast along its columns,
// a scalar splat, a packed 16-bit tile widened on the fly), row reductions with any associative
// combiner, and row vectors written to shared memory. The layout knowledge (which element of a
// vector a tile element sees) lives here and nowhere else; the callers only name the adapter.
// Never add kernel policy or PTX here: plain register arithmetic and shuffles.
#pragma once

#include "sched2cu/common.cuh"
#include "sched2cu/regtile.cuh"
#include "sched2cu/wgmma.cuh"

namespace sched2cu::rt {

// A vector along the columns of an accumulator-layout tile (what a reduction over rows leaves):
// this thread's N / 4 distinct columns, element (i / 4) * 2 + i % 2 for tile element i of a slab
// (column 8 * (i / 4) + 2 * (l % 4) + i % 2, regtile.cuh).
template <int N>
struct ColVec {
  static_assert(N % 8 == 0, "whole 8-column blocks of the accumulator layout");
  float v[N / 4];
};

// ---- operand adapters: at(s, i) is the value seen at result element (slab s, index i) -------

// A tile operand of a tile result (same layout, same shape).
template <int M, int N>
struct TileRef {
  const AccTile<M, N>& t;
  SCHED2CU_DEVICE float at(int s, int i) const { return t.v[s][i]; }
};
template <int M, int N>
SCHED2CU_DEVICE TileRef<M, N> tile(const AccTile<M, N>& t) {
  return {t};
}

// A row vector broadcast along the rows of a tile result (tt.expand_dims + tt.broadcast).
template <int M>
struct RowBcast {
  const RowVec<M>& r;
  SCHED2CU_DEVICE float at(int s, int i) const { return r.v[s][(i % 4) / 2]; }
};
template <int M>
SCHED2CU_DEVICE RowBcast<M> row_bcast(const RowVec<M>& r) {
  return {r};
}

// A column vector broadcast along the columns of a tile result.
template <int N>
struct ColBcast {
  const ColVec<N>& c;
  SCHED2CU_DEVICE float at(int, int i) const { return c.v[(i / 4) * 2 + i % 2]; }
};
template <int N>
SCHED2CU_DEVICE ColBcast<N> col_bcast(const ColVec<N>& c) {
  return {c};
}

// A row vector operand of a row vector result (element (s, h): row 16 w + l / 4 + 8 h of slab s).
template <int M>
struct RowRef {
  const RowVec<M>& r;
  SCHED2CU_DEVICE float at(int s, int h) const { return r.v[s][h]; }
};
template <int M>
SCHED2CU_DEVICE RowRef<M> row(const RowVec<M>& r) {
  return {r};
}

// A column vector operand of a column vector result (element k of this thread's columns).
template <int N>
struct ColRef {
  const ColVec<N>& c;
  SCHED2CU_DEVICE float at(int, int k) const { return c.v[k]; }
};
template <int N>
SCHED2CU_DEVICE ColRef<N> col(const ColVec<N>& c) {
  return {c};
}

// A scalar broadcast to every element (tt.splat, a splat constant).
struct Splat {
  float x;
  SCHED2CU_DEVICE float at(int, int) const { return x; }
};
SCHED2CU_DEVICE Splat splat(float x) { return {x}; }

// A packed 16-bit tile (PackedTile, element pairs) read as f32 (arith.extf of a 16-bit load).
template <class T, int M, int N>
struct Widen {
  const PackedTile<M, N>& p;
  SCHED2CU_DEVICE float at(int s, int i) const {
    const float2 f = unpack2<T>(p.p[s][i / 2]);
    return (i % 2) ? f.y : f.x;
  }
};
template <class T, int M, int N>
SCHED2CU_DEVICE Widen<T, M, N> widen(const PackedTile<M, N>& p) {
  return {p};
}

// Any operand adapter of an N-column tile result, read for the W-column box `box` of it (columns
// W·box .. W·box + W - 1): a box result's element (s, i) is the whole tile's (s, i + box·W/2),
// since every 8-column block holds 4 consecutive elements of a slab (regtile.cuh). How a
// store's epilogue evaluates math one stored box at a time.
template <int W, class A>
struct BoxCols {
  static_assert(W % 8 == 0, "whole 8-column blocks");
  A a;
  int off;
  SCHED2CU_DEVICE float at(int s, int i) const { return a.at(s, i + off); }
};
template <int W, class A>
SCHED2CU_DEVICE BoxCols<W, A> box_cols(const A& a, int box) {
  return {a, box * (W / 2)};
}

// ---- elementwise maps: d[e] = f(a[e]...) over the result's elements --------------------------

template <int M, int N, class F, class... A>
SCHED2CU_DEVICE void tile_map(AccTile<M, N>& d, F f, const A&... a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = f(a.at(s, i)...);
}

// d(s, i) = f(s, i): element (slab s, register i) of the wgmma layout computed by a function of
// its position, for math that reads operands through their adapters' at(s, i) itself (a select
// whose predicate compares row and column indices: an attention mask).
template <int M, int N, class F>
SCHED2CU_DEVICE void tile_gen(AccTile<M, N>& d, F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d.v[s][i] = f(s, i);
}

template <int M, class F, class... A>
SCHED2CU_DEVICE void row_map(RowVec<M>& d, F f, const A&... a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int h = 0; h < 2; ++h) d.v[s][h] = f(a.at(s, h)...);
}

template <int N, class F, class... A>
SCHED2CU_DEVICE void col_map(ColVec<N>& d, F f, const A&... a) {
#pragma unroll
  for (int k = 0; k < N / 4; ++k) d.v[k] = f(a.at(0, k)...);
}

// Converts a tile to 16-bit pairs element by element through f (arith.truncf, possibly after a
// map): PackedTile element j of slab s packs tile elements 2j and 2j + 1.
template <class T, int M, int N, class F, class... A>
SCHED2CU_DEVICE void tile_map_packed(PackedTile<M, N>& d, F f, const A&... a) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int j = 0; j < N / 4; ++j)
      d.p[s][j] = pack2<T>(f(a.at(s, 2 * j)...), f(a.at(s, 2 * j + 1)...));
}

template <int N>
SCHED2CU_DEVICE void col_fill(ColVec<N>& c, float x) {
#pragma unroll
  for (int k = 0; k < N / 4; ++k) c.v[k] = x;
}

// ---- reductions ---------------------------------------------------------------------------

// Combines x[0..W) into x[0] by a balanced tree (independent combines for ILP); f must be
// associative and commutative, as Triton assumes of every tt.reduce combiner. The width is a
// template parameter and each level a separate instantiation: a run-time loop bound here was not
// fully unrolled by nvcc for W >= 16 and put the arrays in local memory.
template <int W, int Count, class F>
SCHED2CU_DEVICE void tree_level(float (&x)[Count], F f) {
  if constexpr (W > 1) {
    constexpr int kHalf = (W + 1) / 2;
#pragma unroll
    for (int k = 0; k < W - kHalf; ++k) x[k] = f(x[k], x[k + kHalf]);
    tree_level<kHalf>(x, f);
  }
}
template <int Count, class F>
SCHED2CU_DEVICE float tree_combine(float (&x)[Count], F f) {
  tree_level<Count>(x, f);
  return x[0];
}

// Quad partials: a RowVec may hold, instead of its row's value in every lane of the quad, one
// partial per lane whose combination over the quad is the value. A sum carried across loop
// iterations in this form (l = l * alpha + rowsum(p), alpha equal across the quad) needs its
// shuffles once, after the loop, instead of every iteration (docs/emitter.md, "Deferred quad
// sums"). The emitter decides where; these are the pieces (row_quad_reduce is in regtile.cuh).

// r[row] = this lane's f-reduction of its N / 4 values of each row of a: a tree, no shuffle.
template <int M, int N, class F>
SCHED2CU_DEVICE void acc_row_partial(RowVec<M>& r, const AccTile<M, N>& a, F f) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) {
    float x[N / 4], y[N / 4];
#pragma unroll
    for (int b = 0; b < N / 8; ++b) {
      x[2 * b] = a.v[s][4 * b];
      x[2 * b + 1] = a.v[s][4 * b + 1];
      y[2 * b] = a.v[s][4 * b + 2];
      y[2 * b + 1] = a.v[s][4 * b + 3];
    }
    r.v[s][0] = tree_combine(x, f);
    r.v[s][1] = tree_combine(y, f);
  }
}

// A quad-partial sum equal to x in every row: x in the quad's first lane, 0 in the others
// (exact: the quad sum adds zeros).
template <int M>
SCHED2CU_DEVICE void row_fill_quad_sum(RowVec<M>& r, float x) {
  const float v = threadIdx.x % 4 == 0 ? x : 0.f;
#pragma unroll
  for (int s = 0; s < M / 64; ++s) r.v[s][0] = r.v[s][1] = v;
}

// r[row] = f-reduction over all N columns of each row of a (tt.reduce along axis 1 of the
// accumulator layout): a tree over this thread's N / 4 values per row, then across the 4 lanes
// of the quad holding the row (xor 1, 2). Every lane of the quad holds the result.
template <int M, int N, class F>
SCHED2CU_DEVICE void acc_row_reduce(RowVec<M>& r, const AccTile<M, N>& a, F f) {
  acc_row_partial(r, a, f);
  row_quad_reduce(r, f);
}

// ---- row vectors to shared memory -----------------------------------------------------------

// Writes this warpgroup's rows of r (row 64 s + 16 w + l / 4 + 8 h, one f32 each) to dst[row]:
// lane 0 of each quad writes (the quad's lanes hold the same value). Follow with
// fence_proxy_async() and a barrier of the writing threads before a TMA store reads dst.
template <int M>
SCHED2CU_DEVICE void row_store_smem(float* dst, const RowVec<M>& r) {
  const int t = static_cast<int>(threadIdx.x % 128);
  if (t % 4 != 0) return;
  const int base = 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
  for (int s = 0; s < M / 64; ++s) {
    dst[64 * s + base] = r.v[s][0];
    dst[64 * s + base + 8] = r.v[s][1];
  }
}

// Writes this warpgroup's rows of r to global memory, row i of the warpgroup's slice at dst[i]
// converted to T, skipping rows at or past `limit` (a store masked by `offs < bound`): lane 0 of
// each quad writes (the quad's lanes hold the same value). A row vector stored through pointers
// (`tl.store(M + off + offs_m, m_i)`, attention's log-sum-exp).
template <class T, int M>
SCHED2CU_DEVICE void row_store_global(T* dst, const RowVec<M>& r, long long limit) {
  const int t = static_cast<int>(threadIdx.x % 128);
  if (t % 4 != 0) return;
  const int base = 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = 64 * s + base + 8 * h;
      if (row < limit) dst[row] = static_cast<T>(r.v[s][h]);
    }
}

// ---- whole-tile operand fences ----------------------------------------------------------------

// wgmma_fence_operand (wgmma.cuh) over every slab of a tile: pins its registers around the
// issue and the wait of the wgmma groups that read or write them asynchronously.
template <int M, int N>
SCHED2CU_DEVICE void wgmma_fence_operand(AccTile<M, N>& t) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) wgmma_fence_operand(t.v[s]);
}
template <int M, int N>
SCHED2CU_DEVICE void wgmma_fence_operand(PackedTile<M, N>& t) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s) wgmma_fence_operand(t.p[s]);
}

}  // namespace sched2cu::rt
