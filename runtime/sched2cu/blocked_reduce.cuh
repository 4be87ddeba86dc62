// Reductions and scans of register values in blocked layouts (blocked.cuh): in-thread, across
// lanes by warp shuffles, then across warps through the role's shared scratch between named
// barrier syncs. The combine is the kernel's own (a lambda the emitter writes from the TTGIR
// region); only the order of combining lives here, never kernel policy.
#pragma once

#include "sched2cu/blocked.cuh"

namespace sched2cu::rt {

// ---- reductions ------------------------------------------------------------------------------

// The element of a two-operand reduction (tl.argmax / tl.argmin: a value and its index): the
// combine region reads and returns both, so they travel together through every reduction step.
template <class A, class B>
struct BPair {
  A a;
  B b;
};
// A warp shuffle of one reduction element: one shuffle per field of a pair.
template <class T>
SCHED2CU_DEVICE T bshfl_xor(T x, int o) {
  return __shfl_xor_sync(0xffffffffu, x, o);
}
template <class A, class B>
SCHED2CU_DEVICE BPair<A, B> bshfl_xor(const BPair<A, B>& x, int o) {
  return {bshfl_xor(x.a, o), bshfl_xor(x.b, o)};
}

// Along the columns (axis 1): in-thread, then lanes xor 1 .. T1 / 2 (the l1 bits of the lane),
// then, when W1 > 1, across warps through `scratch` (R * W1 values of this role) between two
// syncs of named barrier `bar` (the layout's kThreads threads). The emitter never asks for a
// reduction along a replicated axis.
template <class T, class L, class LD, class F, class P>
SCHED2CU_DEVICE void breduce_cols(BRow<T, LD>& d, const BTile<T, L>& t, F f, P scratch, int bar) {
  static_assert(L::C >= L::CT1, "no reduction along a replicated axis");
  static_assert(LD::kRows == L::kRows, "the row vector has the tile's rows");
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) {
    T x = t.v[r * L::kCols];
#pragma unroll
    for (int c = 1; c < L::kCols; ++c) x = f(x, t.v[r * L::kCols + c]);
#pragma unroll
    for (int o = 1; o < L::kT1; o *= 2) x = f(x, bshfl_xor(x, o));
    d.v[r] = x;
  }
  if constexpr (L::kW1 > 1) {
    const int w1 = L::warp() % L::kW1;
    if (L::lane() % L::kT1 == 0)
#pragma unroll
      for (int r = 0; r < L::kRows; ++r) scratch[L::row(r) * L::kW1 + w1] = d.v[r];
    named_bar_sync(bar, L::kThreads);
#pragma unroll
    for (int r = 0; r < L::kRows; ++r) {
      T x = scratch[L::row(r) * L::kW1];
#pragma unroll
      for (int k = 1; k < L::kW1; ++k) x = f(x, scratch[L::row(r) * L::kW1 + k]);
      d.v[r] = x;
    }
    named_bar_sync(bar, L::kThreads);  // scratch is reused by the next reduction
  }
}

// Along the rows (axis 0), this thread's rows only: a partial column sum (every thread holding a
// column keeps its own share) that bcol_partial_reduce completes, e.g. once after a loop that
// accumulates partials instead of once per iteration.
template <class T, class L, class LD, class F>
SCHED2CU_DEVICE void breduce_rows_partial(BCol<T, LD>& d, const BTile<T, L>& t, F f) {
  static_assert(L::R >= L::CT0, "no reduction along a replicated axis");
  static_assert(LD::kCols == L::kCols, "the column vector has the tile's columns");
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) {
    T x = t.v[c];
#pragma unroll
    for (int r = 1; r < L::kRows; ++r) x = f(x, t.v[r * L::kCols + c]);
    d.v[c] = x;
  }
}

// Completes column partials: lanes xor T1 .. (T0 / 2) * T1, then across the W0 warps through
// `scratch` (C * W0 values) between two syncs of named barrier `bar`.
template <class T, class L, class F, class P>
SCHED2CU_DEVICE void bcol_partial_reduce(BCol<T, L>& d, F f, P scratch, int bar) {
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) {
    T x = d.v[c];
#pragma unroll
    for (int o = L::kT1; o < 32; o *= 2) x = f(x, bshfl_xor(x, o));
    d.v[c] = x;
  }
  if constexpr (L::kW0 > 1) {
    const int w0 = L::warp() / L::kW1;
    if (L::lane() / L::kT1 == 0)
#pragma unroll
      for (int c = 0; c < L::kCols; ++c) scratch[L::col(c) * L::kW0 + w0] = d.v[c];
    named_bar_sync(bar, L::kThreads);
#pragma unroll
    for (int c = 0; c < L::kCols; ++c) {
      T x = scratch[L::col(c) * L::kW0];
#pragma unroll
      for (int k = 1; k < L::kW0; ++k) x = f(x, scratch[L::col(c) * L::kW0 + k]);
      d.v[c] = x;
    }
    named_bar_sync(bar, L::kThreads);
  }
}

