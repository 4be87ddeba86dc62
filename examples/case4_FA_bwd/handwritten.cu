// Hand-written Hopper attention backward for case4 (FlashAttention-3 backward structure, head
// dim 64, non-causal): f16 Q, K, V, dO [BH·N_CTX, 64] row-major (Q already scaled by 1/sqrt(64)),
// the forward's base-2 log-sum-exp M and Di = rowsum(dO ⊙ O) (f32 [BH·N_CTX]); writes dK, dV
// (f16) and accumulates dQ into the caller-zeroed f32 DQ, exactly the computation of kernel.py.
// One CTA per 128 rows of K and V of one head; N_CTX a multiple of 128 (no masking). Warp
// specialized: a producer warpgroup (warp 0: one elected thread issues TMA, K and V once, then
// the Q and dO tiles with their M and Di rows through two rings; warp 1: the dQ writer, which
// reduce-adds the consumers' staged dQ tiles into DQ) and two consumer warpgroups (64 K/V rows
// each) that, per 128-row Q tile, compute Sᵀ = K·Qᵀ, Pᵀ, dV += Pᵀ·dO (P from registers),
// dPᵀ = V·dOᵀ, dSᵀ, dK += dSᵀ·Q (dS from registers), stage dSᵀ in shared memory and compute
// their 64 rows of dQ = dS·K over both halves of dSᵀ (a transposed shared-memory operand).
// It is the reference the generated kernel is compared against: it uses only the sched2cu
// runtime headers and must never contain PTX, nor change the launch ABI of kernel.py
// (docs/abi.md, README.md).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

// Tuning knobs (defaults = the fastest measured). Figures: TFLOPS (10·BH·N²·64 / median time)
// at (BH, N) = (64, 2048) on an H100 SXM (2026-12-05; the one-GPU device runs got H100s), each
// against the default in the same session; the default ran 457-459.
//   SCHED2CU_HW_KV_REGS (1): 1 = V, 2 = K and V of this consumer held as register A fragments,
//     so dPᵀ (and Sᵀ) read only their B tile from shared memory (0: 448-450; 2 makes ptxas
//     spill).
//   SCHED2CU_HW_DQ_WRITER (1): warp 1 of the producer warpgroup issues the dQ reduce-adds and
//     waits for their reads, so a consumer only stages dQ and arrives on a named barrier (0: the
//     consumer's leader issues them itself and waits for the reads a step later; 441).
//   SCHED2CU_HW_DQ_RED (0): 1 = add dQ with red.global.add.v4.f32 straight from the registers
//     instead of a staged TMA reduce-add (0.83x in an earlier session: 368 against 442 with the
//     leader-issued reduce-adds).
//   SCHED2CU_HW_STAGGER (0): 1 = CTA nb starts its Q-tile loop at tile nb, so the K/V blocks of
//     one head add into different dQ tiles at any moment (0.97x in an earlier session).
//   SCHED2CU_HW_POLY_EXP (0): how many of the 16 8-column blocks of each P tile take exp2 as a
//     polynomial on the FMA pipe (exp2_poly) instead of MUFU.EX2 (4: within noise, 1.01x).
#ifndef SCHED2CU_HW_DQ_WRITER
#define SCHED2CU_HW_DQ_WRITER 1
#endif
#ifndef SCHED2CU_HW_DQ_RED
#define SCHED2CU_HW_DQ_RED 0
#endif
#ifndef SCHED2CU_HW_STAGGER
#define SCHED2CU_HW_STAGGER 0
#endif
#ifndef SCHED2CU_HW_KV_REGS
#define SCHED2CU_HW_KV_REGS 1
#endif
#ifndef SCHED2CU_HW_POLY_EXP
#define SCHED2CU_HW_POLY_EXP 0
#endif

