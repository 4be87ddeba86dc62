// Hand-written Hopper GEMM for case2: persistent C = A·B, f16 in/out, f32 accumulate; A MxK
// row-major, B KxN row-major (MN-major for wgmma), C MxN row-major. Grid = as many CTAs as
// can be resident (one per SM, in clusters of kCluster along M); each cluster walks a static
// schedule of (kCluster*128) x 256 super-tiles in grouped order. Warp specialized: one producer
// warpgroup (one elected thread issues TMA into a 4-deep ring whose counter continues across
// tiles, so it prefetches tile t+1 while the consumers finish tile t; the B tile is shared by
// the cluster through TMA multicast, each CTA loading half) and two consumer warpgroups (64
// rows each, wgmma m64n256k16). The epilogue writes swizzled shared memory and issues
// asynchronous TMA stores that drain while the main loop of the next tile runs.
// Uses only the sched2cu runtime headers; must never contain PTX.
#include <cuda_runtime.h>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

#ifndef SCHED2CU_HW_CLUSTER
#define SCHED2CU_HW_CLUSTER 2
#endif

namespace {

using namespace sched2cu::rt;

#ifndef SCHED2CU_HW_GROUP_M
#define SCHED2CU_HW_GROUP_M 16
#endif

// Tuning knobs (defaults are the measured configuration; see docs/notes/gemm_tuning.md).
// SCHED2CU_HW_BK: K extent of one ring stage (64: 128B-swizzled A rows; 32: 64B-swizzled A
// rows, twice the stages in the same shared memory). SCHED2CU_HW_WAIT: wgmma groups left in
// flight before a slot is released (0 or 1).
#ifndef SCHED2CU_HW_BK
#define SCHED2CU_HW_BK 64
#endif
#ifndef SCHED2CU_HW_STAGES
#define SCHED2CU_HW_STAGES 4
#endif
#ifndef SCHED2CU_HW_WAIT
#define SCHED2CU_HW_WAIT 1
#endif
// SCHED2CU_HW_DRAIN_READ: 1 = before exit, wait only until the TMA stores have READ their
// shared-memory source (global writes still complete before the grid does); 0 = wait for the
// global writes too.
#ifndef SCHED2CU_HW_DRAIN_READ
#define SCHED2CU_HW_DRAIN_READ 0
#endif

constexpr int kBM = 128, kBN = 256, kBK = SCHED2CU_HW_BK, kStages = SCHED2CU_HW_STAGES;
constexpr int kGroupM = SCHED2CU_HW_GROUP_M, kWait = SCHED2CU_HW_WAIT;
constexpr int kASwz = kBK * 2;  // A rows are one swizzle span wide
static_assert(kASwz == 128 || kASwz == 64, "BK is 64 or 32 (f16)");
static_assert(kWait == 0 || kWait == 1, "wgmma wait depth 0 or 1");
constexpr int kCluster = SCHED2CU_HW_CLUSTER;  // CTAs per cluster, stacked along M
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kABytes = kBM * kBK * 2;           // 16 KB
constexpr uint32_t kBBox = kBK * 64 * 2;              // one [BK][64 N] box
constexpr uint32_t kBBytes = kBK * kBN * 2;           // 32 KB: 4 boxes
constexpr uint32_t kCBox = 64 * 64 * 2;               // one 64x64 f16 epilogue box
constexpr uint32_t kCBytes = kConsumers * 2 * kCBox;  // double-buffered per consumer
constexpr uint32_t kSmemBytes = kStages * (kABytes + kBBytes) + kCBytes + sizeof(Ring<kStages>);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;
static_assert(kCluster == 1 || kCluster == 2 || kCluster == 4, "cluster of 1, 2 or 4 CTAs");
static_assert((kBN / 64) % kCluster == 0, "B boxes split evenly over the cluster");

struct Tile {
  int m, n;
};

// Grouped order over super-tiles (kCluster tile-rows x 1 tile-column) so concurrent clusters
// share A and B in L2; returns the super-tile's first tile-row and its tile-column.
__device__ __forceinline__ Tile super_coords(int t, int super_m, int tiles_n) {
  constexpr int kGroup = kGroupM / kCluster;
  const int per_group = kGroup * tiles_n;
  const int first = (t / per_group) * kGroup;
  const int gsize = min(super_m - first, kGroup);
  const int r = t % per_group;
  return {(first + r % gsize) * kCluster, r / gsize};
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int M, int N, int K) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* sa = smem;
  uint8_t* sb = sa + kStages * kABytes;
  uint8_t* sc = sb + kStages * kBBytes;
  auto* ring = reinterpret_cast<Ring<kStages>*>(sc + kCBytes);

