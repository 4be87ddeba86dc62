// Hand-written Hopper kernel for case9_scaled_mm/blockwise: the DeepSeek-V3 / DeepGEMM style
// blockwise-scaled fp8 GEMM of kernel.py,
//   D[M,N] = bf16( sum_g (A[:, g] · B[:, g]ᵀ) · scale_a[g·M + m] · scale_b[(n/128)·G + g] ),
// K groups g of 128 (G = cdiv(K, 128), the last one may be partial: TMA zero-fills it); A [M,K]
// and B [N,K] e4m3 row-major (both K-major, the only form 8-bit wgmma takes), scale_a f32 [G, M],
// scale_b f32 [cdiv(N,128), G], D [M,N] bf16 row-major. Persistent: grid = min(SM count, tiles);
// CTA p walks the 128x128 tiles p, p + grid, ... of kernel.py's grouped order (GROUP_M = 8).
// Warp specialized: one producer warpgroup (per K group, one elected thread TMA-loads the A and
// B tiles and a second warp copies the group's 128 scale_a values and its scale_b into one slot
// of a 5-deep ring whose counter continues across tiles) and two consumer warpgroups (64 rows
// each) that run wgmma m64n128k32 into a per-group partial accumulator and promote it,
// acc += partial · sa · sb, in registers. The two consumers take turns issuing their MMAs
// (named-barrier ping-pong), so one warpgroup's promotion runs while the other's MMAs occupy the
// tensor cores. The epilogue stages bf16 boxes in shared memory and issues TMA stores that drain
// during the next tile.
// Measured on the H200 (2026-12-02, a standalone driver, not the harness): 4096³ and 8192³ at
// ≈ 1040-1110 TFLOPS in short bursts (50 launches), ≈ 940 over 1 s of 8192³ once the 700 W cap
// lowers the SM clock to ≈ 1.55 GHz. The same pipeline with neither promotion nor scales (pure
// MMAs + loads) was no faster sustained (≈ 1015), and without the loads it ran at ≈ 1250: at
// 128x128 tiles the operand traffic, not the promotion, is what bounds it.
// It is the reference the generated kernel is compared against: it uses only the sched2cu
// runtime headers and must never contain PTX, nor change the launch ABI of kernel.py
// (a, b, d, scale_a, scale_b, M, N, K; docs/abi.md).
#include <cuda_runtime.h>

#include <cstdint>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

// Tuning knobs. SCHED2CU_HW_STAGES: ring depth (33 KB a slot; 5 is what fits next to the 32 KB
// epilogue staging in 227 KB). SCHED2CU_HW_PINGPONG: 1 = order the consumers' MMA issue with
// named barriers, 0 = let them issue freely (for measuring what the turns buy).
#ifndef SCHED2CU_HW_STAGES
#define SCHED2CU_HW_STAGES 5
#endif
#ifndef SCHED2CU_HW_PINGPONG
#define SCHED2CU_HW_PINGPONG 1
#endif

