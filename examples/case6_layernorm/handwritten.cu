// Hand-written Hopper kernel for case6: LayerNorm forward over the rows of X[M, 512], f16 in and
// out, f32 math: mean = Σx/512, var = Σ(x − mean)²/512 (biased, two passes over the row held in
// registers), rstd = 1/sqrt(var + eps), y = (x − mean)·rstd·w + b. Same launch ABI as the
// generated kernel (README.md): X, W, B, Y, M, eps. Aimed at the HBM bandwidth limit: every byte
// of X is read once and every byte of Y written once, both by TMA.
//
// Persistent: grid = resident CTAs (SCHED2CU_HW_CTAS_PER_SM per SM, capped by the occupancy API
// and by the tile count); CTA c handles row tiles c, c + gridDim.x, ... (any grid is correct).
// A tile is kRows rows; TMA boxes are at most 256 elements wide, so X and Y are described to TMA
// as [2M][256] (each 512-column row is two 256-column rows): one box of 2·kRows × 256 is exactly
// kRows whole rows, row-major in shared memory, and rows past M are zero-filled on load and
// clipped on store by the tensor bounds (a zero row normalizes to y = b, finite, never stored).
//
// Roles (1 + kConsumers warps):
//   warp 0, one elected lane (producer): for each tile: ring.wait_empty; ring.arm(tile bytes);
//     tma_load_2d into the slot. The ring counter continues across tiles.
//   warps 1..kConsumers (consumers): consumer warp k owns rows k·kRowsPerWarp .. of every tile,
//     so a row lives in one warp and its reductions are warp shuffles (no cross-warp
//     reduction). Lane l holds columns 8l..8l+7 and 256+8l..256+8l+7 of each of its rows (two
//     16-byte shared loads per row, conflict-free), w and b for the same columns in registers
//     (loaded once). Per tile: ring.wait_full (every lane); load its rows; __syncwarp; lane 0
//     ring.release (the slot is free as soon as the rows are in registers); two butterfly
//     reductions (sum, then the centred sum of squares) interleaved over the warp's rows;
//     y packed to f16 into staging slot (it % kStaging) with 16-byte stores; fence_proxy_async;
//     the issuer (lane 0 of consumer warp 0) first waits until at most kStaging − 2 of its
//     stores still read shared memory (so the slot the next tile writes is free), then all
//     consumers meet on named barrier 1, then the issuer TMA-stores the slot and commits. One
//     barrier per tile orders both the writes of this tile before its store and the store of
//     tile it − kStaging + 1 before the writes of tile it + 1. The issuer drains its bulk
//     groups (tma_wait<0>) before exiting.
//
// Tunables (compile-time macros, defaults below): SCHED2CU_HW_ROWS rows per tile (8, kernel.py's
// BLOCK_M), SCHED2CU_HW_CONSUMERS consumer warps (4: two rows per warp, reduced together for
// instruction-level parallelism), SCHED2CU_HW_STAGES ring depth (8), SCHED2CU_HW_STAGING staging
// depth (3, at least 2), SCHED2CU_HW_CTAS_PER_SM (2), SCHED2CU_HW_GRID (0 = resident CTAs; a
// positive value forces that grid, for tests of uneven tile counts). Defaults: 160 threads,
// 79 registers and 89 KB of shared memory per CTA (8 + 3 tiles of 8 KB), two CTAs per SM.
//
// Accepts any M >= 1 (M = 0 launches nothing) up to 2^30 − 1 rows; X, W, B and Y must be 16-byte
// aligned (TMA and vector loads); anything else returns cudaErrorInvalidValue. Uses only the
// sched2cu runtime headers; must never contain PTX, and must never read or write a row past M.
#include <cuda_runtime.h>

#include <cstdint>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