  const int wg = warpgroup_idx();
  const uint32_t rank = kCluster > 1 ? cluster_ctarank() : 0;
  if (threadIdx.x == 0) {
    // full: the local producer's arm + 48 KB (own A, own and peers' B boxes); empty: one
    // arrival per consumer warp of every CTA in the cluster (their producers write here too).
    ring->init(1, 4 * kConsumers * kCluster);
    mbar_fence_init();
  }
  if constexpr (kCluster > 1)
    cluster_sync();
  else
    __syncthreads();

  const int tiles_m = (M + kBM - 1) / kBM, tiles_n = (N + kBN - 1) / kBN;
  const int super_m = (tiles_m + kCluster - 1) / kCluster;
  const int supers = super_m * tiles_n;
  const int k_tiles = (K + kBK - 1) / kBK;
  const int cid = static_cast<int>(blockIdx.x) / kCluster;
  const int nclusters = static_cast<int>(gridDim.x) / kCluster;

  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (warp_idx_in_warpgroup() == 0 && elect_one_sync()) {
      tma_prefetch_desc(&map_a);
      tma_prefetch_desc(&map_b);
      uint32_t it = 0;
      for (int t = cid; t < supers; t += nclusters) {
        const Tile st = super_coords(t, super_m, tiles_n);
        const int m0 = (st.m + static_cast<int>(rank)) * kBM, n0 = st.n * kBN;
        for (int k = 0; k < k_tiles; ++k, ++it) {
          const uint32_t s = Ring<kStages>::slot(it);
          ring->wait_empty(it);
          ring->arm(it, kABytes + kBBytes);
          tma_load_2d(sa + s * kABytes, &map_a, ring->full_bar(it), k * kBK, m0);
#pragma unroll
          for (int jj = 0; jj < kBN / 64 / kCluster; ++jj) {
            const int j = static_cast<int>(rank) * (kBN / 64 / kCluster) + jj;
            if constexpr (kCluster > 1)
              tma_load_2d_multicast(sb + s * kBBytes + j * kBBox, &map_b, ring->full_bar(it),
                                    n0 + 64 * j, k * kBK, (1u << kCluster) - 1);
            else
              tma_load_2d(sb + s * kBBytes + j * kBBox, &map_b, ring->full_bar(it), n0 + 64 * j,
                          k * kBK);
          }
        }
      }
    }
  } else {
    setmaxnreg_inc<232>();
    const int c = wg - 1;  // consumer index: rows 64c .. 64c+63 of the tile
    AccTile<64, kBN> acc;
    uint8_t* cbuf = sc + c * 2 * kCBox;
    const bool leader = thread_idx_in_warpgroup() == 0;
    const bool lane0 = (threadIdx.x % 32) == 0;
    const int bar_id = 1 + c;
    // Releases slot `it` in every CTA of the cluster (each CTA's producer writes into it).
    auto release = [&](uint32_t it) {
      if (!lane0) return;
      if constexpr (kCluster > 1) {
#pragma unroll
        for (int r = 0; r < kCluster; ++r) mbar_arrive_cluster(ring->empty_bar(it), r);
      } else {
        ring->release(it);
      }
    };
    uint32_t it = 0;
    for (int t = cid; t < supers; t += nclusters) {
      const Tile st = super_coords(t, super_m, tiles_n);
      const int m0 = (st.m + static_cast<int>(rank)) * kBM, n0 = st.n * kBN;
      for (int k = 0; k < k_tiles; ++k, ++it) {
        const uint32_t s = Ring<kStages>::slot(it);
        ring->wait_full(it);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kBK / 16; ++ks) {
          wgmma_ss<kBN, __half, __half, Major::K, Major::MN>(
              acc.v[0], wgmma_desc_k<kASwz, 64>(sa + s * kABytes + c * (64 * kASwz), ks),
              wgmma_desc_mn<128, kBK>(sb + s * kBBytes, ks), (k > 0 || ks > 0) ? 1 : 0);
        }
        wgmma_commit();
        wgmma_fence_operand(acc.v[0]);
        // At most kWait groups in flight: the MMAs of stage k - kWait are done reading.
        wgmma_wait<kWait>();
        wgmma_fence_operand(acc.v[0]);
        if (k >= kWait) release(it - kWait);
      }
      wgmma_wait<0>();
      wgmma_fence_operand(acc.v[0]);
      if constexpr (kWait > 0) {
        release(it - 1);
      }

      // Epilogue: 4 column chunks of 64, double-buffered boxes, one TMA store each. The wait
      // before reuse covers the previous tile's stores too; they overlap this tile's main loop.
#pragma unroll
      for (int ch = 0; ch < kBN / 64; ++ch) {
        uint8_t* box = cbuf + (ch % 2) * kCBox;
        if (leader) tma_wait_read<1>();
        warpgroup_sync(bar_id);
        acc_store_box<__half, 128, 64>(box, acc, 0, 64 * ch, 0);
        fence_proxy_async();
        warpgroup_sync(bar_id);
        if (leader) {
          tma_store_2d(&map_c, box, n0 + 64 * ch, m0 + 64 * c);
          tma_commit();
        }
      }
    }
    if (leader) {
      if constexpr (SCHED2CU_HW_DRAIN_READ)
        tma_wait_read<0>();
      else
        tma_wait<0>();
    }
  }
  // No CTA may leave while a peer can still multicast into it or arrive on its barriers.
  if constexpr (kCluster > 1) cluster_sync();
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 6) return cudaErrorInvalidValue;
  void* a = args[0].ptr;
  void* b = args[1].ptr;
  void* c = args[2].ptr;
  const long long M = args[3].i, N = args[4].i, K = args[5].i;
  // TMA needs 16-byte aligned bases and row strides; M/N/K tails are handled by TMA bounds.
  if (M <= 0 || N <= 0 || K <= 0 || N % 8 != 0 || K % 8 != 0 || M > (1 << 30) || N > (1 << 30) ||
      K > (1 << 30))
    return cudaErrorInvalidValue;
  if ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
       reinterpret_cast<uintptr_t>(c)) %
          16 !=
      0)
    return cudaErrorInvalidValue;

  CUtensorMap map_a, map_b, map_c;
  cudaError_t e;
  const auto f16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if ((e = tma_make_map_2d(&map_a, f16, 2, a, M, K, K, kBM, kBK, static_cast<TmaSwizzle>(kASwz))) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_b, f16, 2, b, K, N, N, kBK, 64, TmaSwizzle::b128)) != cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_c, f16, 2, c, M, N, N, 64, 64, TmaSwizzle::b128)) != cudaSuccess)
    return e;

  // Resident clusters, queried once per device (one CTA per SM; clusters may not tile every
  // SM, so ask the occupancy API rather than assume SM count / kCluster).
  static int cached_dev = -1, max_ctas = 0;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kCluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.blockDim = dim3(kThreads, 1, 1);
  cfg.dynamicSmemBytes = kSmemAlloc;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  if (cached_dev != dev) {
    if ((e = cudaFuncSetAttribute(gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    int sms = 0;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return e;
    int clusters = sms / kCluster;
    if constexpr (kCluster > 1) {
      cfg.gridDim = dim3(static_cast<unsigned>(sms / kCluster * kCluster), 1, 1);
      if ((e = cudaOccupancyMaxActiveClusters(&clusters, gemm_kernel, &cfg)) != cudaSuccess)
        return e;
    }
    if (clusters <= 0) return cudaErrorInvalidValue;
    max_ctas = clusters * kCluster;
    cached_dev = dev;
  }
  const long long tiles_m = (M + kBM - 1) / kBM, tiles_n = (N + kBN - 1) / kBN;
  const long long ctas_needed = (tiles_m + kCluster - 1) / kCluster * kCluster * tiles_n;
  if (ctas_needed > 0x7fffffffLL) return cudaErrorInvalidValue;
  const long long grid = ctas_needed < max_ctas ? ctas_needed : max_ctas;
  cfg.gridDim = dim3(static_cast<unsigned>(grid), 1, 1);
  e = cudaLaunchKernelEx(&cfg, gemm_kernel, map_a, map_b, map_c, static_cast<int>(M),
                         static_cast<int>(N), static_cast<int>(K));
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}
