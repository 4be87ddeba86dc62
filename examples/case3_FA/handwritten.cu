// Hand-written Hopper attention forward for case3 (FlashAttention-3 structure): bf16 Q, K, V, O
// [Z·H·N_CTX, 128] row-major, base-2 online softmax, O = softmax(Q·Kᵀ·sm_scale)·V and the base-2
// log-sum-exp M [Z·H·N_CTX] (f32), exactly the computation of kernel.py. One CTA per 128 query
// rows of one head; N_CTX a multiple of 128 (no masking). Warp specialized: one producer
// warpgroup (one elected thread issues TMA: Q once, K and V through two rings) and two consumer
// warpgroups (64 query rows each) that, inside a warpgroup, run the softmax of key block j while
// the P·V MMA of block j-1 is still in flight, and ping-pong between each other so that one
// warpgroup's softmax runs while the other one's MMAs occupy the tensor cores. It is the reference
// the generated kernel is compared against: it uses only the sched2cu runtime headers and must
// never contain PTX, nor change the launch ABI of kernel.py (docs/abi.md, README.md).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sched2cu/abi.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

// Tuning knobs. SCHED2CU_HW_STAGES: depth of each of the K and V rings (32 KB a slot; 3 uses
// 224 KB of shared memory, 2 is FA3's depth for this head dim and uses 160 KB).
// SCHED2CU_HW_PINGPONG: 1 = order the two consumer warpgroups' MMA issue with named barriers
// (FA3's warp-scheduler barriers), 0 = let them issue freely (for measuring what it buys).
#ifndef SCHED2CU_HW_STAGES
#define SCHED2CU_HW_STAGES 3
#endif
#ifndef SCHED2CU_HW_PINGPONG
#define SCHED2CU_HW_PINGPONG 1
#endif