// Along the rows (axis 0): in-thread, lanes xor T1 .. (T0 / 2) * T1, then across the W0 warps.
template <class T, class L, class LD, class F, class P>
SCHED2CU_DEVICE void breduce_rows(BCol<T, LD>& d, const BTile<T, L>& t, F f, P scratch, int bar) {
  breduce_rows_partial(d, t, f);
  bcol_partial_reduce(d, f, scratch, bar);
}

// A rank-1 tensor ([1, C] tile) reduced to a scalar, the same in every thread.
template <class T, class L, class F, class P>
SCHED2CU_DEVICE T breduce_all(const BTile<T, L>& t, F f, P scratch, int bar) {
  static_assert(L::R == 1 && L::CT0 == 1, "a rank-1 tensor");
  BRow<T, L> x;
  breduce_cols(x, t, f, scratch, bar);
  return x.v[0];
}

// ---- scans -----------------------------------------------------------------------------------

template <class T>
SCHED2CU_DEVICE T bshfl_up(T x, int o, int width) {
  return __shfl_up_sync(0xffffffffu, x, o, width);
}
template <class T>
SCHED2CU_DEVICE T bshfl_idx(T x, int src, int width) {
  return __shfl_sync(0xffffffffu, x, src, width);
}

// Inclusive scan along the columns (axis 1; a rank-1 tensor is a [1, C] tile) in column order,
// for any associative f (no identity needed: a prefix that is empty is skipped, not combined).
// Columns run in repetitions of CT1 = S1 T1 W1: within one, each thread scans its S1 columns,
// the T1 lanes of a row group scan their totals by shuffles up, and, when W1 > 1, the warps'
// totals pass through `scratch` (R * reps * W1 values of this role) between two syncs of named
// barrier `bar`; each repetition then starts from the total of the ones before it.
template <class T, class L, class F, class P>
SCHED2CU_DEVICE void bscan_cols(BTile<T, L>& d, const BTile<T, L>& t, F f, P scratch, int bar) {
  static_assert(L::C >= L::CT1, "no scan along a replicated axis");
  constexpr int kS1 = L::kS1, kT1 = L::kT1, kW1 = L::kW1, kReps = L::kCols / kS1;
  const int l1 = L::lane() % kT1, w1 = L::warp() % kW1;
  T excl[L::kRows][kReps];  // the lanes before this one in its row group, where l1 > 0
  T seg[L::kRows][kReps];   // the row group's total (every lane of it)
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int k = 0; k < kReps; ++k) {
      T* e = &d.v[r * L::kCols + k * kS1];
      const T* x = &t.v[r * L::kCols + k * kS1];
      e[0] = x[0];
#pragma unroll
      for (int s = 1; s < kS1; ++s) e[s] = f(e[s - 1], x[s]);
      T incl = e[kS1 - 1];
#pragma unroll
      for (int o = 1; o < kT1; o *= 2) {
        const T y = bshfl_up(incl, o, kT1);
        if (l1 >= o) incl = f(y, incl);
      }
      excl[r][k] = bshfl_up(incl, 1, kT1);
      seg[r][k] = bshfl_idx(incl, kT1 - 1, kT1);
    }
  if constexpr (kW1 > 1) {
    if (l1 == kT1 - 1)
#pragma unroll
      for (int r = 0; r < L::kRows; ++r)
#pragma unroll
        for (int k = 0; k < kReps; ++k) scratch[(L::row(r) * kReps + k) * kW1 + w1] = seg[r][k];
    named_bar_sync(bar, L::kThreads);
  }
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) {
    T carry{};
    bool has_carry = false;
#pragma unroll
    for (int k = 0; k < kReps; ++k) {
      T pre = carry, total = seg[r][k];
      bool has = has_carry;
      if constexpr (kW1 > 1) {
        const P row = scratch + (L::row(r) * kReps + k) * kW1;
        total = row[0];
#pragma unroll
        for (int j = 0; j < kW1; ++j) {
          if (j > 0) total = f(total, row[j]);
          if (j < w1) {
            pre = has ? f(pre, row[j]) : row[j];
            has = true;
          }
        }
      }
      if (l1 > 0) {
        pre = has ? f(pre, excl[r][k]) : excl[r][k];
        has = true;
      }
      if (has) {
        T* e = &d.v[r * L::kCols + k * kS1];
#pragma unroll
        for (int s = 0; s < kS1; ++s) e[s] = f(pre, e[s]);
      }
      carry = has_carry ? f(carry, total) : total;
      has_carry = true;
    }
  }
  if constexpr (kW1 > 1) named_bar_sync(bar, L::kThreads);  // scratch is reused by the next one
}

}  // namespace sched2cu::rt