namespace {

using namespace sched2cu::rt;
using f16 = __half;

constexpr int kD = 64;    // head dim
constexpr int kBN = 128;  // K/V rows per CTA (64 per consumer warpgroup)
constexpr int kBM = 128;  // Q rows per step
constexpr int kStages = 2;
constexpr bool kDqRed = SCHED2CU_HW_DQ_RED != 0;
constexpr int kPolyBlocks = SCHED2CU_HW_POLY_EXP;
constexpr bool kStagger = SCHED2CU_HW_STAGGER != 0;
constexpr int kKvRegs = SCHED2CU_HW_KV_REGS;
constexpr bool kDqWriter = SCHED2CU_HW_DQ_WRITER != 0 && !kDqRed;
static_assert(kPolyBlocks >= 0 && kPolyBlocks <= kBM / 8, "8-column blocks of a P tile");
static_assert(kKvRegs >= 0 && kKvRegs <= 2, "KV_REGS: 0, 1 (V) or 2 (K and V)");
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kConsumerWarps = 4 * kConsumers;
// Register split: 24 + 240 + 240 = 504 per thread triple; the kernel is compiled at 168
// registers (65,536 / 384 rounded down to 8), so the producer's decrease frees what the
// consumers' increases take.
constexpr int kProducerRegs = 24;
constexpr int kConsumerRegs = 240;
static_assert(kProducerRegs + kConsumers * kConsumerRegs <= 3 * 168, "register pool");
constexpr float kLog2e = 1.44269504f;  // kernel.py's constant

// Every f16 tile is [rows][64] = one 128B-swizzled TMA box with 128-byte rows.
constexpr uint32_t kTile128 = 128 * 128;  // 128 rows: a K, V, Q or dO tile, 16 KB
constexpr uint32_t kTile64 = 64 * 128;    // 64 rows: one consumer's half, 8 KB
// dSᵀ [128 K/V rows][128 Q columns] f16: two boxes [128][64 Q columns], box b = columns 64b..
constexpr uint32_t kDsBytes = 2 * kTile128;
// dQ staging per consumer: 64 Q rows × 64 f32 as two 128B-swizzled boxes [64][32 f32].
constexpr uint32_t kDqBox = 64 * 128;
constexpr uint32_t kStageBytes = 2 * kDqBox;
constexpr uint32_t kVecBytes = kBM * 4;  // one step's M (or Di) rows, f32

// Named barriers (0 is __syncthreads): kDsBar = both consumers' dSᵀ halves are in shared memory
// (256 threads a phase); kWgBar + c synchronizes consumer c's own 128 threads; FULL(c) and
// EMPTY(c) hand consumer c's dQ staging to the writer warp and back (160 threads a phase).
constexpr int kDsBar = 1;
constexpr int kWgBar = 2;             // ids 2, 3
constexpr int kDqFull = 4;            // ids 4, 5: consumer c's dQ staging is written (DQ_WRITER)
constexpr int kDqEmpty = 6;           // ids 6, 7: the writer warp has read it out (DQ_WRITER)
constexpr int kDqThreads = 128 + 32;  // one consumer + the writer warp

struct Barriers {
  Ring<kStages> q;   // Q tile + M rows: full = the producer's arm (+16 KB + 512 B), empty = 8
  Ring<kStages> dO;  // dO tile + Di rows: same counts
  uint64_t kv;       // K and V: 1 arrival (the arm) + 32 KB, waited once at parity 0
};

// Shared memory, from the 1024-aligned base:
//   [0, 16K) K   [16K, 32K) V   then 2 Q slots, 2 dO slots (16 KB each), 2 dSᵀ buffers
//   (32 KB each), one dQ staging area per consumer (16 KB each; dK, dV staging at the end),
//   2 M slots, 2 Di slots (512 B each), Barriers.
constexpr uint32_t kOffK = 0;
constexpr uint32_t kOffV = kOffK + kTile128;
constexpr uint32_t kOffQ = kOffV + kTile128;
constexpr uint32_t kOffDo = kOffQ + kStages * kTile128;
constexpr uint32_t kOffDs = kOffDo + kStages * kTile128;
constexpr uint32_t kOffStage = kOffDs + 2 * kDsBytes;
constexpr uint32_t kOffM = kOffStage + kConsumers * kStageBytes;
constexpr uint32_t kOffDi = kOffM + kStages * kVecBytes;
constexpr uint32_t kOffBar = kOffDi + kStages * kVecBytes;
constexpr uint32_t kSmemBytes = kOffBar + sizeof(Barriers);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;  // smem_align<1024> slack
static_assert(kSmemAlloc <= 227 * 1024, "shared memory budget");

// 2^x on the FMA and integer pipes instead of MUFU.EX2 (16 a clock per SM; a step needs 64 per
// consumer thread): x = i + f with i = round(x) taken from the low mantissa
// bits of x + 1.5·2^23, f in [-0.5, 0.5]; 2^f by a degree-3 polynomial (Chebyshev nodes,
// relative error 1.0e-4, below f16's half ulp: P is rounded to f16 right after); 2^i added
// into the exponent field. x is clamped at -125, where P is 0 in f16 anyway.
__device__ __forceinline__ float exp2_poly(float x) {
  x = fmaxf(x, -125.f);
  const float t = x + 12582912.f;
  const float f = x - (t - 12582912.f);
  const float p =
      fmaf(fmaf(fmaf(0.05583828315f, f, 0.2426394820f), f, 0.6931367517f), f, 0.9999245405f);
  return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}

// Whether 8-column block k of a P tile takes exp2_poly (kPolyBlocks of the 16, spread out).
__host__ __device__ constexpr bool poly_block(int k) {
  return (k * kPolyBlocks) % (kBM / 8) < kPolyBlocks;
}

// ---- protocol --------------------------------------------------------------------------------
// n = N_CTX / 128 Q tiles; Q(j), dO(j), M(j), Di(j) = rows of Q tile j (tile j, or (j + nb) mod
// n with STAGGER) of this head.
//
// Producer warp 0 (one elected thread; warps 2, 3 and the other lanes exit at once):
//   arm kv (32 KB); load K, V (this CTA's 128 rows each)
//   for j < n: q.wait_empty(j); q.arm(j, 16 KB + 512 B); load Q(j), M(j) on q.full_bar(j)
//              dO.wait_empty(j); dO.arm(j, 16 KB + 512 B); load dO(j), Di(j) on dO.full_bar(j)
// Producer warp 1, the dQ writer (DQ_WRITER; whole warp in the barriers, one lane issues TMA):
//   arrive EMPTY(0), EMPTY(1)                       (both staging areas start free)
//   for j < n, c = 0, 1: sync FULL(c); two TMA reduce-adds of consumer c's staging into DQ rows
//                        of Q tile j + 64c; commit; tma_wait_read<0>; arrive EMPTY(c)
//
// Consumer c (warpgroups 1, 2; K/V rows 64c .. 64c+63; s = Sᵀ then Pᵀ f32, dp = dPᵀ then dSᵀ
// f32, p / ds their f16 copies (register A operands), dv, dk, dq f32 accumulators):
//   wait kv [KV_REGS: V_c (and K_c) -> register A fragments]; q.wait_full(0); issue S(0);
//   wgmma_wait<0>
//   step j (buffer b = j % 2; S(j) is retired when it starts):
//     dO.wait_full(j); issue dP(j)
//     s = exp2(s·log2e − M(j)[col]); p = f16(s)          (under dP(j))
//     issue dV += p·dO(j)
//     wgmma_wait<1>                        dP(j) retired; dV(j) keeps running
//     dp = f32(p) ⊙ (dp − Di(j)[col]); stage f16(dp) as rows 64c.. of dSᵀ buffer b; ds = f16(dp)
//     fence_proxy_async; issue dK += ds·Q(j)
//     (no writer: the leader waits until its last reduce-add finished reading the staging)
//     sync DS (256: both halves of dSᵀ(j) are in buffer b)
//     issue dQ = dS(j)[rows 64c..]·K over both halves of buffer b
//     wgmma_wait<1>                        dV(j), dK(j) retired: Q(j), dO(j) are no longer read
//     lane 0 of each warp: q.release(j), dO.release(j)
//     j + 1 < n: q.wait_full(j+1); issue S(j+1); wgmma_wait<1>      dQ(j) retired, S(j+1) runs
//     j + 1 = n: wgmma_wait<0>
//     writer:    sync EMPTY(c); dq -> f32 staging boxes; fence_proxy_async; arrive FULL(c)
//     no writer: dq -> f32 staging boxes; fence_proxy_async; sync WG(c); leader: two TMA
//                reduce-adds, commit
//     RED:       lanes pair up (shfl.xor 1) into runs of 4 columns; red.global.add.v4.f32
//     j + 1 < n: wgmma_wait<0>             S(j+1) retired (nothing in flight at the back edge)
//   epilogue: writer: sync EMPTY(c) / else: leader tma_wait_read<0>, sync WG(c);
//             dk, dv -> f16 boxes in the staging area; fence_proxy_async; sync WG(c);
//             leader: TMA stores of dK, dV rows 64c.., commit, tma_wait_read<0>
//
// Ring counts: full = 1 (the arm; the bytes complete it), empty = 8 = lane 0 of each consumer
// warp, released only after the wgmma_wait that retired every MMA reading the slot (S, dK read
// Q(j); dP, dV read dO(j)). M(j) and Di(j) are read by ordinary loads before those waits.
// dSᵀ buffers: consumer c writes buffer b at step j only after it passed sync DS(j-1), which
// consumer 1-c reached after its wgmma_wait that retired dQ(j-2), the last reader of buffer b.
// Every sync DS phase holds both consumers' 256 threads once per step: n phases each.
// Staging (writer): EMPTY(c) gets n + 1 arrivals from the writer (one up front, one per tile) and
// n + 1 syncs from consumer c (one per tile, one before the dK/dV staging); FULL(c) gets n
// arrivals from consumer c and n syncs from the writer. A consumer only arrives on FULL(c) after
// its sync on EMPTY(c) completed, and the writer only arrives on EMPTY(c) after its sync on
// FULL(c) completed, so no phase sees two arrive groups. Staging (no writer): written at step j
// only after sync DS(j), which the leader reached after waiting for the reads of its reduce-add
// of step j-1.

__global__ void __launch_bounds__(kThreads, 1) attn_bwd_kernel(
    const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
    const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_do,
    const __grid_constant__ CUtensorMap map_m, const __grid_constant__ CUtensorMap map_di,
    const __grid_constant__ CUtensorMap map_dq, const __grid_constant__ CUtensorMap map_dk,
    const __grid_constant__ CUtensorMap map_dv, float* __restrict__ dq_ptr, int n_ctx,
    int kv_blocks) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* sk = smem + kOffK;
  uint8_t* sv = smem + kOffV;
  uint8_t* sq = smem + kOffQ;
  uint8_t* sdo = smem + kOffDo;
  uint8_t* sds = smem + kOffDs;
  auto* sm = reinterpret_cast<float*>(smem + kOffM);
  auto* sdi = reinterpret_cast<float*>(smem + kOffDi);
  auto* bars = reinterpret_cast<Barriers*>(smem + kOffBar);

