// Layout conversions of blocked tiles through the role's shared scratch: the same logical tensor
// in another layout (bconvert), or its transpose (btranspose, tt.trans). Which conversion a
// tensor needs is the emitter's decision, never this file's.
#pragma once

#include "sched2cu/blocked.cuh"
#include "sched2cu/warpgroup.cuh"

namespace sched2cu::rt {

// ---- layout conversion through shared memory -------------------------------------------------

// d = s in another layout (or vector kind) of the same logical tensor: every thread writes its
// elements at their linear index into `scratch` (replicas write equal values), the warpgroup
// syncs on `bar` (the role's threads), every thread reads its new elements, and syncs again before
// scratch is reused.
template <class D, class Src, class T>
SCHED2CU_DEVICE void bconvert(D& d, const Src& s, T* scratch, int bar) {
  static_assert(D::Layout::kThreads == Src::Layout::kThreads, "one role holds both layouts");
#pragma unroll
  for (int e = 0; e < Src::kCount; ++e) scratch[Src::lin(e)] = s.v[e];
  named_bar_sync(bar, Src::Layout::kThreads);
#pragma unroll
  for (int e = 0; e < D::kCount; ++e) d.v[e] = scratch[D::lin(e)];
  named_bar_sync(bar, Src::Layout::kThreads);
}

// d = the transpose of the R x C tile s (tt.trans, order [1, 0]): s goes to `scratch` row-major
// at its linear index, and d's element (r, c) reads s's element (c, r). Syncs as bconvert does.
template <class D, class Src, class T>
SCHED2CU_DEVICE void btranspose(D& d, const Src& s, T* scratch, int bar) {
  static_assert(D::Layout::kThreads == Src::Layout::kThreads, "one role holds both layouts");
  static_assert(D::Layout::R == Src::Layout::C && D::Layout::C == Src::Layout::R,
                "the result is the transposed shape");
#pragma unroll
  for (int e = 0; e < Src::kCount; ++e) scratch[Src::lin(e)] = s.v[e];
  named_bar_sync(bar, Src::Layout::kThreads);
#pragma unroll
  for (int e = 0; e < D::kCount; ++e) {
    const int r = D::Layout::row(e / D::Layout::kCols), c = D::Layout::col(e % D::Layout::kCols);
    d.v[e] = scratch[c * Src::Layout::C + r];
  }
  named_bar_sync(bar, Src::Layout::kThreads);
}

}  // namespace sched2cu::rt
