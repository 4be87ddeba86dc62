// GPU test of the mbarrier ring protocol (runtime/sched2cu/mbarrier.cuh): one producer
// warpgroup fills slots with ordinary stores, two consumer warpgroups read them, over many
// iterations and several ring depths; every value is checked against a CPU sum.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

constexpr int kSlotWords = 128;

template <int N>
__global__ void ring_kernel(int iters, unsigned long long* out) {
  __shared__ Ring<N> ring;
  __shared__ uint32_t data[N][kSlotWords];
  if (threadIdx.x == 0) {
    ring.init(128, 2 * 128);  // every producer thread commits, every consumer thread releases
    mbar_fence_init();
  }
  __syncthreads();
  const int wg = warpgroup_idx();
  const int t = thread_idx_in_warpgroup();
  if (wg == 0) {
    for (int it = 0; it < iters; ++it) {
      ring.wait_empty(it);
      data[Ring<N>::slot(it)][t] = static_cast<uint32_t>(it * 131 + t);
      ring.commit(it);
    }
  } else {
    unsigned long long sum = 0;
    for (int it = 0; it < iters; ++it) {
      ring.wait_full(it);
      // Each consumer reads a word the producer thread t' = 127 - t wrote: cross-thread data.
      sum += data[Ring<N>::slot(it)][127 - t] ^ static_cast<uint32_t>(wg);
      ring.release(it);
    }
    out[(wg - 1) * 128 + t] = sum;
  }
}

template <int N>
bool run_ring(int iters) {
  unsigned long long* d;
  RT_CHECK(cudaMalloc(&d, 256 * sizeof(unsigned long long)));
  RT_CHECK(cudaMemset(d, 0, 256 * sizeof(unsigned long long)));
  rt_test::launch_sync([&] { ring_kernel<N><<<1, 384>>>(iters, d); });
  std::vector<unsigned long long> h(256);
  RT_CHECK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d));
  bool ok = true;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 128; ++t) {
      unsigned long long want = 0;
      for (int it = 0; it < iters; ++it)
        want += static_cast<uint32_t>(it * 131 + (127 - t)) ^ static_cast<uint32_t>(c + 1);
      ok = ok && h[c * 128 + t] == want;
    }
  return ok;
}

int main() {
  rt_test::require_hopper();
  rt_test::Result r;
  r.check(run_ring<1>(5000), "ring depth 1, 5000 iterations");
  r.check(run_ring<2>(10000), "ring depth 2, 10000 iterations");
  r.check(run_ring<3>(10001), "ring depth 3, 10001 iterations");
  r.check(run_ring<4>(20000), "ring depth 4, 20000 iterations");
  r.check(run_ring<7>(7777), "ring depth 7, 7777 iterations");
  return r.exit_code();
}