  const int wg = warpgroup_idx();
  if (threadIdx.x == 0) {
    bars->q.init(1, kConsumerWarps);
    bars->dO.init(1, kConsumerWarps);
    mbar_init(&bars->kv, 1);
    mbar_fence_init();
  }
  __syncthreads();

  // Consecutive CTAs take the K/V blocks of one head, so a wave shares a few heads' Q and dO in
  // L2 (the grid is 1-D: BH can exceed gridDim.y's 65535).
  const int bh = static_cast<int>(blockIdx.x) / kv_blocks;
  const int nb = static_cast<int>(blockIdx.x) % kv_blocks;
  const int row0 = bh * n_ctx;
  const int kv_row = row0 + nb * kBN;
  const uint32_t n = static_cast<uint32_t>(n_ctx / kBM);
  // First row of the Q tile of step j. STAGGER: CTA nb starts at tile nb, so the K/V blocks of
  // one head (which run at the same time) add into different dQ tiles at any moment.
  auto tile_row = [&](uint32_t j) {
    const uint32_t tile = kStagger ? (j + static_cast<uint32_t>(nb)) % n : j;
    return row0 + static_cast<int>(tile) * kBM;
  };

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    const int warp = warp_idx_in_warpgroup();
    if (kDqWriter && warp == 1) {
      // dQ writer: per step and consumer, wait for the staged tile, reduce-add it into DQ, wait
      // until TMA has read it, hand the staging back (the first hand-back is up front).
      const bool el = elect_one_sync();
      uint8_t* stage = smem + kOffStage;
      if (el) tma_prefetch_desc(&map_dq);
      named_bar_arrive(kDqEmpty + 0, kDqThreads);
      named_bar_arrive(kDqEmpty + 1, kDqThreads);
      for (uint32_t j = 0; j < n; ++j) {
#pragma unroll
        for (int c = 0; c < kConsumers; ++c) {
          named_bar_sync(kDqFull + c, kDqThreads);
          if (el) {
            uint8_t* st = stage + c * kStageBytes;
            const int q_row = tile_row(j) + 64 * c;
            tma_reduce_add_2d(&map_dq, st, 0, q_row);
            tma_reduce_add_2d(&map_dq, st + kDqBox, 32, q_row);
            tma_commit();
            tma_wait_read<0>();
          }
          __syncwarp();
          named_bar_arrive(kDqEmpty + c, kDqThreads);
        }
      }
    }
    if (warp == 0 && elect_one_sync()) {
      tma_prefetch_desc(&map_q);
      tma_prefetch_desc(&map_do);
      tma_prefetch_desc(&map_m);
      tma_prefetch_desc(&map_di);
      mbar_arrive_expect_tx(&bars->kv, 2 * kTile128);
      tma_load_2d(sk, &map_k, &bars->kv, 0, kv_row);
      tma_load_2d(sv, &map_v, &bars->kv, 0, kv_row);
      for (uint32_t j = 0; j < n; ++j) {
        const uint32_t s = Ring<kStages>::slot(j);
        const int row = tile_row(j);
        bars->q.wait_empty(j);
        bars->q.arm(j, kTile128 + kVecBytes);
        tma_load_2d(sq + s * kTile128, &map_q, bars->q.full_bar(j), 0, row);
        tma_load_1d(sm + s * kBM, &map_m, bars->q.full_bar(j), row);
        bars->dO.wait_empty(j);
        bars->dO.arm(j, kTile128 + kVecBytes);
        tma_load_2d(sdo + s * kTile128, &map_do, bars->dO.full_bar(j), 0, row);
        tma_load_1d(sdi + s * kBM, &map_di, bars->dO.full_bar(j), row);
      }
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int c = wg - 1;
    const int t = thread_idx_in_warpgroup();
    const bool lane0 = (threadIdx.x % 32) == 0;
    const bool leader = t == 0;
    const int cq = 2 * (t % 4);        // first of this thread's two columns in every 8-column block
    uint8_t* sk_c = sk + c * kTile64;  // this consumer's 64 K rows (A of S)
    uint8_t* sv_c = sv + c * kTile64;  // and V rows (A of dP)
    uint8_t* stage = smem + kOffStage + c * kStageBytes;

    AccTile<64, kBM> s;      // Sᵀ(j), then Pᵀ(j) (f32)
    AccTile<64, kBM> dp;     // dPᵀ(j), then dSᵀ(j) (f32)
    PackedTile<64, kBM> p;   // f16 Pᵀ(j): A of dV
    PackedTile<64, kBM> ds;  // f16 dSᵀ(j): A of dK
    AccTile<64, kD> dv, dk;  // accumulated over all steps (scale-d 0 on the first MMA)
    AccTile<64, kD> dq;      // dQ rows 128j + 64c .. of step j

    // KV_REGS: this consumer's K / V rows as register A fragments (4 k-steps over d), read
    // once from the swizzled tiles after the kv barrier; S / dP are then RS MMAs and read only
    // their B tile from shared memory.
    uint32_t ka[kD / 16][4], va[kD / 16][4];  // unused (and dropped) without KV_REGS
    auto load_a = [&](uint32_t(&a)[kD / 16][4], const uint8_t* tile) {
      AccTile<64, kD> tmp;
      acc_load_box<f16, 128, 64>(tmp, tile, 0, 0, 64 * c);
#pragma unroll
      for (int kk = 0; kk < kD / 16; ++kk) acc_to_a<f16>(a[kk], tmp, 0, kk);
    };
    // acc = a·B(j)ᵀ with a = K_c or V_c ([row][d], K-major; from registers with KV_REGS) and
    // B(j) = the Q or dO tile ([row][d], K-major); 4 k-steps over d.
    auto issue_kq = [&](AccTile<64, kBM>& acc, const uint8_t* a_tile, uint32_t(&a)[kD / 16][4],
                        bool a_regs, const uint8_t* b_tile) {
      wgmma_fence_operand(acc.v[0]);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kD / 16; ++kk) {
        if (a_regs)
          wgmma_rs<kBM, f16, f16>(acc.v[0], a[kk], wgmma_desc_k<128, kBM>(b_tile, kk),
                                  kk > 0 ? 1 : 0);
        else
          wgmma_ss<kBM, f16, f16, Major::K, Major::K>(acc.v[0], wgmma_desc_k<128, 64>(a_tile, kk),
                                                      wgmma_desc_k<128, kBM>(b_tile, kk),
                                                      kk > 0 ? 1 : 0);
      }
      wgmma_commit();
      wgmma_fence_operand(acc.v[0]);
    };
    // Sᵀ(j) = K_c·Q(j)ᵀ, dPᵀ(j) = V_c·dO(j)ᵀ.
    auto issue_s = [&](uint32_t j) {
      issue_kq(s, sk_c, ka, kKvRegs >= 2, sq + Ring<kStages>::slot(j) * kTile128);
    };
    auto issue_dp = [&](uint32_t j) {
      issue_kq(dp, sv_c, va, kKvRegs >= 1, sdo + Ring<kStages>::slot(j) * kTile128);
    };
    // acc += a·B, a = f16 [64][128 Q rows] in registers, B = [128 Q rows][64] stored row-major
    // (MN-major); 8 k-steps over the Q rows. `first`: scale-d 0 on the very first MMA.
    auto issue_rs = [&](AccTile<64, kD>& acc, PackedTile<64, kBM>& a, const uint8_t* b,
                        bool first) {
      wgmma_fence_operand(acc.v[0]);
      wgmma_fence_operand(a.p[0]);
      wgmma_fence();  // a was written by ordinary instructions
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
        uint32_t frag[4];
        packed_to_a(frag, a, 0, kk);
        wgmma_rs<kD, f16, f16, Major::MN>(acc.v[0], frag, wgmma_desc_mn<128, kBM>(b, kk),
                                          (!first || kk > 0) ? 1 : 0);
      }
      wgmma_commit();
      wgmma_fence_operand(acc.v[0]);
      wgmma_fence_operand(a.p[0]);
    };
    // dQ rows 64c.. = dS(j)[64c.., 0..127]·K: A = box c of dSᵀ ([K/V row][Q column]: MN-major),
    // B = K ([K/V row][d]: MN-major); 8 k-steps over the K/V rows.
    auto issue_dq = [&](const uint8_t* dsb) {
      wgmma_fence_operand(dq.v[0]);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk)
        wgmma_ss<kD, f16, f16, Major::MN, Major::MN>(
            dq.v[0], wgmma_desc_mn<128, kBN>(dsb + c * kTile128, kk),
            wgmma_desc_mn<128, kBN>(sk, kk), kk > 0 ? 1 : 0);
      wgmma_commit();
      wgmma_fence_operand(dq.v[0]);
    };

    if (leader) {
      tma_prefetch_desc(&map_dq);
      tma_prefetch_desc(&map_dk);
      tma_prefetch_desc(&map_dv);
    }
    mbar_wait(&bars->kv, 0);
    if constexpr (kKvRegs >= 2) load_a(ka, sk);
    if constexpr (kKvRegs >= 1) load_a(va, sv);
    bars->q.wait_full(0);
    issue_s(0);
    wgmma_wait<0>();

    // dq (retired) of step j into DQ rows 128j + 64c ..
    auto dq_out = [&](uint32_t j) {
      const int q_row = tile_row(j) + 64 * c;
      if constexpr (kDqRed) {
        // Lanes l and l^1 hold columns cq, cq+1 and cq^2, (cq^2)+1 of rows r and r+8: the even
        // lane adds row r's four columns, the odd lane row r+8's.
        const bool odd = (t & 1) != 0;
        const int r = 16 * (t / 32) + (t % 32) / 4 + (odd ? 8 : 0);
        float* row_ptr = dq_ptr + static_cast<long long>(q_row + r) * kD + (cq & ~2);
#pragma unroll
        for (int k = 0; k < kD / 8; ++k) {
          const float* e = &dq.v[0][4 * k];
          const float sx = odd ? e[0] : e[2], sy = odd ? e[1] : e[3];
          const float rx = __shfl_xor_sync(0xffffffffu, sx, 1);
          const float ry = __shfl_xor_sync(0xffffffffu, sy, 1);
          float v4[4], unused[4];
          v4[0] = odd ? rx : e[0];
          v4[1] = odd ? ry : e[1];
          v4[2] = odd ? e[2] : rx;
          v4[3] = odd ? e[3] : ry;
          atom_add_v4<AtomSem::relaxed, AtomScope::gpu, false>(row_ptr + 8 * k, v4, unused);
        }
      } else if constexpr (kDqWriter) {
        named_bar_sync(kDqEmpty + c, kDqThreads);  // the writer has read the previous tile out
        acc_store_box_f32<128, 32>(stage, dq, 0, 0, 0);
        acc_store_box_f32<128, 32>(stage + kDqBox, dq, 0, 32, 0);
        fence_proxy_async();
        named_bar_arrive(kDqFull + c, kDqThreads);
      } else {
        acc_store_box_f32<128, 32>(stage, dq, 0, 0, 0);
        acc_store_box_f32<128, 32>(stage + kDqBox, dq, 0, 32, 0);
        fence_proxy_async();
        warpgroup_sync(kWgBar + c);
        if (leader) {
          tma_reduce_add_2d(&map_dq, stage, 0, q_row);
          tma_reduce_add_2d(&map_dq, stage + kDqBox, 32, q_row);
          tma_commit();
        }
      }
    };

    // One step; kMore = a next step exists (its S is issued at the end of this one). The last
    // step is a separate instance so that no wgmma issue or wait depends on a run-time
    // condition, and nothing is in flight across the loop's back edge (S(j+1) is retired at the
    // end of step j): ptxas (nvcc 13.0) cannot count wgmma groups across a back edge, and a
    // wgmma_wait at the top of the next step that it cannot prove retires S(j+1) makes it
    // serialize every wgmma of the kernel (C7514).
    auto step = [&](uint32_t j, auto more) {
      constexpr bool kMore = decltype(more)::value;
      const uint32_t slot = Ring<kStages>::slot(j);
      uint8_t* q = sq + slot * kTile128;
      uint8_t* d = sdo + slot * kTile128;
      const float* mrow = sm + slot * kBM;
      const float* dirow = sdi + slot * kBM;
      uint8_t* dsb = sds + (j % 2) * kDsBytes;
      bars->dO.wait_full(j);
      issue_dp(j);  // S(j) retired at the end of the previous step (or before the loop)
      // Pᵀ = exp2(Sᵀ·log2e − M[column]): element i of a slab is column 8(i/4) + cq + i%2.
#pragma unroll
      for (int k = 0; k < kBM / 8; ++k) {
        const float2 mm = *reinterpret_cast<const float2*>(mrow + 8 * k + cq);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const float x = fmaf(s.v[0][4 * k + r], kLog2e, -(r % 2 ? mm.y : mm.x));
          s.v[0][4 * k + r] = poly_block(k) ? exp2_poly(x) : fast_exp2(x);
        }
      }
      acc_convert<f16>(p, s);
      issue_rs(dv, p, d, j == 0);
      wgmma_wait<1>();  // dP(j) retired; dV(j) keeps running
      wgmma_fence_operand(dp.v[0]);
      // dSᵀ = Pᵀ ⊙ (dPᵀ − Di[column]), with Pᵀ read back from its f16 copy (s is not kept live
      // across the dV issue: it would cost 64 registers).