namespace {

using namespace sched2cu::rt;

#ifndef SCHED2CU_HW_ROWS
#define SCHED2CU_HW_ROWS 8
#endif
#ifndef SCHED2CU_HW_CONSUMERS
#define SCHED2CU_HW_CONSUMERS 4
#endif
#ifndef SCHED2CU_HW_STAGES
#define SCHED2CU_HW_STAGES 8
#endif
#ifndef SCHED2CU_HW_STAGING
#define SCHED2CU_HW_STAGING 3
#endif
#ifndef SCHED2CU_HW_CTAS_PER_SM
#define SCHED2CU_HW_CTAS_PER_SM 2
#endif
#ifndef SCHED2CU_HW_GRID
#define SCHED2CU_HW_GRID 0
#endif

constexpr int kN = 512;
constexpr int kBoxCols = 256;  // the TMA box limit: a row is two box rows
constexpr int kRows = SCHED2CU_HW_ROWS;
constexpr int kConsumers = SCHED2CU_HW_CONSUMERS;
constexpr int kRowsPerWarp = kRows / kConsumers;
constexpr int kStages = SCHED2CU_HW_STAGES;
constexpr int kStaging = SCHED2CU_HW_STAGING;
constexpr int kCtasPerSm = SCHED2CU_HW_CTAS_PER_SM;
constexpr int kThreads = 32 * (1 + kConsumers);
constexpr uint32_t kRowBytes = kN * 2;
constexpr uint32_t kTileBytes = kRows * kRowBytes;
constexpr uint32_t kSmemBytes = (kStages + kStaging) * kTileBytes + sizeof(Ring<kStages>);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;  // + the smem_align<1024> slack
constexpr int kStoreBar = 1;                        // named barrier of the consumer warps

static_assert(kRows >= 1 && kConsumers >= 1 && kRows % kConsumers == 0,
              "every consumer warp owns the same number of whole rows of a tile");
static_assert(2 * kRows <= 256, "a tile is one TMA box of 2·kRows box rows (at most 256)");
static_assert(kThreads <= 1024, "at most 31 consumer warps");
static_assert(kStages >= 1, "the ring needs a slot");
static_assert(kStaging >= 2, "one barrier per tile needs two staging slots (see the header)");
static_assert(kCtasPerSm >= 1 && kCtasPerSm * (kSmemAlloc + 1024) <= 228 * 1024,
              "kCtasPerSm CTAs (plus the 1 KB the system reserves per CTA) fit an SM's 228 KB");
static_assert(kSmemAlloc <= 227 * 1024, "fits the opt-in shared memory of one CTA");

// Eight f16 values (16 bytes) widened to f32.
__device__ __forceinline__ void unpack8(float* d, const uint4& v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = unpack2<__half>(w[i]);
    d[2 * i] = f.x;
    d[2 * i + 1] = f.y;
  }
}

__device__ __forceinline__ uint4 pack8(const float* s) {
  return {pack2<__half>(s[0], s[1]), pack2<__half>(s[2], s[3]), pack2<__half>(s[4], s[5]),
          pack2<__half>(s[6], s[7])};
}

// Row sums of this warp's rows: every lane ends with the full sums (butterfly over 32 lanes, the
// rows interleaved so the shuffles of different rows overlap).
__device__ __forceinline__ void warp_allreduce(float (&v)[kRowsPerWarp]) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) v[j] += __shfl_xor_sync(0xffffffffu, v[j], o);
  }
}

__global__ void __launch_bounds__(kThreads, kCtasPerSm)
    layernorm_fwd_kernel(const __grid_constant__ CUtensorMap map_x,
                         const __grid_constant__ CUtensorMap map_y, const __half* __restrict__ w,
                         const __half* __restrict__ b, uint32_t num_tiles, float eps) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* xs = smem;                       // kStages x tiles (the ring)
  uint8_t* ys = xs + kStages * kTileBytes;  // kStaging y tiles
  auto* ring = reinterpret_cast<Ring<kStages>*>(ys + kStaging * kTileBytes);

  const int warp = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 32, 0);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  if (threadIdx.x == 0) {
    // full: the producer's arm + the tile's bytes; empty: lane 0 of every consumer warp.
    ring->init(1, kConsumers);
    mbar_fence_init();
  }
  __syncthreads();

  // This CTA's tiles: blockIdx.x + it·gridDim.x for it < count.
  const uint32_t first = blockIdx.x;
  const uint32_t count = first < num_tiles ? (num_tiles - 1 - first) / gridDim.x + 1 : 0;

  if (warp == 0) {
    if (elect_one_sync()) {
      tma_prefetch_desc(&map_x);
      for (uint32_t it = 0; it < count; ++it) {
        const uint32_t tile = first + it * gridDim.x;
        ring->wait_empty(it);
        ring->arm(it, kTileBytes);
        tma_load_2d(xs + Ring<kStages>::slot(it) * kTileBytes, &map_x, ring->full_bar(it), 0,
                    static_cast<int32_t>(tile * 2 * kRows));
      }
    }
    return;  // no CTA-wide barrier follows; the consumers keep the CTA alive
  }

  const int cw = warp - 1;  // consumer warp index
  const bool issuer = cw == 0 && lane == 0;
  if (issuer) tma_prefetch_desc(&map_y);
  // w and b for this lane's columns, once.
  float wf[16], bf[16];
  {
    const uint4* wv = reinterpret_cast<const uint4*>(w);
    const uint4* bv = reinterpret_cast<const uint4*>(b);
    unpack8(wf, __ldg(wv + lane));
    unpack8(wf + 8, __ldg(wv + lane + 32));
    unpack8(bf, __ldg(bv + lane));
    unpack8(bf + 8, __ldg(bv + lane + 32));
  }
  constexpr float kInvN = 1.0f / kN;

  for (uint32_t it = 0; it < count; ++it) {
    const uint32_t tile = first + it * gridDim.x;
    ring->wait_full(it);
    const uint8_t* xt = xs + Ring<kStages>::slot(it) * kTileBytes;
    float x[kRowsPerWarp][16];
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
      const uint4* row = reinterpret_cast<const uint4*>(xt + (cw * kRowsPerWarp + j) * kRowBytes);
      unpack8(x[j], row[lane]);
      unpack8(x[j] + 8, row[lane + 32]);
    }
    __syncwarp();
    if (lane == 0) ring->release(it);

    float mean[kRowsPerWarp], rstd[kRowsPerWarp];
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
      float s = 0.f;
