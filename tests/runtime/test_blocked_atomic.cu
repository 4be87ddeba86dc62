// GPU test of runtime/sched2cu/blocked_atomic.cuh (batomic: Triton's tt.atomic_rmw of a tile):
// - totals: 64 CTAs add (f32, vector runs of 4 and element by element through a mask) and take
//   the max (i32) of tiles into shared addresses; every element ends at the CPU's total, masked
//   elements untouched, a replicating layout (a 16-wide tensor on 128 threads) updating each
//   element once;
// - old values: 64 CTAs each add 1 to every element of one tile, keeping the old values; per
//   element the old values seen are exactly 0 .. 63 once each;
// - order (message passing, the reason batomic carries the memory order as a fence before and
//   after the tile's relaxed updates): a writer CTA stores a payload with plain stores, then
//   releases it by an acq_rel tile add on flags; a reader CTA spins on acq_rel tile adds of 0
//   until a flag shows the round, then reads the payload with plain loads. Any stale payload
//   word is a failure. Many rounds, writer and reader on different SMs.
#include <algorithm>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

using L = BLay<1, 1024, 1, 8, 1, 32, 1, 4>;   // col_atomic's layout: 8 per thread, 1024 wide
using LRep = BLay<1, 16, 1, 1, 1, 32, 1, 4>;  // 16 elements over 128 threads: replicated
constexpr int kN = 1024, kRep = 16, kCtas = 64;

__global__ void totals_kernel(float* s, int* q, float* srep, int n_valid) {
  BTile<float*, L> ps;
  BTile<int*, L> pq;
  BTile<float, L> x;
  BTile<int, L> xi;
  BTile<bool, L> mask;
#pragma unroll
  for (int e = 0; e < L::kN; ++e) {
    const int i = BTile<float, L>::lin(e);
    ps.v[e] = s + i;
    pq.v[e] = q + i;
    x.v[e] = static_cast<float>((i * 7 + blockIdx.x * 3) % 11) - 5.0f;
    xi.v[e] = (i * 13 + blockIdx.x * 29) % 1000;
    mask.v[e] = i < n_valid;
  }
  batomic<4, AtomOp::fadd, AtomSem::acq_rel, AtomScope::gpu>(nullptr, ps, btile(x), bsplat(true));
  batomic<1, AtomOp::max, AtomSem::relaxed, AtomScope::gpu>(nullptr, pq, btile(xi), btile(mask));
  BTile<float*, LRep> pr;
  BTile<float, LRep> one;
#pragma unroll
  for (int e = 0; e < LRep::kN; ++e) {
    pr.v[e] = srep + BTile<float, LRep>::lin(e);
    one.v[e] = 1.0f;
  }
  batomic<1, AtomOp::fadd, AtomSem::release, AtomScope::gpu>(nullptr, pr, btile(one), bsplat(true));
}

__global__ void old_values_kernel(int* counter, int* olds) {
  BTile<int*, L> p;
  BTile<int, L> old;
#pragma unroll
  for (int e = 0; e < L::kN; ++e) p.v[e] = counter + BTile<int, L>::lin(e);
  batomic<1, AtomOp::add, AtomSem::acquire, AtomScope::gpu>(&old, p, bsplat(1), bsplat(true));
#pragma unroll
  for (int e = 0; e < L::kN; ++e) olds[blockIdx.x * kN + BTile<int, L>::lin(e)] = old.v[e];
}

