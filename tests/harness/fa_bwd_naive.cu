// A slow but obviously right case4_FA_bwd kernel, to validate that case's bench_spec.cpp on the
// H200 independently of any generated or hand-tuned kernel: copy the spec into a scratch corpus
// with this file as handwritten.cu and run `check`. It ignores the M and Di inputs and
// recomputes both per query row from Q, K, V, dO (the forward's base-2 online softmax, then
// O and rowsum(dO ⊙ O)), so a wrong M or Di from the spec's init_inputs fails the check too.
// f32 throughout (P and dS never rounded to f16), one warp per row, each lane owning 2 of the 64
// columns. Same launch ABI as the case: (Q, K, V, DO, M, Di, DQ, DK, DV, BH, N_CTX). Never use
// it as a baseline: it is written to be checked by eye, not to be fast.
#include <cuda_fp16.h>

#include <cmath>

#include "sched2cu/abi.h"

namespace {

constexpr int kD = 64;
constexpr int kWarpsPerBlock = 8;
constexpr long long kMaxRows = 1 << 17;  // the largest spec shape: 64 heads of 2048 rows
constexpr float kLog2e = 1.44269504f;

// Per query row, written by rows_pass and read by keys_pass (same stream, so ordered).
__device__ float g_lse[kMaxRows];
__device__ float g_di[kMaxRows];

__device__ void load2(const __half* p, long long row, int lane, float* out) {
  out[0] = __half2float(p[row * kD + 2 * lane]);
  out[1] = __half2float(p[row * kD + 2 * lane + 1]);
}

__device__ float warp_dot(const float* a, const float* b) {
  float s = a[0] * b[0] + a[1] * b[1];
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}

// One warp per query row i: LSE_i and O_i by the online softmax over every key, Di_i = dO_i·O_i,
// then dQ_i = Σ_j P_ij (dO_i·V_j − Di_i) K_j.
__global__ void rows_pass(const __half* Q, const __half* K, const __half* V, const __half* DO,
                          float* DQ, long long n_ctx, long long rows) {
  const long long row = blockIdx.x * (long long)kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const long long head = row / n_ctx * n_ctx;  // first row of this (batch·head)
  float q[2], d_o[2], acc[2] = {0.f, 0.f};
  load2(Q, row, lane, q);
  load2(DO, row, lane, d_o);
  float m = -INFINITY, l = 0.f;
  for (long long j = head; j < head + n_ctx; ++j) {
    float k[2], v[2];
    load2(K, j, lane, k);
    load2(V, j, lane, v);
    const float x = warp_dot(q, k) * kLog2e, m_new = fmaxf(m, x);
    const float alpha = exp2f(m - m_new), p = exp2f(x - m_new);
    l = l * alpha + p;
    for (int d = 0; d < 2; ++d) acc[d] = acc[d] * alpha + p * v[d];
    m = m_new;
  }
  const float lse = m + log2f(l);
  const float o[2] = {acc[0] / l, acc[1] / l};
  const float di = warp_dot(d_o, o);
  float dq[2] = {0.f, 0.f};
  for (long long j = head; j < head + n_ctx; ++j) {
    float k[2], v[2];
    load2(K, j, lane, k);
    load2(V, j, lane, v);
    const float p = exp2f(warp_dot(q, k) * kLog2e - lse);
    const float ds = p * (warp_dot(d_o, v) - di);
    for (int d = 0; d < 2; ++d) dq[d] += ds * k[d];
  }
  for (int d = 0; d < 2; ++d) DQ[row * kD + 2 * lane + d] = dq[d];
  if (lane == 0) {
    g_lse[row] = lse;
    g_di[row] = di;
  }
}

// One warp per key row j: dV_j = Σ_i P_ij dO_i, dK_j = Σ_i P_ij (dO_i·V_j − Di_i) Q_i.
__global__ void keys_pass(const __half* Q, const __half* K, const __half* V, const __half* DO,
                          __half* DK, __half* DV, long long n_ctx, long long rows) {
  const long long row = blockIdx.x * (long long)kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const long long head = row / n_ctx * n_ctx;
  float k[2], v[2], dk[2] = {0.f, 0.f}, dv[2] = {0.f, 0.f};
  load2(K, row, lane, k);
  load2(V, row, lane, v);
  for (long long i = head; i < head + n_ctx; ++i) {
    float q[2], d_o[2];
    load2(Q, i, lane, q);
    load2(DO, i, lane, d_o);
    const float p = exp2f(warp_dot(q, k) * kLog2e - g_lse[i]);
    const float ds = p * (warp_dot(d_o, v) - g_di[i]);
    for (int d = 0; d < 2; ++d) {
      dv[d] += p * d_o[d];
      dk[d] += ds * q[d];
    }
  }
  for (int d = 0; d < 2; ++d) {
    DK[row * kD + 2 * lane + d] = __float2half_rn(dk[d]);
    DV[row * kD + 2 * lane + d] = __float2half_rn(dv[d]);
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 11) return cudaErrorInvalidValue;
  const long long bh = a[9].i, n = a[10].i;
  if (bh <= 0 || n <= 0 || bh > kMaxRows / n) return cudaErrorInvalidValue;
  const long long rows = bh * n;
  const unsigned blocks = unsigned((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  const auto* q = static_cast<const __half*>(a[0].ptr);
  const auto* k = static_cast<const __half*>(a[1].ptr);
  const auto* v = static_cast<const __half*>(a[2].ptr);
  const auto* d_o = static_cast<const __half*>(a[3].ptr);
  // a[4] (M) and a[5] (Di) are left unread on purpose: see the header comment.
  rows_pass<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(q, k, v, d_o, static_cast<float*>(a[6].ptr),
                                                        n, rows);
  keys_pass<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      q, k, v, d_o, static_cast<__half*>(a[7].ptr), static_cast<__half*>(a[8].ptr), n, rows);
  return cudaGetLastError();
}