namespace {

using namespace sched2cu::rt;
using bf16 = __nv_bfloat16;
using fp8 = __nv_fp8_e4m3;

constexpr int kBM = 128, kBN = 128, kBK = 128;  // one K group (one scale pair) per ring slot
constexpr int kGroupM = 8;                      // kernel.py's GROUP_M
constexpr int kStages = SCHED2CU_HW_STAGES;
constexpr bool kPingPong = SCHED2CU_HW_PINGPONG != 0;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
// Register split: 40 + 2 · 232 = 504 = 3 · 168 (the entry allocation at 384 threads). A consumer
// holds two 64x128 f32 tiles (partial, acc: 128 registers) plus addresses and scales.
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(kProducerRegs + kConsumers * kConsumerRegs <= 3 * 168, "register pool");

// One ring slot: A [128 rows][128 B] and B [128 rows][128 B] (128B swizzle, one TMA box each),
// the K group's 128 scale_a values of the tile's rows and its scale_b (f32). The scales are
// copied with ordinary loads and stores, not TMA: a box of scale_a starts at g·M + m0 and one of
// scale_b at nb·G + g, which are not 16-byte aligned in general, and a 1-D TMA load from such a
// coordinate faulted on the H200 (illegal instruction at 320x392x448, 2026-12-02).
constexpr uint32_t kTileBytes = kBM * kBK;  // 16 KB (fp8)
constexpr uint32_t kSaBytes = kBM * 4;      // 512 B
constexpr uint32_t kTxBytes = 2 * kTileBytes;
// Epilogue staging: per consumer two [64 rows][64 bf16] boxes (128B swizzle), 8 KB each.
constexpr uint32_t kDBox = 64 * 64 * 2;
constexpr uint32_t kDBytes = kConsumers * 2 * kDBox;

// Shared memory from the 1024-aligned base: A slots, B slots, D staging, scale_a slots, scale_b
// slots, the ring's barriers.
constexpr uint32_t kOffA = 0;
constexpr uint32_t kOffB = kOffA + kStages * kTileBytes;
constexpr uint32_t kOffD = kOffB + kStages * kTileBytes;
constexpr uint32_t kOffSa = kOffD + kDBytes;
constexpr uint32_t kOffSb = kOffSa + kStages * kSaBytes;
constexpr uint32_t kOffBar = kOffSb + ((kStages * 4 + 7) / 8) * 8;
constexpr uint32_t kSmemBytes = kOffBar + sizeof(Ring<kStages>);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;  // smem_align<1024> slack
static_assert(kSmemAlloc <= 227 * 1024, "shared memory budget");

// Named barriers (0 is __syncthreads): kTurnBar + c is consumer c's MMA turn (c syncs, the other
// consumer arrives: 256 threads a phase); kEpiBar + c orders consumer c's own epilogue staging.
constexpr int kTurnBar = 1;  // ids 1, 2
constexpr int kEpiBar = 3;   // ids 3, 4
constexpr int kTurnThreads = 2 * 128;

// ---- protocol --------------------------------------------------------------------------------
// it = K groups consumed so far by this CTA (all tiles); slot = it % S, both roles count alike.
// Producer (warpgroup 0; warps 2 and 3 exit at once):
//   warp 0, one elected lane, per tile, g: wait_empty(it); arm(it, kTxBytes); TMA A(m0, g),
//     B(n0, g) on full(it)
//   warp 1, all 32 lanes, per tile, g: load scale_a[g·M + m0 + j] for j = lane + 32q (0 for
//     rows past M: finite, and those rows are clipped by the store) and scale_b[nb·G + g] into
//     registers; then wait_empty(it); store them into the slot; arrive full(it). The global
//     loads are issued before the wait, so their latency overlaps the wait for the slot.
// Consumer c (warpgroups 1, 2; tile rows 64c .. 64c+63):
//   c == 1: arrive T(0)                         (consumer 0 takes the first turn)
//   per tile: acc = 0; per g:
//     wait_full(it); read this thread's two scale_a rows and scale_b from the slot (the loads
//     are in flight while the MMAs run)
//     sync T(c); partial = A_c(slot) · B(slot)ᵀ (4 x m64n128k32, scale-d 0 first); commit;
//     arrive T(1-c)
//     wgmma_wait<0>; __syncwarp; lane 0 of each warp: release(it) (empty count 8)
//     acc += partial · (sa[row] · sb)           (overlaps the other consumer's MMAs)
//   epilogue: leader tma_wait_read<0> (the previous tile's stores left the staging); sync E(c);
//     acc -> 2 bf16 boxes; fence_proxy_async; sync E(c); leader: 2 TMA stores, commit
//   end: c == 0: sync T(0) (absorbs consumer 1's arrival after its last turn); leader tma_wait<0>
// Turn balance over T = tiles · G turns each: T(0) gets T syncs + 1 from the end, and 1 + T
// arrivals; T(1) gets T syncs and T arrivals. A consumer arrives on the other's barrier only
// after its own sync completed, so no phase sees two arrival groups. Ring counts: full = 1 (the
// arm; the bytes complete it) + 32 (each scale lane releases its own stores), empty = 8 (lane 0
// of each consumer warp). The wait<0> before the release proves the MMAs reading the slot
// retired; the __syncwarp orders the other lanes' scale reads before lane 0's release (the
// producer then overwrites the slot).

struct TileCoord {
  int m, n;
};

// kernel.py's grouped order: GROUP_M tile-rows share each B column tile in L2.
__device__ __forceinline__ TileCoord tile_coord(int t, int tiles_m, int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int first = (t / per_group) * kGroupM;
  const int gsize = min(tiles_m - first, kGroupM);
  const int r = t % per_group;
  return {first + r % gsize, r / gsize};
}

__global__ void __launch_bounds__(kThreads, 1)
    blockwise_fp8_kernel(const __grid_constant__ CUtensorMap map_a,
                         const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_d,
                         const float* __restrict__ scale_a, const float* __restrict__ scale_b,
                         int M, int N, int K) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* sa_tiles = smem + kOffA;
  uint8_t* sb_tiles = smem + kOffB;
  uint8_t* sd = smem + kOffD;
  float* s_scale_a = reinterpret_cast<float*>(smem + kOffSa);
  float* s_scale_b = reinterpret_cast<float*>(smem + kOffSb);
  auto* ring = reinterpret_cast<Ring<kStages>*>(smem + kOffBar);

