// Hand-written Hopper kernel for case7: the weight and bias gradients of a linear layer, from
// dout[M, K_OUT] and act[M, N_IN] (row-major f16):
//   dW[K_OUT, N_IN] = f16(doutᵀ · act)  (f32 accumulate, contraction over M)
//   db[K_OUT]       = Σ_m f32(dout[m, :])  (f32)
// Persistent: grid = one CTA per SM (at most one per tile); CTA p walks the 128x128 dW tiles
// p, p + grid, ... in kernel.py's grouped order (GROUP_K = 8 tile-rows of K_OUT per group).
// Warp specialized: one producer warpgroup (one elected thread issues TMA into a 6-deep ring of
// 64-row M steps, 32 KB each: the dout tile [64 m][128 k_out] and the act tile [64 m][128 n], as
// two 128B-swizzled 64x64 boxes each; the ring counter continues across tiles) and two consumer
// warpgroups. Consumer c owns dW rows 64c..64c+63 of the tile, i.e. dout columns 64c..64c+63,
// which are exactly dout box c: wgmma m64n128k16 with A = doutᵀ read from that box as an
// MN-major operand (the box is [K = 64 m][M = 64 k_out], k_out contiguous) and B = the act tile
// [K = 64 m][N = 128 n], MN-major too.
//
// db, in tiles with pid_n == 0 only (a uniform branch per tile): the same consumer reads its own
// dout box with 16-byte shared loads after issuing the step's wgmmas and before releasing the
// slot, and keeps 8 f32 column sums per thread in registers across the whole M loop. Warp q of
// the consumer owns the 16 columns 16q..16q+15 of the box (lane parity picks one 8-column half,
// lane / 2 one of 16 row groups), so the sums are reduced once per tile by 4 xor-shuffles within
// the warp and written with plain stores; no shared-memory scratch and no cross-warp barrier.
// The rows a quarter-warp reads are chosen so that its 8 accesses fall in 8 different 16-byte
// bank groups under the 128B swizzle (no bank conflicts).
//
// Epilogue: dW through 64x64 f16 staging boxes (two per consumer, 128B swizzle) and TMA stores
// that drain while the next tile's main loop runs (like case2). Edges: TMA zero-fills the boxes
// past M, K_OUT or N_IN (so partial M steps add zeros to dW and db) and clips the dW stores; db
// stores are masked at K_OUT (a multiple of 8, so an 8-column group is all in or all out).
// Uses only the sched2cu runtime headers; must never contain PTX.
#include <cuda_runtime.h>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

