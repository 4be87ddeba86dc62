// Atomic read-modify-writes of blocked tiles through tiles of pointers (Triton's tt.atomic_rmw:
// tl.atomic_add, _max, _min, _and, _or, _xor, _xchg) with Triton's memory order and scope: one
// PTX atomic per element (`red` where the result is unused), the op's order carried by one fence
// before and one after the thread's part of the tile (batomic says why that keeps Triton's
// semantics). A layout that replicates a small tensor over threads holds each element in several
// slots: only the slot of its canonical copy updates memory, so an element is changed exactly
// once. Only layout arithmetic and the atomics themselves live here, never kernel policy.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sched2cu/blocked.cuh"

namespace sched2cu::rt {

enum class AtomOp { fadd, add, max, min, umax, umin, band, bor, bxor, exch };
enum class AtomSem { relaxed, acquire, release, acq_rel };
enum class AtomScope { cta, gpu, sys };

// One `atom.SEM.SCOPE.global.OPTYPE` (result in `r`), or one `red` when `red` is true.
#define SCHED2CU_ATOM_ONE(SEM, SCOPE, OPTYPE, REG)                                        \
  if constexpr (Sem == AtomSem::SEM && Scope == AtomScope::SCOPE) {                       \
    if constexpr (kRed)                                                                   \
      asm volatile("red." #SEM "." #SCOPE ".global." OPTYPE " [%0], %1;" ::"l"(p), REG(v) \
                   : "memory");                                                           \
    else                                                                                  \
      asm volatile("atom." #SEM "." #SCOPE ".global." OPTYPE " %0, [%1], %2;"             \
                   : "=" REG(r)                                                           \
                   : "l"(p), REG(v)                                                       \
                   : "memory");                                                           \
  }
#define SCHED2CU_ATOM_ALL(OPTYPE, REG)         \
  SCHED2CU_ATOM_ONE(relaxed, cta, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(relaxed, gpu, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(relaxed, sys, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acquire, cta, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acquire, gpu, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acquire, sys, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(release, cta, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(release, gpu, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(release, sys, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acq_rel, cta, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acq_rel, gpu, OPTYPE, REG) \
  SCHED2CU_ATOM_ONE(acq_rel, sys, OPTYPE, REG)

// *p = op(*p, v) atomically in global memory; returns the old value (unspecified when Keep is
// false: the result is dead, and with a relaxed or release order the update is a `red`).
template <AtomOp Op, AtomSem Sem, AtomScope Scope, bool Keep, class T>
SCHED2CU_DEVICE T atom_global(T* p, T v) {
  // PTX has no `red` with acquire semantics, nor an exchange without a result.
  constexpr bool kRed =
      !Keep && Op != AtomOp::exch && (Sem == AtomSem::relaxed || Sem == AtomSem::release);
  if constexpr (std::is_same_v<T, float>) {
    static_assert(Op == AtomOp::fadd || Op == AtomOp::exch, "f32 atomics: fadd, exch");
    if constexpr (Op == AtomOp::exch) {
      const uint32_t u =
          atom_global<Op, Sem, Scope, Keep>(reinterpret_cast<uint32_t*>(p), __float_as_uint(v));
      return __uint_as_float(u);
    } else {
      float r = 0.f;
      SCHED2CU_ATOM_ALL("add.f32", "f")
      return r;
    }
  } else {
    static_assert(sizeof(T) == 4 && std::is_integral_v<T>, "integer atomics: 32-bit");
    static_assert(Op != AtomOp::fadd, "fadd is for f32");
    T r = 0;
    if constexpr (Op == AtomOp::add) {
      SCHED2CU_ATOM_ALL("add.u32", "r")
    } else if constexpr (Op == AtomOp::max) {
      SCHED2CU_ATOM_ALL("max.s32", "r")
    } else if constexpr (Op == AtomOp::min) {
      SCHED2CU_ATOM_ALL("min.s32", "r")
    } else if constexpr (Op == AtomOp::umax) {
      SCHED2CU_ATOM_ALL("max.u32", "r")
    } else if constexpr (Op == AtomOp::umin) {
      SCHED2CU_ATOM_ALL("min.u32", "r")
    } else if constexpr (Op == AtomOp::band) {
      SCHED2CU_ATOM_ALL("and.b32", "r")
    } else if constexpr (Op == AtomOp::bor) {
      SCHED2CU_ATOM_ALL("or.b32", "r")
    } else if constexpr (Op == AtomOp::bxor) {
      SCHED2CU_ATOM_ALL("xor.b32", "r")
    } else {
      SCHED2CU_ATOM_ALL("exch.b32", "r")
    }
    return r;
  }
}

// Four consecutive f32 at a 16-byte-aligned p, one `atom ... .add.v4.f32` (sm_90), or `red`.
#define SCHED2CU_ATOM_V4(SEM, SCOPE)                                                             \
  if constexpr (Sem == AtomSem::SEM && Scope == AtomScope::SCOPE) {                              \
    if constexpr (kRed)                                                                          \
      asm volatile("red." #SEM "." #SCOPE ".global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), \
                   "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])                                    \
                   : "memory");                                                                  \
    else                                                                                         \
      asm volatile("atom." #SEM "." #SCOPE                                                       \
                   ".global.add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"                \
                   : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3])                              \
                   : "l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])                          \
                   : "memory");                                                                  \
  }

template <AtomSem Sem, AtomScope Scope, bool Keep>
SCHED2CU_DEVICE void atom_add_v4(float* p, const float (&v)[4], float (&r)[4]) {
  constexpr bool kRed = !Keep && (Sem == AtomSem::relaxed || Sem == AtomSem::release);
  SCHED2CU_ATOM_V4(relaxed, cta)
  SCHED2CU_ATOM_V4(relaxed, gpu)
  SCHED2CU_ATOM_V4(relaxed, sys)
  SCHED2CU_ATOM_V4(acquire, cta)
  SCHED2CU_ATOM_V4(acquire, gpu)
  SCHED2CU_ATOM_V4(acquire, sys)
  SCHED2CU_ATOM_V4(release, cta)
  SCHED2CU_ATOM_V4(release, gpu)
  SCHED2CU_ATOM_V4(release, sys)
  SCHED2CU_ATOM_V4(acq_rel, cta)
  SCHED2CU_ATOM_V4(acq_rel, gpu)
  SCHED2CU_ATOM_V4(acq_rel, sys)
}

#undef SCHED2CU_ATOM_V4
#undef SCHED2CU_ATOM_ALL
#undef SCHED2CU_ATOM_ONE

// `fence.acq_rel` at Scope: with a strong (relaxed or stronger) write after it, a release
// pattern; after a strong read, an acquire pattern (PTX memory consistency model).
template <AtomScope Scope>
SCHED2CU_DEVICE void fence_acq_rel() {
  if constexpr (Scope == AtomScope::cta)
    asm volatile("fence.acq_rel.cta;" ::: "memory");
  else if constexpr (Scope == AtomScope::gpu)
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  else
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

// Whether row slot r, column slot c of L holds the canonical copy of its element (its
// coordinates did not wrap around a tensor smaller than the CTA tile).
template <class L>
SCHED2CU_DEVICE bool bowner(int r, int c) {
  const int row = (r / L::kS0) * L::CT0 +
                  ((L::warp() / L::kW1) * L::kT0 + L::lane() / L::kT1) * L::kS0 + r % L::kS0;
  const int col = (c / L::kS1) * L::CT1 +
                  ((L::warp() % L::kW1) * L::kT1 + L::lane() % L::kT1) * L::kS1 + c % L::kS1;
  return row < L::R && col < L::C;
}

// For every slot whose mask holds and that owns its element: old = *p, *p = op(*p, x). `old` is
// a tile of the pointers' layout, or nullptr when the result is unused; where it is a tile, the
// layout must not replicate (the emitter checks), and masked-off slots read 0. Vec = 4 (the
// emitter proved runs of 4 slots consecutive, within S1): an f32 add of a run that is unmasked,
// owned and 16-byte aligned at run time is one vector atomic; anything else goes element by
// element.
//
// Memory order: the elements are relaxed atomics at Scope, with `fence.acq_rel` before them when
// Sem releases and after them when it acquires. Every access the thread made before the op is
// then ordered before each of its element updates, and each update before every access after
// the op, as with Sem on every element; what is not ordered is the updates of one op among
// themselves. Triton orders those for no program either: the elements of a tensor op are spread
// over threads by a layout the compiler picks, and different threads' updates are unordered
// whatever their order. Measured: per-element acq_rel `atom`s, whose fences wait for the
// thread's memory traffic at every element, held the GPU case col_atomic to 0.28x Triton
// (docs/runtime.md, § 6b).
template <int Vec, AtomOp Op, AtomSem Sem, AtomScope Scope, class Old, class T, class L, class X,
          class M>
SCHED2CU_DEVICE void batomic(Old old, const BTile<T*, L>& p, const X& x, const M& mask) {
  static_assert(Vec == 1 || (Vec == 4 && L::kS1 % 4 == 0), "a run lies within S1 slots");
  constexpr bool kKeep = !std::is_same_v<Old, std::nullptr_t>;
  constexpr bool kVector = Vec == 4 && Op == AtomOp::fadd && std::is_same_v<T, float>;
  constexpr AtomSem kEach = AtomSem::relaxed;
  if constexpr (Sem == AtomSem::release || Sem == AtomSem::acq_rel) fence_acq_rel<Scope>();
#pragma unroll
  for (int r = 0; r < L::kRows; ++r)
#pragma unroll
    for (int c0 = 0; c0 < L::kCols; c0 += kVector ? 4 : 1) {
      const int e = r * L::kCols + c0;
      if constexpr (kVector) {
        bool all = reinterpret_cast<uintptr_t>(p.v[e]) % 16 == 0;
#pragma unroll
        for (int k = 0; k < 4; ++k)
          all &= static_cast<bool>(mask.at(r, c0 + k)) && bowner<L>(r, c0 + k);
        if (all) {
          float v[4], o[4];
#pragma unroll
          for (int k = 0; k < 4; ++k) v[k] = static_cast<float>(x.at(r, c0 + k));
          atom_add_v4<kEach, Scope, kKeep>(p.v[e], v, o);
          if constexpr (kKeep)
#pragma unroll
            for (int k = 0; k < 4; ++k) old->v[e + k] = o[k];
          continue;
        }
      }
#pragma unroll
      for (int k = 0; k < (kVector ? 4 : 1); ++k) {
        T o = static_cast<T>(0);
        if (static_cast<bool>(mask.at(r, c0 + k)) && bowner<L>(r, c0 + k))
          o = atom_global<Op, kEach, Scope, kKeep>(p.v[e + k], static_cast<T>(x.at(r, c0 + k)));
        if constexpr (kKeep) old->v[e + k] = o;
      }
    }
  if constexpr (Sem == AtomSem::acquire || Sem == AtomSem::acq_rel) fence_acq_rel<Scope>();
}

}  // namespace sched2cu::rt
