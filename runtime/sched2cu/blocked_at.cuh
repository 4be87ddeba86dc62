// Row and column vectors of blocked layouts read from their affine address (docs/emitter.md,
// "Vectors read where they are used"): a vector whose element i sits at p + i, of memory the
// kernel never writes (the emitter proves both), read by this thread's slots from one base
// register and an immediate offset per slot, with no vector of pointers. Either into registers
// where the schedule placed the load (bload_at), or at each use, never held (the *_at adapters,
// what the emitter's read-at-use loads print). Only addressing and loads live here.
#pragma once

#include "sched2cu/blocked.cuh"

namespace sched2cu::rt {

// Where slot c (column) or r (row) of this thread sits in the vector: its part q = p + base
// (computed once) plus the slot's constant step, so every read is one base register and an
// immediate offset; or p plus the layout's own formula where slots wrap (a replicated axis).
// q is opaque to the optimizer (an empty asm): merged with the slot's step into one index, it
// was recomputed per slot in 64 bits (an OR, a widening, a shift and an add per read).
template <class T>
SCHED2CU_DEVICE const T* opaque(const T* p) {
  asm("" : "+l"(p));
  return p;
}
template <class L, class T>
SCHED2CU_DEVICE const T* col_part(const T* p) {
  if constexpr (L::kColsWhole) {
    return opaque(p + L::col_base());
  } else {
    return p;
  }
}
template <class L, class T>
SCHED2CU_DEVICE const T* row_part(const T* p) {
  if constexpr (L::kRowsWhole) {
    return opaque(p + L::row_base());
  } else {
    return p;
  }
}
// The index of slot c (r) from its part.
template <class L>
SCHED2CU_DEVICE int col_index(int c) {
  if constexpr (L::kColsWhole) {
    return L::col_step(c);
  } else {
    return L::col(c);
  }
}
template <class L>
SCHED2CU_DEVICE int row_index(int r) {
  if constexpr (L::kRowsWhole) {
    return L::row_step(r);
  } else {
    return L::row(r);
  }
}

// ---- loaded into registers ---------------------------------------------------------------------

// Through the non-coherent read-only path, element loads only: a vector load needs an alignment
// test that ptxas if-converts into both forms of every load.
template <class T, class L>
SCHED2CU_DEVICE void bload_at(BCol<T, L>& d, const T* p) {
  const T* q = col_part<L>(p);
#pragma unroll
  for (int c = 0; c < L::kCols; ++c) d.v[c] = __ldg(&q[col_index<L>(c)]);
}
template <class T, class L>
SCHED2CU_DEVICE void bload_at(BRow<T, L>& d, const T* p) {
  const T* q = row_part<L>(p);
#pragma unroll
  for (int r = 0; r < L::kRows; ++r) d.v[r] = __ldg(&q[row_index<L>(r)]);
}

// ---- read where used ---------------------------------------------------------------------------
// The variable is the address of element 0; each adapter reads the elements of this thread's
// slots at the use. Plain loads (cached in L1), so the repeated reads of one slot within a map
// are one.

// The lines of [p, p + bytes) into L1, spread over the warp's lanes (every warp issues them).
SCHED2CU_DEVICE void prefetch_l1(const void* p, int bytes) {
  const char* b = static_cast<const char*>(p);
  for (int k = static_cast<int>(threadIdx.x % 32); k * 128 < bytes + 128; k += 32) {
    const char* a = b + (k * 128 < bytes ? k * 128 : bytes - 1);  // the last line's last byte
    asm volatile("prefetch.global.L1 [%0];" ::"l"(a));
  }
}
template <class T, class L>
struct BColAt {
  const T* q;
  SCHED2CU_DEVICE T at(int, int c) const { return q[col_index<L>(c)]; }
};
template <class L, class T>
SCHED2CU_DEVICE BColAt<T, L> bcol_at(const T* p) {
  return {col_part<L>(p)};
}
template <class T, class L>
struct BRowAt {
  const T* q;
  SCHED2CU_DEVICE T at(int r, int) const { return q[row_index<L>(r)]; }
};
template <class L, class T>
SCHED2CU_DEVICE BRowAt<T, L> brow_at(const T* p) {
  return {row_part<L>(p)};
}
// The same read by accumulator-tile math (MColBcast's and MRowBcast's slots), widened to f32.
template <class T, class L>
struct MColBcastAt {
  const T* q;
  SCHED2CU_DEVICE float at(int, int i) const {
    return static_cast<float>(q[col_index<L>((i / 4) * 2 + i % 2)]);
  }
};
template <class L, class T>
SCHED2CU_DEVICE MColBcastAt<T, L> mcol_bcast_at(const T* p) {
  static_assert(L::kS1 == 2 && L::kT1 == 4 && L::kW1 == 1, "the accumulator's column layout");
  return {col_part<L>(p)};
}
template <class T, class L>
struct MRowBcastAt {
  const T* q;
  SCHED2CU_DEVICE float at(int s, int i) const {
    return static_cast<float>(q[row_index<L>(2 * s + (i % 4) / 2)]);
  }
};
template <class L, class T>
SCHED2CU_DEVICE MRowBcastAt<T, L> mrow_bcast_at(const T* p) {
  static_assert(L::kS0 == 2 && L::kT0 == 8 && L::CT0 == 64 && L::kCols == 1,
                "the accumulator's row layout");
  return {row_part<L>(p)};
}

}  // namespace sched2cu::rt