namespace {

using namespace sched2cu::rt;

#ifndef SCHED2CU_HW_TILE_N
#define SCHED2CU_HW_TILE_N 128
#endif

constexpr int kTileK = 128;                  // dW rows (K_OUT) per tile: BLOCK_K
constexpr int kTileN = SCHED2CU_HW_TILE_N;   // dW columns (N_IN) per tile: BLOCK_N
constexpr int kStepM = 64;                   // rows of M per ring stage (the contraction step): BLOCK_M
constexpr int kGroupK = 8;                   // GROUP_K
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kNBoxes = kTileN / 64;  // 64-column boxes of an act tile and of a dW staging row
constexpr uint32_t kBox = 64 * 64 * 2;                     // one 64x64 f16 box (128 B rows), 8 KB
constexpr uint32_t kStageBytes = (2 + kNBoxes) * kBox;     // dout boxes 0, 1 then the act boxes
constexpr uint32_t kCBytes = kConsumers * kNBoxes * kBox;  // dW staging: a row of boxes per consumer
static_assert(kTileN % 64 == 0 && kTileN <= 256, "act tiles are whole 64-column boxes, N <= 256");
#ifndef SCHED2CU_HW_STAGES
// The deepest ring (at most 6) that fits beside the staging: 6 at 128 columns, 3 at 256.
#define SCHED2CU_HW_STAGES \
  ((227 * 1024 - 1024 - 128 - kCBytes) / kStageBytes < 6 ? (227 * 1024 - 1024 - 128 - kCBytes) / kStageBytes : 6)
#endif
constexpr int kStages = SCHED2CU_HW_STAGES;
constexpr uint32_t kSmemBytes = kStages * kStageBytes + kCBytes + sizeof(Ring<kStages>);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;
static_assert(kSmemAlloc <= 227 * 1024, "fits the opt-in shared memory of one H100/H200 CTA");
static_assert(kTileK == 64 * kConsumers, "consumer c owns dout box c");

struct Tile {
  int k, n;
};

// kernel.py's grouped order: kGroupK tile-rows (of K_OUT) per group, pid_k fastest.
__device__ __forceinline__ Tile tile_coords(int t, int tiles_k, int tiles_n) {
  const int per_group = kGroupK * tiles_n;
  const int first = (t / per_group) * kGroupK;
  const int gsize = min(tiles_k - first, kGroupK);
  const int r = t % per_group;
  return {first + r % gsize, r / gsize};
}

// Adds the 8 f16 of a 16-byte shared-memory run to 8 f32 sums.
__device__ __forceinline__ void add_run(float (&s)[8], const uint8_t* p) {
  union {
    uint4 u;
    __half2 h[4];
  } w;
  w.u = *reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float2 f = __half22float2(w.h[q]);
    s[2 * q] += f.x;
    s[2 * q + 1] += f.y;
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    wgrad_bias_kernel(const __grid_constant__ CUtensorMap map_dout,
                      const __grid_constant__ CUtensorMap map_act,
                      const __grid_constant__ CUtensorMap map_dw, float* __restrict__ db, int M,
                      int K_OUT, int N_IN) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* sc = smem + kStages * kStageBytes;
  auto* ring = reinterpret_cast<Ring<kStages>*>(sc + kCBytes);

  const int wg = warpgroup_idx();
  if (threadIdx.x == 0) {
    // full: the producer's arm + kStageBytes; empty: lane 0 of every consumer warp.
    ring->init(1, 4 * kConsumers);
    mbar_fence_init();
  }
  __syncthreads();

  const int tiles_k = (K_OUT + kTileK - 1) / kTileK, tiles_n = (N_IN + kTileN - 1) / kTileN;
  const int tiles = tiles_k * tiles_n;
  const int m_steps = (M + kStepM - 1) / kStepM;

  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (warp_idx_in_warpgroup() == 0 && elect_one_sync()) {
      tma_prefetch_desc(&map_dout);
      tma_prefetch_desc(&map_act);
      uint32_t it = 0;
      for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
        const Tile tc = tile_coords(t, tiles_k, tiles_n);
        const int k0 = tc.k * kTileK, n0 = tc.n * kTileN;
        for (int m = 0; m < m_steps; ++m, ++it) {
          uint8_t* st = smem + Ring<kStages>::slot(it) * kStageBytes;
          uint64_t* bar = ring->full_bar(it);
          const int m0 = m * kStepM;
          ring->wait_empty(it);
          ring->arm(it, kStageBytes);
          tma_load_2d(st, &map_dout, bar, k0, m0);
          tma_load_2d(st + kBox, &map_dout, bar, k0 + 64, m0);
#pragma unroll
          for (int j = 0; j < kNBoxes; ++j)
            tma_load_2d(st + (2 + j) * kBox, &map_act, bar, n0 + 64 * j, m0);
        }
      }
    }
  } else {
    setmaxnreg_inc<232>();
    const int c = wg - 1;  // consumer index: dW rows 64c .. 64c+63 of the tile = dout box c
    AccTile<64, kTileN> acc;
    uint8_t* cbuf = sc + c * kNBoxes * kBox;
    const bool leader = thread_idx_in_warpgroup() == 0;
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = warp_idx_in_warpgroup();
    const int bar_id = 1 + c;
    if (leader) tma_prefetch_desc(&map_dw);
    // db reads: logical 16-byte run `run` (box columns 8*run .. 8*run+7) of box rows
    // row0 + 16*j, j = 0..3. Rows of a quarter-warp (lanes 8p .. 8p+7, i = lane/2 in 4p..4p+3)
    // are all even or all odd: (row & 7) is {0,2,4,6} or {1,3,5,7} and the two runs differ in
    // bit 0, so the swizzled runs run ^ (row & 7) are 8 distinct bank groups.
    const int run = 2 * warp + (lane & 1);
    const int i = lane >> 1;
    const uint32_t row0 = static_cast<uint32_t>(((i & 7) << 1) + (i >> 3));
    // (row & 7) is the same for row0 + 16*j, so run j is 16*j rows = 2048 bytes further on.
    const uint32_t db_off = swizzle_offset<128, 128>(row0, static_cast<uint32_t>(16 * run));
    uint32_t it = 0;
    for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
      const Tile tc = tile_coords(t, tiles_k, tiles_n);
      const int k0 = tc.k * kTileK, n0 = tc.n * kTileN;
      const bool do_db = tc.n == 0;  // uniform over the CTA
      float dbs[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) dbs[q] = 0.f;
      for (int m = 0; m < m_steps; ++m, ++it) {
        const uint8_t* st = smem + Ring<kStages>::slot(it) * kStageBytes;
        const uint8_t* dbox = st + c * kBox;
        ring->wait_full(it);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kStepM / 16; ++ks) {
          wgmma_ss<kTileN, __half, __half, Major::MN, Major::MN>(
              acc.v[0], wgmma_desc_mn<128, kStepM>(dbox, ks),
              wgmma_desc_mn<128, kStepM>(st + 2 * kBox, ks), (m > 0 || ks > 0) ? 1 : 0);
        }
        wgmma_commit();
        wgmma_fence_operand(acc.v[0]);
        if (do_db) {
#pragma unroll
          for (int j = 0; j < 4; ++j) add_run(dbs, dbox + db_off + 2048u * j);
        }
        // At most one group in flight: the MMAs of step m - 1 are done reading; every lane's
        // db loads of that slot came before the __syncwarp, and lane 0's arrive releases it.
        wgmma_wait<1>();
        wgmma_fence_operand(acc.v[0]);
        if (m >= 1) {
          __syncwarp();
          if (lane == 0) ring->release(it - 1);
        }
      }
      wgmma_wait<0>();
      wgmma_fence_operand(acc.v[0]);
      __syncwarp();
      if (lane == 0) ring->release(it - 1);

      // dW epilogue: kNBoxes column chunks of 64, one box each; the wait before reuse covers
      // the previous tile's stores, which overlapped this tile's main loop.