  const int wg = warpgroup_idx();
  if (threadIdx.x == 0) {
    ring->init(1 + 32, 4 * kConsumers);  // full: arm + 32 scale lanes; empty: 8 warps
    mbar_fence_init();
  }
  __syncthreads();

  const int tiles_m = (M + kBM - 1) / kBM, tiles_n = (N + kBN - 1) / kBN;
  const int tiles = tiles_m * tiles_n;
  const int groups = (K + kBK - 1) / kBK;
  const int grid = static_cast<int>(gridDim.x);

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    const int warp = warp_idx_in_warpgroup();
    if (warp == 0 && elect_one_sync()) {
      tma_prefetch_desc(&map_a);
      tma_prefetch_desc(&map_b);
      uint32_t it = 0;
      for (int t = static_cast<int>(blockIdx.x); t < tiles; t += grid) {
        const TileCoord tc = tile_coord(t, tiles_m, tiles_n);
        const int m0 = tc.m * kBM, n0 = tc.n * kBN;
        for (int g = 0; g < groups; ++g, ++it) {
          const uint32_t s = Ring<kStages>::slot(it);
          uint64_t* full = ring->full_bar(it);
          ring->wait_empty(it);
          ring->arm(it, kTxBytes);
          tma_load_2d(sa_tiles + s * kTileBytes, &map_a, full, g * kBK, m0);
          tma_load_2d(sb_tiles + s * kTileBytes, &map_b, full, g * kBK, n0);
        }
      }
    } else if (warp == 1) {
      const int lane = static_cast<int>(threadIdx.x % 32);
      uint32_t it = 0;
      for (int t = static_cast<int>(blockIdx.x); t < tiles; t += grid) {
        const TileCoord tc = tile_coord(t, tiles_m, tiles_n);
        const int m0 = tc.m * kBM;
        const float* sb_row = scale_b + tc.n * groups;
        for (int g = 0; g < groups; ++g, ++it) {
          const float* sa_g = scale_a + g * M + m0;
          float v[kBM / 32];
#pragma unroll
          for (int q = 0; q < kBM / 32; ++q) {
            const int j = lane + 32 * q;
            v[q] = m0 + j < M ? __ldg(sa_g + j) : 0.f;
          }
          const float vb = __ldg(sb_row + g);
          const uint32_t s = Ring<kStages>::slot(it);
          ring->wait_empty(it);
          float* dst = s_scale_a + s * kBM;
#pragma unroll
          for (int q = 0; q < kBM / 32; ++q) dst[lane + 32 * q] = v[q];
          if (lane == 0) s_scale_b[s] = vb;
          ring->commit(it);  // release: this lane's stores, then its arrival
        }
      }
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int c = wg - 1;
    const int t = thread_idx_in_warpgroup();
    const bool leader = t == 0;
    const bool lane0 = (threadIdx.x % 32) == 0;
    // This thread's two tile rows (accumulator elements with (i % 4) / 2 == 0, and == 1).
    const int row0 = 64 * c + 16 * (t / 32) + (t % 32) / 4;
    uint8_t* stage = sd + c * 2 * kDBox;
    AccTile<64, kBN> partial;  // one K group's A·Bᵀ: the wgmma accumulator
    AccTile<64, kBN> acc;      // the promoted sum: only ordinary FFMAs write it

    if (c == 1 && kPingPong) named_bar_arrive(kTurnBar + 0, kTurnThreads);
    if (leader) tma_prefetch_desc(&map_d);

    uint32_t it = 0;
    for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += grid) {
      const TileCoord tc = tile_coord(tile, tiles_m, tiles_n);
      const int m0 = tc.m * kBM, n0 = tc.n * kBN;
      acc_fill(acc, 0.f);
      for (int g = 0; g < groups; ++g, ++it) {
        const uint32_t s = Ring<kStages>::slot(it);
        ring->wait_full(it);
        // Scales first: their shared-memory latency hides behind the MMA issue and execution.
        const float* sa_slot = s_scale_a + s * kBM;
        const float sb = s_scale_b[s];
        const float sa0 = sa_slot[row0], sa1 = sa_slot[row0 + 8];

        if constexpr (kPingPong) named_bar_sync(kTurnBar + c, kTurnThreads);
        uint8_t* a_tile = sa_tiles + s * kTileBytes + c * (64 * kBK);  // this consumer's rows
        uint8_t* b_tile = sb_tiles + s * kTileBytes;
        wgmma_fence_operand(partial.v[0]);
        wgmma_fence();  // partial was read by the promotion since the last MMAs
#pragma unroll
        for (int ks = 0; ks < kBK / 32; ++ks)
          wgmma_ss<kBN, fp8, fp8, Major::K, Major::K>(
              partial.v[0], wgmma_desc_k<128, 64>(a_tile, ks), wgmma_desc_k<128, kBN>(b_tile, ks),
              ks > 0 ? 1 : 0);
        wgmma_commit();
        wgmma_fence_operand(partial.v[0]);
        if constexpr (kPingPong) named_bar_arrive(kTurnBar + (1 - c), kTurnThreads);

        // Promotion, in kernel.py's order: acc + partial · (sa · sb), once the MMAs retired. It
        // runs while the other consumer's MMAs (issued right after these, see the turns) occupy
        // the tensor cores.
        const float f0 = sa0 * sb, f1 = sa1 * sb;
        wgmma_wait<0>();
        wgmma_fence_operand(partial.v[0]);
        __syncwarp();  // every lane's scale loads are done before lane 0 frees the slot
        if (lane0) ring->release(it);
#pragma unroll
        for (int i = 0; i < kBN / 2; ++i)
          acc.v[0][i] = fmaf(partial.v[0][i], ((i % 4) / 2) ? f1 : f0, acc.v[0][i]);
      }

      // Epilogue: two 64-column bf16 boxes of this consumer's 64 rows. The staging is reused only
      // after the previous tile's stores have read it; the global writes drain during the next
      // tile's main loop. Boxes wholly past M or N are not stored (TMA would clip them anyway).
      if (leader) tma_wait_read<0>();
      warpgroup_sync(kEpiBar + c);
      acc_store_box<bf16, 128, 64>(stage, acc, 0, 0, 0);
      acc_store_box<bf16, 128, 64>(stage + kDBox, acc, 0, 64, 0);
      fence_proxy_async();  // generic-proxy writes -> TMA store reads
      warpgroup_sync(kEpiBar + c);
      if (leader && m0 + 64 * c < M) {
        tma_store_2d(&map_d, stage, n0, m0 + 64 * c);
        if (n0 + 64 < N) tma_store_2d(&map_d, stage + kDBox, n0 + 64, m0 + 64 * c);
        tma_commit();
      }
    }
    // Consumer 1 arrived on T(0) after its last turn; consume that phase so none is left open.
    if (c == 0 && kPingPong) named_bar_sync(kTurnBar + 0, kTurnThreads);
    if (leader) tma_wait<0>();
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 8) return cudaErrorInvalidValue;
  void* a = args[0].ptr;
  void* b = args[1].ptr;
  void* d = args[2].ptr;
  void* sa = args[3].ptr;
  void* sb = args[4].ptr;
  const long long M = args[5].i, N = args[6].i, K = args[7].i;
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;  // D is empty: nothing to write, nothing launched
  // K = 0 would leave D = 0 unwritten: refused (docs/abi.md). TMA needs 16-byte row strides:
  // K % 16 (A, B: 1-byte elements) and N % 8 (D: bf16); M, N and K tails are handled by TMA
  // bounds (zero-filled loads, clipped stores).
  if (K == 0 || K % 16 != 0 || N % 8 != 0) return cudaErrorInvalidValue;
  const long long groups = (K + kBK - 1) / kBK, tiles_n = (N + kBN - 1) / kBN;
  const long long tiles = (M + kBM - 1) / kBM * tiles_n;
  // Every coordinate the kernel forms (g·M + m0, nb·G + g, k, m, n) must fit an int.
  constexpr long long kIntMax = 0x7fffffffLL;
  if (M > kIntMax - kBM || N > kIntMax - kBN || K > kIntMax - kBK || groups * M > kIntMax - kBM ||
      tiles_n * groups > kIntMax || tiles > kIntMax)
    return cudaErrorInvalidValue;
  // TMA bases 16-byte aligned; the scales are read with ordinary f32 loads.
  if ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
       reinterpret_cast<uintptr_t>(d)) %
              16 !=
          0 ||
      sa == nullptr || sb == nullptr ||
      (reinterpret_cast<uintptr_t>(sa) | reinterpret_cast<uintptr_t>(sb)) % 4 != 0)
    return cudaErrorInvalidValue;

  cudaError_t e;
  CUtensorMap map_a, map_b, map_d;
  const auto u8 = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  if ((e = tma_make_map_2d(&map_a, u8, 1, a, M, K, K, kBM, kBK, TmaSwizzle::b128)) != cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_b, u8, 1, b, N, K, K, kBN, kBK, TmaSwizzle::b128)) != cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_d, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, d, M, N, N, 64, 64,
                           TmaSwizzle::b128)) != cudaSuccess)
    return e;
  // SM count and the shared-memory opt-in, once per device.
  static int cached_dev = -1, num_sms = 0;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if (cached_dev != dev) {
    if ((e = cudaFuncSetAttribute(blockwise_fp8_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    int sms = 0;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return e;
    if (sms <= 0) return cudaErrorInvalidValue;
    num_sms = sms;
    cached_dev = dev;
  }
  const long long grid = tiles < num_sms ? tiles : num_sms;
  blockwise_fp8_kernel<<<static_cast<unsigned>(grid), kThreads, kSmemAlloc, stream>>>(
      map_a, map_b, map_d, static_cast<const float*>(sa), static_cast<const float*>(sb),
      static_cast<int>(M), static_cast<int>(N), static_cast<int>(K));
  return cudaGetLastError();
}
