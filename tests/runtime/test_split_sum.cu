// GPU test of split_sum (runtime/sched2cu/cluster.cuh): the register values of every thread
// position summed across the CTAs of a cluster into its first CTA, for clusters of 1, 2 and 4,
// a region that holds every word in one round and one that needs several, and two calls in a
// row (the barriers' second phase). Values that do not fit in one round and whose word count is
// no multiple of 4 are part of the check.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

constexpr int kThreads = 256;
struct Big {
  float v[64];
};
struct Small {
  float v[6];
};
constexpr int kWords = 70;

__device__ float value_of(uint32_t rank, int tid, int w, int call) {
  return static_cast<float>((rank + 1) * 1000 + tid) * 0.25f + static_cast<float>(w * (call + 1));
}

// out[call][cta][tid][w]: every CTA's values after the call.
template <unsigned kRegion>
__global__ void __launch_bounds__(kThreads) split_kernel(float* out) {
  extern __shared__ __align__(16) uint8_t region[];  // kRegion bytes (dynamic)
  __shared__ SplitBars bars;
  const uint32_t n = cluster_nctarank(), rank = cluster_ctarank();
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    bars.init(n, kThreads);
    mbar_fence_init();
  }
  __syncthreads();
  if (n > 1) cluster_sync();
  uint32_t phase = 0;
  for (int call = 0; call < 2; ++call) {
    Big a;
    Small b;
#pragma unroll
    for (int w = 0; w < 64; ++w) a.v[w] = value_of(rank, tid, w, call);
#pragma unroll
    for (int w = 0; w < 6; ++w) b.v[w] = value_of(rank, tid, 64 + w, call);
    split_sum<kThreads, kRegion>(&bars, region, rank, n, static_cast<uint32_t>(tid), 1, phase, a,
                                 b);
    float* o =
        out + ((static_cast<size_t>(call) * gridDim.x + blockIdx.x) * kThreads + tid) * kWords;
#pragma unroll
    for (int w = 0; w < 64; ++w) o[w] = a.v[w];
#pragma unroll
    for (int w = 0; w < 6; ++w) o[64 + w] = b.v[w];
  }
}

template <unsigned kRegion>
bool run(int n, int clusters) {
  const int ctas = n * clusters;
  const size_t count = 2ull * ctas * kThreads * kWords;
  float* d = nullptr;
  RT_CHECK(cudaMalloc(&d, count * sizeof(float)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ctas));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = kRegion;
  RT_CHECK(cudaFuncSetAttribute(split_kernel<kRegion>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(kRegion)));
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(n);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  rt_test::launch_sync([&] { RT_CHECK(cudaLaunchKernelEx(&cfg, split_kernel<kRegion>, d)); },
                       "split_kernel");
  std::vector<float> h(count);
  RT_CHECK(cudaMemcpy(h.data(), d, count * sizeof(float), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d));
  auto host_value = [](int rank, int tid, int w, int call) {
    return static_cast<float>((rank + 1) * 1000 + tid) * 0.25f + static_cast<float>(w * (call + 1));
  };
  bool ok = true;
  for (int call = 0; call < 2; ++call)
    for (int cta = 0; cta < ctas; ++cta)
      for (int tid = 0; tid < kThreads; ++tid)
        for (int w = 0; w < kWords; ++w) {
          const int rank = cta % n;
          double want = host_value(rank, tid, w, call);
          if (rank == 0) {
            want = 0;
            for (int r = 0; r < n; ++r) want += host_value(r, tid, w, call);
          }
          const float got =
              h[((static_cast<size_t>(call) * ctas + cta) * kThreads + tid) * kWords + w];
          if (std::fabs(got - want) > 1e-3 * std::fabs(want) + 1e-3) {
            if (ok)
              std::printf("  cluster %d, cta %d, tid %d, word %d, call %d: %f, want %f\n", n, cta,
                          tid, w, call, got, want);
            ok = false;
          }
        }
  return ok;
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  constexpr unsigned kOneRound = kThreads * kWords * 4;  // 71680 B: every word at once
  constexpr unsigned kRounds = kThreads * 16 * 4;        // 16 words per thread: 5 rounds
  res.check(run<kRounds>(1, 3), "cluster of 1: values unchanged");
  res.check(run<kRounds>(2, 4), "cluster of 2, 5 rounds, two calls");
  res.check(run<kRounds>(4, 2), "cluster of 4, 5 rounds, two calls");
  res.check(run<kOneRound>(2, 8), "cluster of 2, one round, two calls");
  return res.exit_code();
}
