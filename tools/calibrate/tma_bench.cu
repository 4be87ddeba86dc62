// Micro-benchmark: TMA (cp.async.bulk.tensor) load latency and throughput per tile size on sm_90a,
// printed as JSON lines for targets/sm_90a.json (docs/target_model.md). Three measurements per
// tile: unloaded latency (one SM, one load in flight, L2-resident source), per-SM throughput
// (one SM, `depth` loads in flight), and loaded latency percentiles (every SM streaming distinct
// tiles from HBM, `depth` in flight each: the tail that sizes ring depth). Never used by the
// tools at run time; the lead runs it on the H200 (tools/calibrate/run.sh).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int kMaxDepth = 8;
constexpr int kSamples = 256;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bar_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void load_tile(const CUtensorMap* map, void* dst,
                                          unsigned long long* bar, int x, int y, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned phase) {
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(phase)
      : "memory");
}

// One elected thread per block keeps `depth` loads in flight over `iters` tiles, walking rows
// `rows_per_tile` apart starting at a block-specific offset; per-load issue->complete cycles of
// the first kSamples loads go to lat[block][i], total cycles to total[block].
__global__ void tma_loop(const __grid_constant__ CUtensorMap map, int rows_per_tile, int rows_total,
                         int depth, int iters, unsigned bytes, long long* lat, long long* total) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ unsigned long long bars[kMaxDepth];
  if (threadIdx.x != 0) return;
  for (int i = 0; i < depth; ++i) bar_init(&bars[i]);
  long long issued[kMaxDepth];
  int row0 = (blockIdx.x * 7919 * rows_per_tile) % rows_total;
  long long t0 = clock64();
  for (int i = 0; i < iters + depth; ++i) {
    int slot = i % depth;
    if (i >= depth) {  // retire the load issued depth iterations ago
      int j = i - depth;
      wait_phase(&bars[slot], (j / depth) & 1);
      long long now = clock64();
      if (j < kSamples) lat[blockIdx.x * kSamples + j] = now - issued[slot];
    }
    if (i < iters) {
      int row = (row0 + i * rows_per_tile) % (rows_total - rows_per_tile + 1);
      issued[slot] = clock64();
      load_tile(&map, smem + slot * bytes, &bars[slot], 0, row, bytes);
    }
  }
  total[blockIdx.x] = clock64() - t0;
}

typedef CUresult (*EncodeFn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                             const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                             const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main() {
  int dev = 0, major = 0, sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  if (major != 9) {
    std::fprintf(stderr, "needs an sm_90 GPU\n");
    return 77;
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &q));
  auto encode = reinterpret_cast<EncodeFn>(fn);
  const cuuint64_t cols = 64;                  // f16: 128-byte rows, the 128B swizzle span
  const cuuint64_t rows = (1ull << 30) / 128;  // 1 GiB: far beyond L2 for the loaded run
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, rows * cols * 2));
  CHECK(cudaMemset(buf, 0, rows * cols * 2));
  long long *lat = nullptr, *total = nullptr;
  CHECK(cudaMalloc(&lat, sizeof(long long) * kSamples * sms));
  CHECK(cudaMalloc(&total, sizeof(long long) * sms));
  CHECK(cudaFuncSetAttribute(tma_loop, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (int tile_rows : {64, 128, 256}) {
    const unsigned bytes = static_cast<unsigned>(tile_rows * cols * 2);
    CUtensorMap map;
    cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * 2};
    cuuint32_t box[2] = {static_cast<cuuint32_t>(cols), static_cast<cuuint32_t>(tile_rows)};
    cuuint32_t estr[2] = {1, 1};
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf, dims, strides, box, estr,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
      return 1;
    }
    auto run = [&](int blocks, int rows_total, int depth, int iters) {
      tma_loop<<<blocks, 32, depth * bytes>>>(map, tile_rows, rows_total, depth, iters, bytes, lat,
                                              total);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::vector<long long> l(static_cast<size_t>(blocks) * kSamples), t(blocks);
      CHECK(cudaMemcpy(l.data(), lat, l.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(t.data(), total, t.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      return std::make_pair(l, t);
    };
    const int l2_rows = tile_rows * 16;  // a 16-tile window: L2-resident after the first pass
    run(1, l2_rows, 1, 64);              // warm L2
    auto [l1, t1] = run(1, l2_rows, 1, kSamples);
    std::sort(l1.begin(), l1.end());
    const int depth = std::min(kMaxDepth, static_cast<int>((192 * 1024) / bytes));
    auto [l2, t2] = run(1, l2_rows, depth, 4096);
    double bpc_l2 = 4096.0 * bytes / static_cast<double>(t2[0]);
    auto [l3, t3] = run(sms, static_cast<int>(rows), depth, 4096);
    std::vector<long long> all(l3);
    std::sort(all.begin(), all.end());
    long long tmax = *std::max_element(t3.begin(), t3.end());
    double bpc_hbm = 4096.0 * bytes / static_cast<double>(tmax);
    auto pct = [](const std::vector<long long>& v, double p) {
      return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
    };
    std::printf(
        "{\"bench\": \"tma_load\", \"tile\": \"%dx64xf16\", \"kb\": %u, "
        "\"latency_unloaded_p50\": %lld, \"latency_unloaded_p90\": %lld, "
        "\"bytes_per_clk_sm_l2\": %.1f, \"in_flight\": %d, "
        "\"latency_loaded_p50\": %lld, \"latency_loaded_p90\": %lld, "
        "\"latency_loaded_p99\": %lld, \"bytes_per_clk_sm_hbm\": %.1f, \"sms\": %d, "
        "\"clock_mhz\": %d}\n",
        tile_rows, bytes / 1024, pct(l1, 0.5), pct(l1, 0.9), bpc_l2, depth, pct(all, 0.5),
        pct(all, 0.9), pct(all, 0.99), bpc_hbm, sms, clock_khz / 1000);
  }
  CHECK(cudaFree(buf));
  return 0;
}
