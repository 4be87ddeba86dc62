// Thread-block-cluster primitives: CTA rank, cluster-wide barrier, arrivals on a peer CTA's
// mbarrier, and the sum of a split loop's results across the CTAs of a cluster (split_sum:
// docs/runtime.md, "Split loops"). Launching with a cluster is the host launcher's job, not this
// file's; deciding to split is the scheduler's and the launcher's, never this file's.
#pragma once

#include <type_traits>

#include "sched2cu/common.cuh"
#include "sched2cu/mbarrier.cuh"
#include "sched2cu/warpgroup.cuh"

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

// One arrival with release semantics at cluster scope on the mbarrier at `bar`'s offset in CTA
// `cta_rank`: every earlier memory access of the thread (its shared-memory writes that a peer
// reads next, or its reads of a peer's shared memory that the peer overwrites next) is ordered
// before the arrival.
SCHED2CU_DEVICE void mbar_arrive_release_cluster(uint64_t* bar, uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 ra;\n"
      "mapa.shared::cluster.u32 ra, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem_u32(bar)),
      "r"(cta_rank)
      : "memory");
}

// Waits for the phase of parity `parity` with acquire semantics at cluster scope (arrivals
// made by peer CTAs with mbar_arrive_release_cluster).
SCHED2CU_DEVICE void mbar_wait_acquire_cluster(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (done == 0) {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_u32(bar)), "r"(parity)
        : "memory");
  }
}

// The address of `p`'s offset in CTA `cta_rank`'s shared memory (shared::cluster window).
SCHED2CU_DEVICE uint32_t mapa_shared_cluster(const void* p, uint32_t cta_rank) {
  uint32_t a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_u32(p)), "r"(cta_rank));
  return a;
}

// The four f32 at shared::cluster address `a` (mapa_shared_cluster; 16-byte aligned), one
// 16-byte load from a peer CTA's shared memory.
SCHED2CU_DEVICE float4 ld_shared_cluster_v4(uint32_t a) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(a)
               : "memory");
  return v;
}

// A split loop's iterations 0 .. T - 1 in contiguous shares over `n` CTAs, the first T % n
// shares one larger: where CTA `rank`'s share starts, and its length (0 for rank >= n).
SCHED2CU_DEVICE int split_first(int T, uint32_t rank, uint32_t n) {
  const int q = T / static_cast<int>(n), r = T % static_cast<int>(n);
  const int k = static_cast<int>(rank < n ? rank : n);
  return k * q + (k < r ? k : r);
}
SCHED2CU_DEVICE int split_count(int T, uint32_t rank, uint32_t n) {
  if (rank >= n || T <= 0) return 0;
  return T / static_cast<int>(n) + (static_cast<int>(rank) < T % static_cast<int>(n) ? 1 : 0);
}

// The trip count of the loop around a split loop in CTA `rank`: a program whose outer loop runs
// more than once is not split (its rings would refill while a share is summed through them), so
// the first CTA runs it whole and the others run nothing.
SCHED2CU_DEVICE int split_outer(int T, uint32_t rank) { return rank == 0 || T <= 1 ? T : 0; }

// The two mbarriers of a split loop's sum (split_sum): `ready` in the cluster's first CTA counts
// the other CTAs' threads that put their share in their own shared memory; `go` in each other
// CTA counts the first CTA's threads that finished reading it.
struct SplitBars {
  uint64_t ready;
  uint64_t go;
  // One thread, before mbar_fence_init: `n` CTAs in the cluster, `threads` threads each sum.
  SCHED2CU_DEVICE void init(uint32_t n, uint32_t threads) {
    mbar_init(&ready, n > 1 ? (n - 1) * threads : 1);
    mbar_init(&go, threads);
  }
};

namespace detail {

template <class T>
struct SplitWords {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0,
                "a split loop's result is a register object of 32-bit words");
  static constexpr int value = static_cast<int>(sizeof(T) / 4);
};

// f(word, w) for every 32-bit word of the values whose running index w is in [lo, hi), as
// floats. Every index is a compile-time constant once the callers' loops are unrolled, so the
// values stay in registers.
template <class F>
SCHED2CU_DEVICE void split_each(int, int, int, F&&) {}
template <class F, class T, class... Ts>
SCHED2CU_DEVICE void split_each(int off, int lo, int hi, F&& f, T& v, Ts&... rest) {
  float* const p = reinterpret_cast<float*>(&v);
#pragma unroll
  for (int i = 0; i < SplitWords<T>::value; ++i)
    if (off + i >= lo && off + i < hi) f(p[i], off + i);
  split_each(off + SplitWords<T>::value, lo, hi, f, rest...);
}

}  // namespace detail