#pragma unroll
      for (int i = 0; i < 16; ++i) s += x[j][i];
      mean[j] = s;
    }
    warp_allreduce(mean);
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
      mean[j] *= kInvN;
      float s = 0.f;
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        x[j][i] -= mean[j];
        s = fmaf(x[j][i], x[j][i], s);
      }
      rstd[j] = s;
    }
    warp_allreduce(rstd);

    uint8_t* yt = ys + (it % kStaging) * kTileBytes;
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
      const float r = 1.0f / sqrtf(rstd[j] * kInvN + eps);
#pragma unroll
      for (int i = 0; i < 16; ++i) x[j][i] = fmaf(x[j][i] * r, wf[i], bf[i]);
      uint4* row = reinterpret_cast<uint4*>(yt + (cw * kRowsPerWarp + j) * kRowBytes);
      row[lane] = pack8(x[j]);
      row[lane + 32] = pack8(x[j] + 8);
    }
    fence_proxy_async();
    // At most kStaging − 2 stores still reading: the slot tile it + 1 writes after this barrier
    // (last stored by tile it + 1 − kStaging) is free.
    if (issuer) tma_wait_read<kStaging - 2>();
    named_bar_sync(kStoreBar, 32 * kConsumers);
    if (issuer) {
      tma_store_2d(&map_y, yt, 0, static_cast<int32_t>(tile * 2 * kRows));
      tma_commit();
    }
  }
  if (issuer) tma_wait<0>();
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 6) return cudaErrorInvalidValue;
  void* x = args[0].ptr;
  const void* w = args[1].ptr;
  const void* b = args[2].ptr;
  void* y = args[3].ptr;
  const long long M = args[4].i;
  const float eps = static_cast<float>(args[5].f);
  // 2·M box rows and their coordinates must fit int32.
  if (M < 0 || M >= (1LL << 30)) return cudaErrorInvalidValue;
  if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(w) |
       reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(y)) %
          16 !=
      0)
    return cudaErrorInvalidValue;
  if (M == 0) return cudaSuccess;  // no rows: nothing to launch (a tensor map needs extents)

  CUtensorMap map_x, map_y;
  cudaError_t e;
  const auto f16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  // [2M][256] views: one box of 2·kRows x 256 = kRows whole rows.
  if ((e = tma_make_map_2d(&map_x, f16, 2, x, 2 * M, kBoxCols, kBoxCols, 2 * kRows, kBoxCols,
                           TmaSwizzle::none)) != cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_y, f16, 2, y, 2 * M, kBoxCols, kBoxCols, 2 * kRows, kBoxCols,
                           TmaSwizzle::none)) != cudaSuccess)
    return e;

  // Resident CTAs, queried once per device.
  static int cached_dev = -1, max_ctas = 0;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if (cached_dev != dev) {
    if ((e = cudaFuncSetAttribute(layernorm_fwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    if ((e = cudaFuncSetAttribute(layernorm_fwd_kernel,
                                  cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared)) != cudaSuccess)
      return e;
    int sms = 0, per_sm = 0;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return e;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, layernorm_fwd_kernel, kThreads,
                                                           kSmemAlloc)) != cudaSuccess)
      return e;
    if (sms <= 0 || per_sm <= 0) return cudaErrorInvalidValue;
    max_ctas = sms * (per_sm < kCtasPerSm ? per_sm : kCtasPerSm);
    cached_dev = dev;
  }
  const long long tiles = (M + kRows - 1) / kRows;
  const long long cap = SCHED2CU_HW_GRID > 0 ? SCHED2CU_HW_GRID : max_ctas;
  const long long grid = tiles < cap ? tiles : cap;
  layernorm_fwd_kernel<<<static_cast<unsigned>(grid), kThreads, kSmemAlloc, stream>>>(
      map_x, map_y, static_cast<const __half*>(w), static_cast<const __half*>(b),
      static_cast<uint32_t>(tiles), eps);
  return cudaGetLastError();
}