namespace {

using namespace sched2cu::rt;
using bf16 = __nv_bfloat16;

constexpr int kD = 128;   // head dim
constexpr int kBM = 128;  // query rows per CTA (64 per consumer warpgroup)
constexpr int kBN = 128;  // keys per step
constexpr int kStages = SCHED2CU_HW_STAGES;
static_assert(kStages == 2 || kStages == 3, "K/V rings of 2 or 3 slots fit in 227 KB");
constexpr bool kPingPong = SCHED2CU_HW_PINGPONG != 0;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kConsumerWarps = 4 * kConsumers;
// Register split: 24 + 240 + 240 = 504 per thread triple = 64,512 of 65,536 registers. The
// kernel is compiled at 168 registers (65,536 / 384, rounded down to 8), so the pool is 168 × 384
// and the producer's decrease frees exactly what the consumers' increases take.
constexpr int kProducerRegs = 24;
constexpr int kConsumerRegs = 240;
static_assert(kProducerRegs + kConsumers * kConsumerRegs <= 3 * 168, "register pool");

// A tile of 128 rows × 128 bf16 columns (a Q tile, a K slot, a V slot) is two 128B-swizzled TMA
// boxes [128 rows][64 columns] of 16 KB, box b holding columns 64b .. 64b+63.
constexpr uint32_t kBoxBytes = 128 * 64 * 2;    // 16 KB
constexpr uint32_t kTileBytes = 2 * kBoxBytes;  // 32 KB
constexpr uint32_t kHalfBox = 64 * 128;         // 64 rows of a box: one consumer's rows, 8 KB

// Named barriers (0 is __syncthreads): kSchedBar + c is consumer c's MMA turn (c syncs on it,
// the other consumer arrives on it: 256 threads a phase); kEpiBar + c synchronizes consumer c's
// own 128 threads around its epilogue staging.
constexpr int kSchedBar = 1;  // ids 1, 2
constexpr int kEpiBar = 3;    // ids 3, 4
constexpr int kSchedThreads = 2 * 128;

struct Barriers {
  Ring<kStages> k;  // K slots: full = the producer's arm (+32 KB), empty = 8 consumer warps
  Ring<kStages> v;  // V slots: same counts
  uint64_t q;       // Q tile: 1 arrival (the arm) + 32 KB, waited once at parity 0
};

// Shared memory, from the 1024-aligned base:
//   [0, 32K)               Q (box 0 at 0, box 1 at 16K); later O's staging boxes
//   [32K, 32K + S·32K)     K ring slots
//   [.., + S·32K)          V ring slots
//   then Barriers
constexpr uint32_t kOffQ = 0;
constexpr uint32_t kOffK = kTileBytes;
constexpr uint32_t kOffV = kOffK + kStages * kTileBytes;
constexpr uint32_t kOffBar = kOffV + kStages * kTileBytes;
constexpr uint32_t kSmemBytes = kOffBar + sizeof(Barriers);
constexpr uint32_t kSmemAlloc = kSmemBytes + 1024;  // smem_align<1024> slack
static_assert(kSmemAlloc <= 227 * 1024, "shared memory budget");

// x[0] = f over x[0 .. W) by a balanced tree (independent combines for ILP). Spelled as fixed
// strides, so every index is a constant once unrolled (a loop with a non-affine stride was not
// unrolled by nvcc 13 and put the arrays in local memory).
template <int W, class F>
__device__ __forceinline__ void tree_reduce(float (&x)[kBN / 4], F f) {
#pragma unroll
  for (int k = 0; k < W / 2; ++k) x[k] = f(x[k], x[k + W / 2]);
  if constexpr (W > 2) tree_reduce<W / 2>(x, f);
}

// This thread's share of a row reduction of an S tile: x0 = f over its 32 elements of row l/4,
// x1 over row l/4 + 8 (no cross-lane step).
template <class F>
__device__ __forceinline__ void thread_row_reduce(float& x0, float& x1, const AccTile<64, kBN>& a,
                                                  F f) {
  float r0[kBN / 4], r1[kBN / 4];
#pragma unroll
  for (int b = 0; b < kBN / 8; ++b) {
    r0[2 * b] = a.v[0][4 * b];
    r0[2 * b + 1] = a.v[0][4 * b + 1];
    r1[2 * b] = a.v[0][4 * b + 2];
    r1[2 * b + 1] = a.v[0][4 * b + 3];
  }
  tree_reduce<kBN / 4>(r0, f);
  tree_reduce<kBN / 4>(r1, f);
  x0 = r0[0];
  x1 = r1[0];
}

// ---- protocol --------------------------------------------------------------------------------
// n = N_CTX / 128 key blocks; K(j), V(j) = key block j; both rings are indexed by j.
//
// Producer (warpgroup 0, one elected thread; the other 127 threads exit at once):
//   arm q (32 KB); load Q box 0, box 1
//   load K(0); for j = 1 .. n-1: { load K(j); load V(j-1) }; load V(n-1)
//   where load X(j) = X.wait_empty(j); X.arm(j, 32 KB); two box loads on X.full_bar(j).
//   The issue order is the consumers' consumption order (K(j) before V(j-1)), so waiting on
//   one ring never delays a load that is needed earlier.
//
// Consumer c (warpgroups 1, 2; rows 64c .. 64c+63; s = S/P tile f32, o = O f32, p = P bf16):
//   c == 1: arrive SB(0)                       (consumer 0 gets the first turn)
//   wait q
//   turn 0:    K.wait_full(0); sync SB(c); S(0) = Q·K(0)ᵀ; commit; arrive SB(1-c)
//              wgmma_wait<0>; release K(0); softmax(0) -> alpha(0), s = P(0) (f32)
//   turn j (1 <= j < n; the loop is rotated so that its back edge follows the softmax):
//              wgmma_wait<0>               (PV(j-2) retired; nothing pending when j == 1)
//              release V(j-2) (j >= 2); p = bf16(s) = P(j-1)
//              K.wait_full(j); sync SB(c); S(j) = Q·K(j)ᵀ; commit
//              o *= alpha(j-1)             (o is not in flight: PV(j-2) retired above)
//              V.wait_full(j-1); O += p·V(j-1) (scale-d 0 on the first PV); commit
//              arrive SB(1-c)
//              wgmma_wait<1>               (S(j) retired; PV(j-1) may still run)
//              release K(j); softmax(j) on s (overlaps PV(j-1), which reads only o, p, V)
//   after:     wgmma_wait<0>; release V(n-2) (n >= 2); p = bf16(s) = P(n-1)
//   turn n:    V.wait_full(n-1); sync SB(c); o *= alpha(n-1); O += p·V(n-1); commit
//              c == 0: arrive SB(1)        (consumer 1 still needs its turn n)
//              wgmma_wait<0>; release V(n-1)
//   epilogue:  l = quad sum; o /= l; M = m + log2 l (global stores);
//              sync EB(c); o -> bf16 boxes in this consumer's own Q rows; fence_proxy_async;
//              sync EB(c); leader: 2 TMA stores, commit, tma_wait_read<0>
//
// Balance of the turn barriers (T = n + 1 turns each): SB(0) gets T syncs from consumer 0 and
// 1 + (T - 1) arrivals from consumer 1 (the opening one, then one after every turn but its
// last); SB(1) gets T syncs from consumer 1 and T arrivals from consumer 0. Every phase holds one
// sync group and one arrive group, and a consumer only arrives on the other's barrier after its
// own sync completed, so no phase can see two arrive groups. Nothing is left pending at exit.
// Ring counts: full = 1 (the arm; the bytes complete it), empty = 8 = lane 0 of each consumer
// warp, released only after the wgmma_wait that retired the MMAs reading the slot.
// The epilogue needs no barrier between the two consumers: consumer c stages O only in the Q
// rows 64c .. 64c+63 of both boxes, which only its own S MMAs read (all retired by then).

__global__ void __launch_bounds__(kThreads, 1)
    attn_fwd_kernel(const __grid_constant__ CUtensorMap map_q,
                    const __grid_constant__ CUtensorMap map_k,
                    const __grid_constant__ CUtensorMap map_v,
                    const __grid_constant__ CUtensorMap map_o, float* __restrict__ lse,
                    float qk_scale, int n_ctx, int q_blocks) {
  uint8_t* smem = smem_align<1024>(dyn_smem);
  uint8_t* sq = smem + kOffQ;
  uint8_t* sk = smem + kOffK;
  uint8_t* sv = smem + kOffV;
  auto* bars = reinterpret_cast<Barriers*>(smem + kOffBar);

  const int wg = warpgroup_idx();
  if (threadIdx.x == 0) {
    bars->k.init(1, kConsumerWarps);
    bars->v.init(1, kConsumerWarps);
    mbar_init(&bars->q, 1);
    mbar_fence_init();
  }
  __syncthreads();

  // Consecutive CTAs walk the query blocks of one head, so a wave shares a few heads' K and V
  // in L2 (the grid is 1-D: Z·H can exceed gridDim.y's 65535).
  const int hz = static_cast<int>(blockIdx.x) / q_blocks;
  const int qb = static_cast<int>(blockIdx.x) % q_blocks;
  const int kv_row0 = hz * n_ctx;
  const int q_row0 = kv_row0 + qb * kBM;
  const uint32_t n = static_cast<uint32_t>(n_ctx / kBN);

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (warp_idx_in_warpgroup() == 0 && elect_one_sync()) {
      tma_prefetch_desc(&map_q);
      tma_prefetch_desc(&map_k);
      tma_prefetch_desc(&map_v);
      mbar_arrive_expect_tx(&bars->q, kTileBytes);
      tma_load_2d(sq, &map_q, &bars->q, 0, q_row0);
      tma_load_2d(sq + kBoxBytes, &map_q, &bars->q, 64, q_row0);
      auto load = [&](Ring<kStages>& ring, uint8_t* base, const CUtensorMap* map, uint32_t j) {
        uint8_t* dst = base + Ring<kStages>::slot(j) * kTileBytes;
        const int row = kv_row0 + static_cast<int>(j) * kBN;
        ring.wait_empty(j);
        ring.arm(j, kTileBytes);
        tma_load_2d(dst, map, ring.full_bar(j), 0, row);
        tma_load_2d(dst + kBoxBytes, map, ring.full_bar(j), 64, row);
      };
      load(bars->k, sk, &map_k, 0);
      for (uint32_t j = 1; j < n; ++j) {
        load(bars->k, sk, &map_k, j);
        load(bars->v, sv, &map_v, j - 1);
      }
      load(bars->v, sv, &map_v, n - 1);
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int c = wg - 1;
    const int t = thread_idx_in_warpgroup();
    const bool lane0 = (threadIdx.x % 32) == 0;
    // This consumer's 64 Q rows: rows 64c.. of box 0 (box 1 is kBoxBytes further); the
    // descriptors step over boxes with the full tile's 128-row box stride.
    uint8_t* sq_c = sq + c * kHalfBox;
    AccTile<64, kBN> s;     // S(j), then P(j) in f32
    AccTile<64, kD> o;      // O accumulator (never written by ordinary code while a PV runs)
    PackedTile<64, kBN> p;  // P(j-1) in bf16: the register A operand of PV(j-1)
    // Running max (already scaled by qk_scale, base 2) of this thread's two rows, this thread's
    // partial row sums (the quad's four partials are added once, in the epilogue: alpha is the
    // same in all four lanes, so l·alpha + rowsum distributes over the partials), and the
    // rescale factor of the latest step.
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {1.f, 1.f};
    RowVec<64> alpha;
    // o = 0 keeps the first rescale (o·alpha(0), alpha(0) = 0) well defined; the first PV
    // still runs with scale-d 0. (This fill, unlike one ahead of a GEMM's wgmma chain, does
    // not make ptxas serialize: no C7515 with nvcc 13.0.)
    acc_fill(o, 0.f);

    auto sync_turn = [&] {
      if constexpr (kPingPong) named_bar_sync(kSchedBar + c, kSchedThreads);
    };
    auto pass_turn = [&] {
      if constexpr (kPingPong) named_bar_arrive(kSchedBar + (1 - c), kSchedThreads);
    };
    // S(j) = Q·K(j)ᵀ: both operands K-major (K is stored [key][d]); 8 k-steps over d.
    auto issue_s = [&](uint32_t j) {
      uint8_t* ks = sk + Ring<kStages>::slot(j) * kTileBytes;
      wgmma_fence_operand(s.v[0]);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kD / 16; ++kk)
        wgmma_ss<kBN, bf16, bf16, Major::K, Major::K>(s.v[0], wgmma_desc_k<128, 128>(sq_c, kk),
                                                      wgmma_desc_k<128, 128>(ks, kk),
                                                      kk > 0 ? 1 : 0);
      wgmma_commit();
      wgmma_fence_operand(s.v[0]);
    };
    // O += P(j)·V(j): A = p from registers, B = V stored [key][d] = MN-major; 8 k-steps over keys.
    // `acc` = 0 on the first PV: D = A·B.
    auto issue_pv = [&](uint32_t j, bool acc) {
      uint8_t* vs = sv + Ring<kStages>::slot(j) * kTileBytes;
      wgmma_fence_operand(o.v[0]);
      wgmma_fence_operand(p.p[0]);
      wgmma_fence();  // o was rescaled and p converted by ordinary instructions
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        uint32_t a[4];
        packed_to_a(a, p, 0, kk);
        wgmma_rs<kD, bf16, bf16, Major::MN>(o.v[0], a, wgmma_desc_mn<128, 128>(vs, kk),
                                            (acc || kk > 0) ? 1 : 0);
      }
      wgmma_commit();
      wgmma_fence_operand(o.v[0]);
      wgmma_fence_operand(p.p[0]);
    };
    // Online softmax of S(j) in place: m' = max(m, rowmax(s)·qk_scale), alpha = exp2(m - m'),
    // s = exp2(s·qk_scale - m') (one FFMA + one MUFU.EX2 per element), l = l·alpha + rowsum(s).
    auto softmax = [&] {
      float mx[2];
      thread_row_reduce(mx[0], mx[1], s, [](float a, float b) { return fmaxf(a, b); });
      float neg_m[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));  // the row's quad
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
        const float mn = fmaxf(m[h], mx[h] * qk_scale);
        alpha.v[0][h] = fast_exp2(m[h] - mn);  // m = -inf on the first step: alpha = 0
        m[h] = mn;
        neg_m[h] = -mn;
      }