// Sums the f32 register values `vals` of the same thread position across the `n` CTAs of the
// cluster into the first CTA (rank 0); the other CTAs' values are left as they were. Called by
// the kThreads threads (tid = 0 .. kThreads - 1) of the role that holds the values, in every
// CTA of the cluster, after the loop; n <= 1 leaves the values as they are. `region` is
// kRegionBytes of each CTA's shared memory that nothing else touches until the call returns (the
// split loop's drained rings; named barrier `role_bar` of the kThreads threads orders their last
// reads first). In rounds of what the region holds, as groups of 4 words stored [group][tid] in
// 16 bytes (a warp's stores and loads are 512 contiguous bytes): every CTA stores its words in
// its own region; each peer arrives on rank 0's `ready`; rank 0 waits, adds the peers' groups to
// its own with one 16-byte remote load per group and peer, writes the sums into its registers and
// arrives on every peer's `go`, which the peer waits for before it overwrites its region or
// exits. Remote loads rather than remote reductions: one `red.shared::cluster` per word into
// rank 0 made a 2-way split of a 128x128 f32 tile cost about as much as tens of loop iterations
// (H100, 2026-12-06). Rank 0's registers are dead between its store and the sums' return, so the
// loads need no second copy of the values (a load-and-add into live registers made ptxas hoist
// the loads and spill a 128-register accumulator). `phase` counts this thread's rounds (both
// barriers' parities).
template <int kThreads, unsigned kRegionBytes, class... Ts>
SCHED2CU_DEVICE void split_sum(SplitBars* bars, uint8_t* region, uint32_t rank, uint32_t n,
                               uint32_t tid, uint32_t role_bar, uint32_t& phase, Ts&... vals) {
  constexpr int kWords = (detail::SplitWords<Ts>::value + ... + 0);
  constexpr int kGroups = (kWords + 3) / 4;
  constexpr int kRound = static_cast<int>(kRegionBytes / (16u * kThreads));  // groups a round
  static_assert(kRound >= 1, "the split region holds at least 16 bytes per thread");
  float4* const mine = reinterpret_cast<float4*>(region) + tid;  // this thread's column
  // The region is free only once every warpgroup of the role is past the loop's last reads of
  // it (each waited for its own MMAs only).
  if (n > 1) named_bar_sync(role_bar, kThreads);
#pragma unroll
  for (int g0 = 0; g0 < kGroups; g0 += kRound) {
    // n <= 1 does nothing, as an empty branch rather than an early return: with a return, ptxas
    // keeps the reloaded sums and the untouched values apart and spills a 128-word accumulator.
    if (n <= 1) continue;
    const int g1 = g0 + kRound < kGroups ? g0 + kRound : kGroups;
    const uint32_t parity = phase & 1u;
    ++phase;
#pragma unroll
    for (int g = g0; g < g1; ++g) {
      float q[4] = {0.f, 0.f, 0.f, 0.f};
      detail::split_each(
          0, 4 * g, 4 * g + 4, [&](float& x, int w) { q[w - 4 * g] = x; }, vals...);
      mine[(g - g0) * kThreads] = make_float4(q[0], q[1], q[2], q[3]);
    }
    if (rank == 0) {
      mbar_wait_acquire_cluster(&bars->ready, parity);
#pragma unroll
      for (int g = g0; g < g1; ++g) {
        float4 s = mine[(g - g0) * kThreads];
        // Not unrolled: ptxas unrolled this runtime loop and hoisted its loads across groups,
        // which spilled 12 B from case7 at 128x256 tiles (a 128-word accumulator and db's 8).
#pragma unroll 1
        for (uint32_t peer = 1; peer < n; ++peer) {
          const float4 t =
              ld_shared_cluster_v4(mapa_shared_cluster(mine + (g - g0) * kThreads, peer));
          s.x += t.x;
          s.y += t.y;
          s.z += t.z;
          s.w += t.w;
        }
        const float q[4] = {s.x, s.y, s.z, s.w};
        detail::split_each(
            0, 4 * g, 4 * g + 4, [&](float& x, int w) { x = q[w - 4 * g]; }, vals...);
      }
      for (uint32_t peer = 1; peer < n; ++peer) mbar_arrive_release_cluster(&bars->go, peer);
    } else {
      mbar_arrive_release_cluster(&bars->ready, 0);
      mbar_wait_acquire_cluster(&bars->go, parity);
    }
  }
}

}  // namespace sched2cu::rt
