// GPU test of named barriers (runtime/sched2cu/warpgroup.cuh): bar.arrive / bar.sync ping-pong
// between two warpgroups over many rounds; the order is checked through a shared log.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

// Two warpgroups alternate: WG0 writes log[2k], then WG1 writes log[2k+1]. Barrier 1 hands the
// turn from WG0 to WG1, barrier 2 back. Each entry records the previous entry + 1, so a
// reordering breaks the sequence.
__global__ void pingpong_kernel(int rounds, int* log_out) {
  __shared__ int log[4096];
  __shared__ int last;
  if (threadIdx.x == 0) last = -1;
  __syncthreads();
  const int wg = warpgroup_idx();
  for (int k = 0; k < rounds; ++k) {
    if (wg == 0) {
      if (k > 0) named_bar_sync(2, 256);  // wait for WG1's turn k-1 to finish
      if (thread_idx_in_warpgroup() == 0) {
        log[2 * k] = last + 1;
        last = log[2 * k];
      }
      named_bar_arrive(1, 256);
    } else {
      named_bar_sync(1, 256);
      // warp_idx_in_warpgroup() shuffles across the warp: evaluate it in every lane first.
      const bool writer_warp = warp_idx_in_warpgroup() == 2;
      if (elect_one_sync() && writer_warp) {
        log[2 * k + 1] = last + 1;
        last = log[2 * k + 1];
      }
      named_bar_arrive(2, 256);
    }
  }
  if (wg == 0) named_bar_sync(2, 256);  // consume WG1's final arrive
  __syncthreads();
  for (int i = threadIdx.x; i < 2 * rounds; i += blockDim.x) log_out[i] = log[i];
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  {
    const int rounds = 2000;
    int* d;
    RT_CHECK(cudaMalloc(&d, 2 * rounds * 4));
    rt_test::launch_sync([&] { pingpong_kernel<<<1, 256>>>(rounds, d); }, "pingpong_kernel");
    std::vector<int> h(2 * rounds);
    RT_CHECK(cudaMemcpy(h.data(), d, h.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < 2 * rounds; ++i) ok = ok && h[i] == i;
    RT_CHECK(cudaFree(d));
    res.check(ok, "named-barrier ping-pong, 2000 rounds");
  }
  return res.exit_code();
}