#pragma unroll
      for (int i = 0; i < kBN / 2; ++i)
        s.v[0][i] = fast_exp2(fmaf(s.v[0][i], qk_scale, neg_m[(i % 4) / 2]));
      float sum[2];
      thread_row_reduce(sum[0], sum[1], s, [](float a, float b) { return a + b; });
      l[0] = fmaf(l[0], alpha.v[0][0], sum[0]);
      l[1] = fmaf(l[1], alpha.v[0][1], sum[1]);
    };
    auto release = [&](Ring<kStages>& ring, uint32_t j) {
      if (lane0) ring.release(j);
    };

    if (c == 1 && kPingPong) named_bar_arrive(kSchedBar + 0, kSchedThreads);
    if (t == 0) tma_prefetch_desc(&map_o);
    mbar_wait(&bars->q, 0);

    // Turn 0: S(0) only.
    bars->k.wait_full(0);
    sync_turn();
    issue_s(0);
    pass_turn();
    wgmma_wait<0>();
    wgmma_fence_operand(s.v[0]);
    release(bars->k, 0);
    softmax();

    // Turns 1 .. n-1. The loop is rotated so that its back edge lies between softmax(j-1) and
    // the wait that retires PV(j-2): within one basic block ptxas (nvcc 13.0) hoists that
    // WARPGROUP.DEPBAR above the whole softmax (it looks free to its scheduler), which would
    // serialize softmax(j-1) behind PV(j-2) and undo the intra-warpgroup overlap.
    for (uint32_t j = 1; j < n; ++j) {
      wgmma_wait<0>();  // PV(j-2) retired (nothing pending when j == 1)
      wgmma_fence_operand(o.v[0]);
      wgmma_fence_operand(p.p[0]);
      if (j >= 2) release(bars->v, j - 2);
      acc_convert<bf16>(p, s);  // P(j-1): p is free now
      bars->k.wait_full(j);
      sync_turn();
      issue_s(j);
      acc_mul_row(o, o, alpha);  // O *= alpha(j-1), under S(j)
      bars->v.wait_full(j - 1);
      issue_pv(j - 1, j > 1);
      pass_turn();
      wgmma_wait<1>();  // S(j) retired; PV(j-1) keeps running under the softmax
      wgmma_fence_operand(s.v[0]);
      release(bars->k, j);
      softmax();
    }
    wgmma_wait<0>();
    wgmma_fence_operand(o.v[0]);
    wgmma_fence_operand(p.p[0]);
    if (n >= 2) release(bars->v, n - 2);
    acc_convert<bf16>(p, s);  // P(n-1)

    // Turn n: the last PV.
    bars->v.wait_full(n - 1);
    sync_turn();
    acc_mul_row(o, o, alpha);
    issue_pv(n - 1, n > 1);
    if (c == 0) pass_turn();  // consumer 1's last turn is the last one: it passes nothing
    wgmma_wait<0>();
    wgmma_fence_operand(o.v[0]);
    release(bars->v, n - 1);

    // Epilogue: l over the quad, O / l, M = m + log2(l).
    RowVec<64> inv;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
      inv.v[0][h] = fast_rcp(l[h]);
    }
    acc_mul_row(o, o, inv);
    const int row = q_row0 + 64 * c + 16 * (t / 32) + (t % 32) / 4;
    if (t % 4 == 0) {
      lse[row] = m[0] + fast_log2(l[0]);
      lse[row + 8] = m[1] + fast_log2(l[1]);
    }
    // Every warp of this warpgroup is past its last wgmma_wait: its Q rows are dead.
    warpgroup_sync(kEpiBar + c);
    acc_store_box<bf16, 128, 64>(sq_c, o, 0, 0, 0);
    acc_store_box<bf16, 128, 64>(sq_c + kBoxBytes, o, 0, 64, 0);
    fence_proxy_async();
    warpgroup_sync(kEpiBar + c);
    if (t == 0) {
      tma_store_2d(&map_o, sq_c, 0, q_row0 + 64 * c);
      tma_store_2d(&map_o, sq_c + kBoxBytes, 64, q_row0 + 64 * c);
      tma_commit();
      // Only the shared-memory reads must finish before the CTA (and its shared memory) goes
      // away; the global writes of bulk stores complete before the grid does (CUTLASS's
      // tma_store_wait is the same .read wait). The next CTA on this SM starts sooner.
      tma_wait_read<0>();
    }
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