#pragma unroll
      for (int k = 0; k < kBM / 8; ++k) {
        const float2 dd = *reinterpret_cast<const float2*>(dirow + 8 * k + cq);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float2 pp = unpack2<f16>(p.p[0][2 * k + h]);
          dp.v[0][4 * k + 2 * h] = pp.x * (dp.v[0][4 * k + 2 * h] - dd.x);
          dp.v[0][4 * k + 2 * h + 1] = pp.y * (dp.v[0][4 * k + 2 * h + 1] - dd.y);
        }
      }
      // This consumer's 64 rows of dSᵀ into both Q-column boxes of buffer b.
      acc_store_box<f16, 128, 64>(dsb, dp, 0, 0, 64 * c);
      acc_store_box<f16, 128, 64>(dsb + kTile128, dp, 0, 64, 64 * c);
      acc_convert<f16>(ds, dp);
      fence_proxy_async();
      issue_rs(dk, ds, q, j == 0);
      if constexpr (!kDqRed && !kDqWriter) {
        if (leader) tma_wait_read<0>();  // the staging is free again (its last reduce-add)
      }
      named_bar_sync(kDsBar, 2 * 128);
      issue_dq(dsb);
      wgmma_wait<1>();  // dV(j), dK(j) retired: Q(j), dO(j) are free
      wgmma_fence_operand(dv.v[0]);
      wgmma_fence_operand(dk.v[0]);
      wgmma_fence_operand(p.p[0]);
      wgmma_fence_operand(ds.p[0]);
      if (lane0) {
        bars->q.release(j);
        bars->dO.release(j);
      }
      // dQ(j) retired; S(j+1) keeps running under the dQ epilogue.
      if constexpr (!kMore) {
        wgmma_wait<0>();
      } else {
        bars->q.wait_full(j + 1);
        issue_s(j + 1);
        wgmma_wait<1>();
      }
      wgmma_fence_operand(dq.v[0]);
      dq_out(j);
      if constexpr (kMore) {
        wgmma_wait<0>();  // S(j+1) retired: nothing crosses the back edge
        wgmma_fence_operand(s.v[0]);
      }
    };
    for (uint32_t j = 0; j + 1 < n; ++j) step(j, std::true_type{});
    step(n - 1, std::false_type{});

    // Epilogue: dK, dV to f16 through this consumer's staging area, TMA stores.
    if constexpr (kDqWriter) {
      named_bar_sync(kDqEmpty + c, kDqThreads);  // the writer has read the last dQ tile out
    } else {
      if (leader) tma_wait_read<0>();
      warpgroup_sync(kWgBar + c);
    }
    acc_store_box<f16, 128, 64>(stage, dk, 0, 0, 0);
    acc_store_box<f16, 128, 64>(stage + kTile64, dv, 0, 0, 0);
    fence_proxy_async();
    warpgroup_sync(kWgBar + c);
    if (leader) {
      tma_store_2d(&map_dk, stage, 0, kv_row + 64 * c);
      tma_store_2d(&map_dv, stage + kTile64, 0, kv_row + 64 * c);
      tma_commit();
      tma_wait_read<0>();
    }
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

