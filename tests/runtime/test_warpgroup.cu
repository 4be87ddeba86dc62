// GPU test of warpgroup indexing and election (runtime/sched2cu/warpgroup.cuh): warpgroup_idx,
// elect_one_sync (exactly one lane per warp) and warpgroup_elect_one (one thread per group).
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

__global__ void elect_kernel(int* counts) {
  if (elect_one_sync()) atomicAdd(&counts[threadIdx.x / 32], 1);
  if (warpgroup_elect_one()) atomicAdd(&counts[32 + warpgroup_idx()], 1);
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  {
    int* d;
    RT_CHECK(cudaMalloc(&d, 64 * 4));
    RT_CHECK(cudaMemset(d, 0, 64 * 4));
    rt_test::launch_sync([&] { elect_kernel<<<1, 384>>>(d); }, "elect_kernel");
    std::vector<int> h(64);
    RT_CHECK(cudaMemcpy(h.data(), d, 64 * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int w = 0; w < 12; ++w) ok = ok && h[w] == 1;
    for (int g = 0; g < 3; ++g) ok = ok && h[32 + g] == 1;
    RT_CHECK(cudaFree(d));
    res.check(ok, "elect_one_sync / warpgroup_elect_one / warpgroup_idx");
  }
  return res.exit_code();
}