// Arguments (kernel.py order): Q, K, V, O, M (ptr), sm_scale (f), Z, H, N_CTX (i).
extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (args == nullptr || nargs != 9) return cudaErrorInvalidValue;
  void* q = args[0].ptr;
  void* k = args[1].ptr;
  void* v = args[2].ptr;
  void* o = args[3].ptr;
  auto* m = static_cast<float*>(args[4].ptr);
  const float sm_scale = static_cast<float>(args[5].f);  // fp32 in kernel.py's signature
  const long long Z = args[6].i, H = args[7].i, N = args[8].i;
  if (Z < 0 || H < 0 || N < 0 || N % kBN != 0 || Z > 0x7fffffffLL || H > 0x7fffffffLL ||
      N > 0x7fffffffLL)
    return cudaErrorInvalidValue;
  if (Z == 0 || H == 0 || N == 0) return cudaSuccess;  // no programs
  const long long heads = Z * H;
  // Row coordinates are int32 in the kernel and in TMA.
  if (heads > 0x7fffffffLL / N) return cudaErrorInvalidValue;
  const long long rows = heads * N;
  if ((reinterpret_cast<uintptr_t>(q) | reinterpret_cast<uintptr_t>(k) |
       reinterpret_cast<uintptr_t>(v) | reinterpret_cast<uintptr_t>(o)) %
              16 !=
          0 ||
      reinterpret_cast<uintptr_t>(m) % 4 != 0 || q == nullptr || k == nullptr || v == nullptr ||
      o == nullptr || m == nullptr)
    return cudaErrorInvalidValue;

  CUtensorMap map_q, map_k, map_v, map_o;
  const auto dt = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  cudaError_t e;
  if ((e = tma_make_map_2d(&map_q, dt, 2, q, rows, kD, kD, 128, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_k, dt, 2, k, rows, kD, kD, 128, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_v, dt, 2, v, rows, kD, kD, 128, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;
  if ((e = tma_make_map_2d(&map_o, dt, 2, o, rows, kD, kD, 64, 64, TmaSwizzle::b128)) !=
      cudaSuccess)
    return e;

  static int attr_dev = -1;
  int dev = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if (attr_dev != dev) {
    if ((e = cudaFuncSetAttribute(attn_fwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kSmemAlloc)) != cudaSuccess)
      return e;
    attr_dev = dev;
  }
  const int q_blocks = static_cast<int>(N / kBM);
  const long long ctas = heads * q_blocks;        // <= rows / 128
  const float qk_scale = sm_scale * 1.44269504f;  // log2(e), as kernel.py
  attn_fwd_kernel<<<dim3(static_cast<unsigned>(ctas)), kThreads, kSmemAlloc, stream>>>(
      map_q, map_k, map_v, map_o, m, qk_scale, static_cast<int>(N), q_blocks);
  return cudaGetLastError();
}
