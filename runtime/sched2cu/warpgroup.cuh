// Warpgroup roles: warpgroup index, elected threads, setmaxnreg register reallocation and
// named barriers (bar.sync / bar.arrive). Never encode a particular kernel's role layout here.
#pragma once

#include "sched2cu/common.cuh"

namespace sched2cu::rt {

constexpr int kWarpgroupThreads = 128;

// Index of the calling thread's warpgroup in the CTA (warp-uniform, from a register copy so
// the compiler can treat it as uniform). These two shuffle across the warp: every lane of the
// warp must call them together (never behind a lane-dependent condition such as elect).
SCHED2CU_DEVICE int warpgroup_idx() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / kWarpgroupThreads, 0);
}
SCHED2CU_DEVICE int warp_idx_in_warpgroup() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x % kWarpgroupThreads) / 32, 0);
}
SCHED2CU_DEVICE int thread_idx_in_warpgroup() {
  return static_cast<int>(threadIdx.x % kWarpgroupThreads);
}

// elect.sync: true in exactly one active lane of the calling (fully active) warp.
SCHED2CU_DEVICE bool elect_one_sync() {
  uint32_t pred = 0;
  asm volatile(
      "{\n.reg .pred p;\n.reg .b32 r;\n"
      "elect.sync r|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}

// True in exactly one thread of the warpgroup: the elected lane of its first warp.
SCHED2CU_DEVICE bool warpgroup_elect_one() {
  return warp_idx_in_warpgroup() == 0 && elect_one_sync();
}

// setmaxnreg: every thread of the warpgroup executes it together. Takes effect only when the
// kernel has a register cap at entry (__launch_bounds__(threads, 1)). Regs multiple of 8,
// 24..256.
template <int Regs>
SCHED2CU_DEVICE void setmaxnreg_inc() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg takes 24..256 step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
SCHED2CU_DEVICE void setmaxnreg_dec() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg takes 24..256 step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}

// Named barriers 1..15 (0 is __syncthreads). `threads` is a multiple of 32 and counts every
// thread that syncs or arrives on the barrier in one phase.
SCHED2CU_DEVICE void named_bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
SCHED2CU_DEVICE void named_bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Synchronizes the calling warpgroup only, on named barrier `id`.
SCHED2CU_DEVICE void warpgroup_sync(int id) { named_bar_sync(id, kWarpgroupThreads); }

}  // namespace sched2cu::rt