// Arguments (kernel.py order): Q, K, V, DO, M, Di, DQ, DK, DV (ptr), BH, N_CTX (i).
extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 11) return cudaErrorInvalidValue;
  void* q = args[0].ptr;
  void* k = args[1].ptr;
  void* v = args[2].ptr;
  void* dout = args[3].ptr;
  void* m = args[4].ptr;
  void* di = args[5].ptr;
  void* dq = args[6].ptr;
  void* dk = args[7].ptr;
  void* dv = args[8].ptr;
  const long long BH = args[9].i, N = args[10].i;
  if (BH < 0 || N < 0 || N % kBN != 0 || BH > 0x7fffffffLL || N > 0x7fffffffLL)
    return cudaErrorInvalidValue;
  if (BH == 0 || N == 0) return cudaSuccess;  // no programs
  // Row coordinates are int32 in the kernel and in TMA.
  if (BH > 0x7fffffffLL / N) return cudaErrorInvalidValue;
  const long long rows = BH * N;
  for (void* ptr : {q, k, v, dout, m, di, dq, dk, dv})
    if (ptr == nullptr || reinterpret_cast<uintptr_t>(ptr) % 16 != 0) return cudaErrorInvalidValue;

  CUtensorMap map_q, map_k, map_v, map_do, map_m, map_di, map_dq, map_dk, map_dv;
  const auto h = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const auto f = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const uint64_t dims1[1] = {static_cast<uint64_t>(rows)};
  const uint32_t box1[1] = {kBM};
  cudaError_t e;
  if ((e = tma_make_map_2d(&map_q, h, 2, q, rows, kD, kD, kBM, 64, TmaSwizzle::b128)) ||
      (e = tma_make_map_2d(&map_k, h, 2, k, rows, kD, kD, kBN, 64, TmaSwizzle::b128)) ||
      (e = tma_make_map_2d(&map_v, h, 2, v, rows, kD, kD, kBN, 64, TmaSwizzle::b128)) ||
      (e = tma_make_map_2d(&map_do, h, 2, dout, rows, kD, kD, kBM, 64, TmaSwizzle::b128)) ||
      (e = tma_make_map(&map_m, f, 1, m, dims1, nullptr, box1, TmaSwizzle::none)) ||
      (e = tma_make_map(&map_di, f, 1, di, dims1, nullptr, box1, TmaSwizzle::none)) ||
      (e = tma_make_map_2d(&map_dq, f, 4, dq, rows, kD, kD, 64, 32, TmaSwizzle::b128)) ||
      (e = tma_make_map_2d(&map_dk, h, 2, dk, rows, kD, kD, 64, 64, TmaSwizzle::b128)) ||
      (e = tma_make_map_2d(&map_dv, h, 2, dv, rows, kD, kD, 64, 64, TmaSwizzle::b128)))
    return e;

  static int attr_dev = -1;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if (attr_dev != dev) {
    if ((e = cudaFuncSetAttribute(attn_bwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    attr_dev = dev;
  }
  const int kv_blocks = static_cast<int>(N / kBN);
  const long long ctas = BH * kv_blocks;  // <= rows / 128
  attn_bwd_kernel<<<dim3(static_cast<unsigned>(ctas)), kThreads, kSmemAlloc, stream>>>(
      map_q, map_k, map_v, map_do, map_m, map_di, map_dq, map_dk, map_dv, static_cast<float*>(dq),
      static_cast<int>(N), kv_blocks);
  return cudaGetLastError();
}
