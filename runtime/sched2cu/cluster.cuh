// Thread-block-cluster primitives: CTA rank, cluster-wide barrier, and arrivals on a peer CTA's
// mbarrier (what TMA multicast needs so a producer can reuse a slot only after every CTA's
// consumers released it). Launching with a cluster is the host launcher's job, not this file's.
#pragma once

#include "sched2cu/common.cuh"

namespace sched2cu::rt {

SCHED2CU_DEVICE uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

SCHED2CU_DEVICE uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// All threads of all CTAs of the cluster (every thread executes it, .aligned). Orders prior
// memory accesses (release) before later ones (acquire), e.g. mbarrier.init before a peer's
// remote arrive, and keeps a CTA's shared memory alive until peers stopped touching it.
SCHED2CU_DEVICE void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
SCHED2CU_DEVICE void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
SCHED2CU_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// One arrival on the mbarrier at the same shared-memory offset as `bar` in CTA `cta_rank` of
// the cluster (may be the calling CTA itself). Default (.release.cta) semantics, as for a
// consumer releasing a slot whose readers were async-proxy wgmma already waited for: a
// .release.cluster arrive was measured ~30% slower in the case1 GEMM (it fences every prior
// memory access of the thread at cluster scope on the consumer's critical path).
SCHED2CU_DEVICE void mbar_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 ra;\n"
      "mapa.shared::cluster.u32 ra, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem_u32(bar)),
      "r"(cta_rank)
      : "memory");
}

}  // namespace sched2cu::rt
