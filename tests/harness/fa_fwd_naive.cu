// A slow but obviously right case3_FA kernel, to validate that case's bench_spec.cpp reference on
// the H200 independently of any generated or hand-tuned kernel: h200_validate.sh copies the spec
// into a scratch corpus with this file as handwritten.cu and runs `check` (and `bench`, for the
// vendor column). One warp per query row, f32 throughout (P never rounded to bf16), the base-2
// online softmax of kernel.py. Same launch ABI as the case: (Q, K, V, O, M, sm_scale, Z, H,
// N_CTX). Never use it as a baseline: it is written to be checked by eye, not to be fast.
#include <cuda_bf16.h>

#include <cmath>

#include "sched2cu/abi.h"

namespace {

constexpr int kD = 128;  // head dim; each lane owns 4 of the 128 columns
constexpr int kWarpsPerBlock = 8;

__device__ void load4(const __nv_bfloat16* p, float* out) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);  // 4 bf16: 8 bytes, one per lane
  out[0] = __uint_as_float(raw.x << 16);
  out[1] = __uint_as_float(raw.x & 0xffff0000u);
  out[2] = __uint_as_float(raw.y << 16);
  out[3] = __uint_as_float(raw.y & 0xffff0000u);
}

__global__ void attn_fwd_naive(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                               const __nv_bfloat16* V, __nv_bfloat16* O, float* M, float qk_scale,
                               long long n_ctx, long long rows) {
  const long long row = blockIdx.x * (long long)kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const long long head_base = row / n_ctx * n_ctx;  // first row of this (z, h)
  float q[4], acc[4] = {0.f, 0.f, 0.f, 0.f};
  load4(Q + row * kD + lane * 4, q);
  float m = -INFINITY, l = 0.f;
  for (long long j = 0; j < n_ctx; ++j) {
    float k[4], v[4];
    load4(K + (head_base + j) * kD + lane * 4, k);
    float s = q[0] * k[0] + q[1] * k[1] + q[2] * k[2] + q[3] * k[3];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    const float x = s * qk_scale, m_new = fmaxf(m, x);
    const float alpha = exp2f(m - m_new), p = exp2f(x - m_new);
    load4(V + (head_base + j) * kD + lane * 4, v);
    l = l * alpha + p;
    for (int d = 0; d < 4; ++d) acc[d] = acc[d] * alpha + p * v[d];
    m = m_new;
  }
  for (int d = 0; d < 4; ++d) O[row * kD + lane * 4 + d] = __float2bfloat16_rn(acc[d] / l);
  if (lane == 0) M[row] = m + log2f(l);
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 9) return cudaErrorInvalidValue;
  const long long z = a[6].i, h = a[7].i, n = a[8].i;
  if (z <= 0 || h <= 0 || n <= 0) return cudaErrorInvalidValue;
  const long long rows = z * h * n;
  const float qk_scale = float(a[5].f) * 1.44269504f;  // as kernel.py
  const long long blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  attn_fwd_naive<<<unsigned(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(a[0].ptr), static_cast<const __nv_bfloat16*>(a[1].ptr),
      static_cast<const __nv_bfloat16*>(a[2].ptr), static_cast<__nv_bfloat16*>(a[3].ptr),
      static_cast<float*>(a[4].ptr), qk_scale, n, rows);
  return cudaGetLastError();
}