#pragma unroll
      for (int ch = 0; ch < kNBoxes; ++ch) {
        uint8_t* box = cbuf + ch * kBox;
        if (leader) tma_wait_read<kNBoxes - 1>();  // box ch's store of the previous tile
        warpgroup_sync(bar_id);
        acc_store_box<__half, 128, 64>(box, acc, 0, 64 * ch, 0);
        fence_proxy_async();
        warpgroup_sync(bar_id);
        if (leader) {
          tma_store_2d(&map_dw, box, n0 + 64 * ch, k0 + 64 * c);
          tma_commit();
        }
      }

      if (do_db) {
        // Lanes of one parity hold the same 8 columns for 16 row groups: reduce over lane bits
        // 1..4, then lanes 0 and 1 store their 8 columns.
#pragma unroll
        for (int o = 2; o < 32; o *= 2)
#pragma unroll
          for (int q = 0; q < 8; ++q) dbs[q] += __shfl_xor_sync(0xffffffffu, dbs[q], o);
        const int col = k0 + 64 * c + 8 * run;
        if (lane < 2 && col < K_OUT) {
          float4* p = reinterpret_cast<float4*>(db + col);
          p[0] = make_float4(dbs[0], dbs[1], dbs[2], dbs[3]);
          p[1] = make_float4(dbs[4], dbs[5], dbs[6], dbs[7]);
        }
      }
    }
    if (leader) tma_wait<0>();
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

// Args: (dout_ptr, act_ptr, dw_ptr, db_ptr, M, K_OUT, N_IN).
extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 7) return cudaErrorInvalidValue;
  void* dout = args[0].ptr;
  void* act = args[1].ptr;
  void* dw = args[2].ptr;
  void* db = args[3].ptr;
  const long long M = args[4].i, K = args[5].i, N = args[6].i;
  // TMA needs 16-byte aligned bases and row strides (K_OUT, N_IN multiples of 8); the db stores
  // are 16-byte vectors. Tails of M, K_OUT and N_IN are handled by TMA bounds.
  if (M < 0 || K < 0 || N < 0 || K % 8 != 0 || N % 8 != 0 || M > (1 << 30) || K > (1 << 30) ||
      N > (1 << 30))
    return cudaErrorInvalidValue;
  if (dout == nullptr || act == nullptr || dw == nullptr || db == nullptr ||
      (reinterpret_cast<uintptr_t>(dout) | reinterpret_cast<uintptr_t>(act) |
       reinterpret_cast<uintptr_t>(dw) | reinterpret_cast<uintptr_t>(db)) %
              16 !=
          0)
    return cudaErrorInvalidValue;
  // An empty tensor: a tensor map cannot describe it. With K_OUT = 0 or N_IN = 0 no program has
  // a tile, so nothing is written; M = 0 (dW = 0, db = 0 to be written) is refused rather than
  // left unwritten (the generated launcher does the same; docs/abi.md).
  if (M == 0) return cudaErrorInvalidValue;
  if (K == 0 || N == 0) return cudaSuccess;

  CUtensorMap map_dout, map_act, map_dw;
  cudaError_t e;
  const auto f16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if ((e = tma_make_map_2d(&map_dout, f16, 2, dout, M, K, K, kStepM, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_act, f16, 2, act, M, N, N, kStepM, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_dw, f16, 2, dw, K, N, N, 64, 64, TmaSwizzle::b128)) != cudaSuccess)
    return e;

  // One CTA per SM, queried once per device.
  static int cached_dev = -1, max_ctas = 0;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if (cached_dev != dev) {
    if ((e = cudaFuncSetAttribute(wgrad_bias_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    int sms = 0;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return e;
    if (sms <= 0) return cudaErrorInvalidValue;
    max_ctas = sms;
    cached_dev = dev;
  }
  const long long tiles = ((K + kTileK - 1) / kTileK) * ((N + kTileN - 1) / kTileN);
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
  // Fewer tiles than SMs: one CTA per tile, the same assignment as a grid of one CTA per SM.
  const long long grid = tiles < max_ctas ? tiles : max_ctas;
  wgrad_bias_kernel<<<static_cast<unsigned>(grid), kThreads, kSmemAlloc, stream>>>(
      map_dout, map_act, map_dw, static_cast<float*>(db), static_cast<int>(M), static_cast<int>(K),
      static_cast<int>(N));
  return cudaGetLastError();
}