// Block 0 writes, block 1 reads; `rounds` payloads of kN words each.
__global__ void message_kernel(int* payload, int* flags, int* stale, int rounds) {
  BTile<int*, L> pf;
#pragma unroll
  for (int e = 0; e < L::kN; ++e) pf.v[e] = flags + BTile<int, L>::lin(e);
  for (int r = 1; r <= rounds; ++r) {
    if (blockIdx.x == 0) {
#pragma unroll
      for (int e = 0; e < L::kN; ++e) {
        const int i = BTile<int, L>::lin(e);
        volatile int* w = payload + i;
        *w = r * kN + i;  // a plain store, ordered only by the release below
      }
      batomic<1, AtomOp::add, AtomSem::acq_rel, AtomScope::gpu>(nullptr, pf, bsplat(1),
                                                                bsplat(true));
    } else {
      BTile<int, L> seen;
      bool ready = false;
      while (!ready) {
        batomic<1, AtomOp::add, AtomSem::acq_rel, AtomScope::gpu>(&seen, pf, bsplat(0),
                                                                  bsplat(true));
        ready = true;
#pragma unroll
        for (int e = 0; e < L::kN; ++e) ready &= seen.v[e] >= r;
      }
      int bad = 0;
#pragma unroll
      for (int e = 0; e < L::kN; ++e) {
        const int i = BTile<int, L>::lin(e);
        bad += payload[i] < r * kN + i;  // older than the round the flag released
      }
      if (bad) atomicAdd(stale, bad);
      __syncthreads();  // every reader thread is past round r before the writer's next round...
      if (threadIdx.x == 0) atomicExch(flags + kN, r);  // ...which waits for this
    }
    if (blockIdx.x == 0) {
      if (threadIdx.x == 0)
        while (atomicAdd(flags + kN, 0) < r) {
        }
      __syncthreads();
    }
  }
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;

  // Totals.
  const int n_valid = kN - 37;
  float *s = nullptr, *srep = nullptr;
  int* q = nullptr;
  RT_CHECK(cudaMalloc(&s, kN * sizeof(float)));
  RT_CHECK(cudaMalloc(&q, kN * sizeof(int)));
  RT_CHECK(cudaMalloc(&srep, kRep * sizeof(float)));
  RT_CHECK(cudaMemset(s, 0, kN * sizeof(float)));
  RT_CHECK(cudaMemset(q, 0xff, kN * sizeof(int)));  // -1: masked elements stay -1
  RT_CHECK(cudaMemset(srep, 0, kRep * sizeof(float)));
  rt_test::launch_sync([&] { totals_kernel<<<kCtas, 128>>>(s, q, srep, n_valid); }, "totals");
  std::vector<float> hs(kN), hrep(kRep);
  std::vector<int> hq(kN);
  RT_CHECK(cudaMemcpy(hs.data(), s, kN * sizeof(float), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(hq.data(), q, kN * sizeof(int), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(hrep.data(), srep, kRep * sizeof(float), cudaMemcpyDeviceToHost));
  bool sum_ok = true, max_ok = true, rep_ok = true;
  for (int i = 0; i < kN; ++i) {
    float want = 0;
    int mx = -1;
    for (int b = 0; b < kCtas; ++b) {
      want += static_cast<float>((i * 7 + b * 3) % 11) - 5.0f;
      if (i < n_valid) mx = std::max(mx, (i * 13 + b * 29) % 1000);
    }
    sum_ok &= hs[i] == want;  // small integers: exact in any order
    max_ok &= hq[i] == mx;
  }
  for (int i = 0; i < kRep; ++i) rep_ok &= hrep[i] == static_cast<float>(kCtas);
  res.check(sum_ok, "f32 add of 64 tiles (vector runs of 4): every element at its total");
  res.check(max_ok, "i32 max of 64 masked tiles: totals, masked elements untouched");
  res.check(rep_ok, "replicating layout: each element updated once per CTA");

  // Old values.
  int *counter = nullptr, *olds = nullptr;
  RT_CHECK(cudaMalloc(&counter, kN * sizeof(int)));
  RT_CHECK(cudaMalloc(&olds, kCtas * kN * sizeof(int)));
  RT_CHECK(cudaMemset(counter, 0, kN * sizeof(int)));
  rt_test::launch_sync([&] { old_values_kernel<<<kCtas, 128>>>(counter, olds); }, "old values");
  std::vector<int> ho(kCtas * kN);
  RT_CHECK(cudaMemcpy(ho.data(), olds, ho.size() * sizeof(int), cudaMemcpyDeviceToHost));
  bool perm_ok = true;
  for (int i = 0; i < kN; ++i) {
    std::vector<int> seen(kCtas, 0);
    for (int b = 0; b < kCtas; ++b) {
      const int o = ho[b * kN + i];
      if (o < 0 || o >= kCtas || seen[o]++) perm_ok = false;
    }
  }
  res.check(perm_ok, "old values: per element, 0 .. 63 once each");

  // Order.
  const int rounds = 2000;
  int *payload = nullptr, *flags = nullptr, *stale = nullptr;
  RT_CHECK(cudaMalloc(&payload, kN * sizeof(int)));
  RT_CHECK(cudaMalloc(&flags, (kN + 1) * sizeof(int)));
  RT_CHECK(cudaMalloc(&stale, sizeof(int)));
  RT_CHECK(cudaMemset(payload, 0, kN * sizeof(int)));
  RT_CHECK(cudaMemset(flags, 0, (kN + 1) * sizeof(int)));
  RT_CHECK(cudaMemset(stale, 0, sizeof(int)));
  rt_test::launch_sync([&] { message_kernel<<<2, 128>>>(payload, flags, stale, rounds); },
                       "message passing");
  int hstale = -1;
  RT_CHECK(cudaMemcpy(&hstale, stale, sizeof(int), cudaMemcpyDeviceToHost));
  res.check(hstale == 0, ("message passing through acq_rel tile atomics, 2000 rounds: " +
                          std::to_string(hstale) + " stale payload word(s)")
                             .c_str());

  RT_CHECK(cudaFree(s));
  RT_CHECK(cudaFree(q));
  RT_CHECK(cudaFree(srep));
  RT_CHECK(cudaFree(counter));
  RT_CHECK(cudaFree(olds));
  RT_CHECK(cudaFree(payload));
  RT_CHECK(cudaFree(flags));
  RT_CHECK(cudaFree(stale));
  return res.exit_code();
}
