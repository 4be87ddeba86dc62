// Micro-benchmark: wgmma latency and throughput per N and dtype on sm_90a, printed as JSON
// entries for targets/sm_90a.json (docs/target_model.md). Operands are shared-memory
// descriptors over zeroed tiles (values do not affect timing). Never used by the tools at run
// time; the lead runs it on the H200 (tools/calibrate/run.sh).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "wgmma_kernels.inc"

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

__device__ __forceinline__ unsigned long long desc(const void* smem) {
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  // No swizzle; leading byte offset 128 B, stride byte offset 256 B (encoded >> 4).
  return (static_cast<unsigned long long>((addr & 0x3FFFF) >> 4)) |
         (static_cast<unsigned long long>(128 >> 4) << 16) |
         (static_cast<unsigned long long>(256 >> 4) << 32);
}

__device__ __forceinline__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// Each warpgroup of the block issues `chain` wgmmas into one accumulator, `reps` times; a
// commit + wait after each chain. Cycles of the whole timed region go to out[blockIdx.x].
template <int N, void (*MMA)(float*, unsigned long long, unsigned long long)>
__global__ void bench(int chain, int reps, long long* out, float* sink) {
  __shared__ __align__(1024) unsigned char smem[64 * 1024];
  for (int i = threadIdx.x; i < 64 * 1024; i += blockDim.x) smem[i] = 0;
  __syncthreads();
  float acc[N / 2];
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
  unsigned long long da = desc(smem), db = desc(smem + 16384);
  __syncthreads();
  long long t0 = clock64();
  for (int r = 0; r < reps; ++r) {
    fence();
    for (int c = 0; c < chain; ++c) MMA(acc, da, db);
    commit();
    wait0();
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
  float s = 0;
  for (int i = 0; i < N / 2; ++i) s += acc[i];
  if (s == 12345.f) sink[threadIdx.x] = s;
}

template <int N, void (*MMA)(float*, unsigned long long, unsigned long long)>
void run(const char* dtype, int k, int flop_scale) {
  long long* d_out;
  float* sink;
  CHECK(cudaMalloc(&d_out, sizeof(long long)));
  CHECK(cudaMalloc(&sink, 1024 * sizeof(float)));
  auto time = [&](int wgs, int chain, int reps) {
    bench<N, MMA><<<1, 128 * wgs>>>(chain, reps, d_out, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long c = 0;
    CHECK(cudaMemcpy(&c, d_out, sizeof c, cudaMemcpyDeviceToHost));
    return static_cast<double>(c);
  };
  time(1, 1, 10);                                // warm up
  double lat = time(1, 1, 1000) / 1000.0;        // issue -> wait_group(0) returns
  double one = time(1, 32, 100) / (100.0 * 32);  // one warpgroup, back to back
  double two = time(2, 32, 100) / (100.0 * 32);  // two warpgroups share the SM
  double flop = 2.0 * 64 * N * k;
  std::printf(
      "{\"bench\": \"wgmma\", \"dtype\": \"%s\", \"shape\": \"m64n%dk%d\", "
      "\"latency_cycles\": %.1f, \"cycles_per_instr_1wg\": %.2f, "
      "\"cycles_per_instr_2wg\": %.2f, \"flop_per_clk_sm\": %.0f}\n",
      dtype, N, k, lat, one, two, 2.0 * flop / two);
  (void)flop_scale;
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(sink));
}

int main() {
  int dev = 0, major = 0;
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major != 9) {
    std::fprintf(stderr, "needs an sm_90 GPU\n");
    return 77;
  }
  run<64, wgmma_f16_n64>("f16", 16, 1);
  run<128, wgmma_f16_n128>("f16", 16, 1);
  run<256, wgmma_f16_n256>("f16", 16, 1);
  run<64, wgmma_bf16_n64>("bf16", 16, 1);
  run<128, wgmma_bf16_n128>("bf16", 16, 1);
  run<256, wgmma_bf16_n256>("bf16", 16, 1);
  run<64, wgmma_e4m3_n64>("f8E4M3FN", 32, 2);
  run<128, wgmma_e4m3_n128>("f8E4M3FN", 32, 2);
  run<256, wgmma_e4m3_n256>("f8E4M3FN", 32, 2);
  return 0;
}
