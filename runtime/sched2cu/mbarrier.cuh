// mbarrier primitives and the ring abstraction every producer/consumer protocol is built from.
// PTX for mbarrier lives here and nowhere else. Never add policy (who waits on what): that is
// the kernel's (or the emitter's) job; this file only spells the hardware operations.
#pragma once

#include "sched2cu/common.cuh"

namespace sched2cu::rt {

// mbarrier.init: `count` arrivals complete one phase. Call from one thread, then
// mbar_fence_init() and a CTA barrier before any other thread or the async proxy uses it.
SCHED2CU_DEVICE void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}

// Makes preceding mbarrier.init visible to the async proxy (TMA complete_tx) and other threads.
SCHED2CU_DEVICE void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival (release semantics at CTA scope).
SCHED2CU_DEVICE void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar))
               : "memory");
}

// One arrival that also raises the phase's expected transaction count by `bytes` (the TMA
// producer's arm-and-arrive; the phase completes when all arrivals AND all bytes landed).
SCHED2CU_DEVICE void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
      "r"(bytes)
      : "memory");
}

// Raises the expected transaction count without arriving.
SCHED2CU_DEVICE void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

// Non-blocking probe: true once the phase with parity `parity` has completed.
SCHED2CU_DEVICE bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Blocks the calling thread until the phase with parity `parity` has completed (acquire).
// Every thread that reads the protected data waits itself (never only an elected lane).
SCHED2CU_DEVICE void mbar_wait(uint64_t* bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// A ring of N slots, each with a full and an empty barrier, indexed by a monotonically
// increasing iteration counter `it` that the kernel owns (it continues across tiles).
//   slot(it) = it % N, phase(it) = (it / N) & 1
//   consumer: wait_full(it)  (parity phase),     ... read slot ..., release(it)
//   producer: wait_empty(it) (parity phase ^ 1), ... fill slot ..., arm(it, bytes)/commit(it)
// Initial state: all slots empty, so the producer's first N waits pass immediately (the
// "previous" phase of a fresh barrier counts as complete).
template <int N>
struct Ring {
  static_assert(N >= 1, "a ring needs at least one slot");
  uint64_t full[N];
  uint64_t empty[N];

  SCHED2CU_DEVICE static uint32_t slot(uint32_t it) { return it % N; }
  SCHED2CU_DEVICE static uint32_t phase(uint32_t it) { return (it / N) & 1u; }

  // One thread: full barriers complete after `full_count` arrivals (plus armed bytes), empty
  // ones after `empty_count` arrivals. Follow with mbar_fence_init() and a CTA barrier.
  SCHED2CU_DEVICE void init(uint32_t full_count, uint32_t empty_count) {
    for (int i = 0; i < N; ++i) {
      mbar_init(&full[i], full_count);
      mbar_init(&empty[i], empty_count);
    }
  }
  SCHED2CU_DEVICE void wait_full(uint32_t it) { mbar_wait(&full[slot(it)], phase(it)); }
  SCHED2CU_DEVICE void wait_empty(uint32_t it) { mbar_wait(&empty[slot(it)], phase(it) ^ 1u); }
  // TMA producer: arrive on full[slot] and expect `bytes` of async copies.
  SCHED2CU_DEVICE void arm(uint32_t it, uint32_t bytes) {
    mbar_arrive_expect_tx(&full[slot(it)], bytes);
  }
  // Producer that filled the slot with ordinary stores (after fence_proxy_async if TMA/wgmma
  // reads it): one arrival on full[slot].
  SCHED2CU_DEVICE void commit(uint32_t it) { mbar_arrive(&full[slot(it)]); }
  // Consumer: one arrival on empty[slot]; for wgmma readers only after wgmma_wait proves the
  // MMAs that read the slot finished.
  SCHED2CU_DEVICE void release(uint32_t it) { mbar_arrive(&empty[slot(it)]); }
  SCHED2CU_DEVICE uint64_t* full_bar(uint32_t it) { return &full[slot(it)]; }
  SCHED2CU_DEVICE uint64_t* empty_bar(uint32_t it) { return &empty[slot(it)]; }
};

}  // namespace sched2cu::rt
