// Bench spec of case4_FA_bwd: attention backward (dQ, dK, dV), f16, head dim 64, non-causal.
// Launch args as kernel.py's parameters: (Q, K, V, DO, M, Di, DQ, DK, DV, BH, N_CTX). Q, K, V,
// DO are f16 [BH·N, 64] row-major (the contiguous [BH, N, 64] layout); Q is the forward's query
// already scaled by 1/sqrt(64), drawn directly as N(0, 0.125²) (an N(0,1) query times 0.125,
// rounded once to f16); K, V, DO are N(0,1), one seed per tensor. M and Di are inputs
// the forward would have left, computed here on the GPU in f32 from those four (init_inputs):
// M = the base-2 log-sum-exp per query row of S·log2(e), S = Q·Kᵀ; Di = rowsum(dO ⊙ O) with
// O = softmax(S)·V. Outputs DQ f32 (accumulated across programs, hence zero_outputs), DK and DV
// f16. Reference in f32, one head at a time: P = exp2(S·log2e − M), dV = Pᵀ·dO, dP = dO·Vᵀ,
// dS = P ⊙ (dP − Di), dK = dSᵀ·Q, dQ = dS·K. Shapes (BH, N, 64); metric 10·BH·N²·64 TFLOPS
// (five N×N×64 GEMMs, S recomputed). Vendor baseline: cuDNN's attention backward through
// PyTorch, measured by vendor_cudnn.py in its own child (docs/harness.md, "Vendor scripts").
// Never round P or dS to f16 in the reference (that is the kernels' approximation, which the
// tolerance is there to measure), and never leave a scratch allocated on any path.
#include <cmath>
#include <cstdio>

#include <cuda_fp16.h>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kHeadDim = 64;
constexpr int kThreads = 256;
constexpr float kLog2e = 1.44269504f;  // kernel.py's constant: exp(x) == exp2(x·log2(e))
constexpr float kQueryStd = 0.125f;    // 1/sqrt(kHeadDim): Q arrives pre-scaled
// (BH, N_CTX, HEAD_DIM); N_CTX must be a multiple of kernel.py's BLOCK_N (128).
constexpr long long kShapes[][3] = {
    {1, 256, 64}, {2, 512, 64}, {4, 1024, 64}, {1, 2048, 64}, {64, 2048, 64}};
constexpr bool head_dims_ok() {
  for (const auto& s : kShapes) {
    if (s[2] != kHeadDim || s[1] % 128 != 0) return false;
  }
  return true;
}
static_assert(head_dims_ok(), "every shape has head dim 64 and N_CTX a multiple of 128");

__global__ void f16_to_f32(const __half* src, float* dst, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    dst[i] = __half2float(src[i]);
}

// Block-wide max or sum of one value per thread (kThreads threads); every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) {
    float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < kThreads / 32; ++w) v = kMax ? fmaxf(v, scratch[w]) : v + scratch[w];
  __syncthreads();  // scratch is reused by the next reduction
  return v;
}

// One block per query row of S ([n, n] f32), the forward's base-2 softmax: x = s·log2e,
// m = max x, l = Σ exp2(x − m); writes P = exp2(x − m) / l in place and lse = m + log2(l).
__global__ void softmax_rows_base2(float* s, float* lse, long long n) {
  __shared__ float scratch[kThreads / 32];
  float* row = s + blockIdx.x * n;
  float m = -INFINITY;
  for (long long j = threadIdx.x; j < n; j += kThreads) m = fmaxf(m, row[j] * kLog2e);
  m = block_reduce<true>(m, scratch);
  float l = 0.f;
  for (long long j = threadIdx.x; j < n; j += kThreads) l += exp2f(row[j] * kLog2e - m);
  l = block_reduce<false>(l, scratch);
  for (long long j = threadIdx.x; j < n; j += kThreads) row[j] = exp2f(row[j] * kLog2e - m) / l;
  if (threadIdx.x == 0) lse[blockIdx.x] = m + log2f(l);
}

// One warp per row: out[i] = Σ_d a[i, d]·b[i, d] (a f16 dO, b f32 O; Di of the forward).
__global__ void row_dot(const __half* a, const float* b, float* out, long long rows) {
  const long long row = blockIdx.x * (long long)(kThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float acc = 0.f;
  for (long long d = lane; d < kHeadDim; d += 32)
    acc += __half2float(a[row * kHeadDim + d]) * b[row * kHeadDim + d];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) out[row] = acc;
}

// One block per query row i of S ([n, n] f32): P = exp2(s·log2e − M[i]) in place, from the M
// input as the kernels compute it (not re-normalized: M is what the kernels are given).
__global__ void probs_from_lse(float* s, const float* lse, long long n) {
  float* row = s + blockIdx.x * n;
  const float m = lse[blockIdx.x];
  for (long long j = threadIdx.x; j < n; j += kThreads) row[j] = exp2f(row[j] * kLog2e - m);
}

// One block per query row i: dS = P ⊙ (dP − Di[i]) into dp, in f32.
__global__ void grad_scores(const float* p, float* dp, const float* di, long long n) {
  const long long base = blockIdx.x * n;
  const float d = di[blockIdx.x];
  for (long long j = threadIdx.x; j < n; j += kThreads)
    dp[base + j] = p[base + j] * (dp[base + j] - d);
}

// Device scratch freed on every path out of init_inputs() and reference().
struct Scratch {
  void* p = nullptr;
  ~Scratch() {
    if (p) cudaFree(p);
  }
  float* f() const { return static_cast<float*>(p); }
};

Tensor slice(const Tensor& t, long long offset, long long numel) {
  Tensor s = t;
  s.ptr = static_cast<char*>(t.ptr) + offset * (long long)dtype_size(t.dtype);
  s.numel = numel;
  return s;
}

const __half* f16_at(const Tensor& t, long long offset) {
  return static_cast<const __half*>(t.ptr) + offset;
}

class AttentionBwd final : public BenchSpec {
 public:
  double tolerance() const override { return 3e-2; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override {
    return shape_of(kShapes[i][0], kShapes[i][1], kShapes[i][2]);
  }
  bool zero_outputs() const override { return true; }  // DQ is a reduce-add target
  Metric metric(const Shape& s) const override {
    const double n = double(s.d[1]);
    return {10.0 * double(s.d[0]) * n * n * double(kHeadDim), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long rows = s.d[0] * s.d[1];
    l.input("Q", DType::f16, rows * kHeadDim);
    l.input("K", DType::f16, rows * kHeadDim);
    l.input("V", DType::f16, rows * kHeadDim);
    l.input("DO", DType::f16, rows * kHeadDim);
    l.input("M", DType::f32, rows);
    l.input("Di", DType::f32, rows);
    l.output("DQ", DType::f32, rows * kHeadDim);
    l.output("DK", DType::f16, rows * kHeadDim);
    l.output("DV", DType::f16, rows * kHeadDim);
  }

  // Q, K, V, dO at random, then the forward's M and Di from them, one head at a time:
  // S = Q·Kᵀ (cuBLAS f32), the base-2 softmax (P in place, and M), O = P·V, Di = rowsum(dO ⊙ O).
  int init_inputs(const Shape& s, const Tensor* in, uint64_t seed, Host& h) const override {
    if (s.d[2] != kHeadDim) return fail(h, "init_inputs", "head dim must be 64");
    for (int t = 0; t < 4; ++t) {
      const float sd = t == 0 ? kQueryStd : 1.f;
      if (int rc = h.fill_normal(in[t], seed * 4 + uint64_t(t) + 1, 0.f, sd)) return rc;
    }
    const long long heads = s.d[0], n = s.d[1], head = n * kHeadDim;
    Scratch scores, v32, o32;
    if (cudaMalloc(&scores.p, size_t(n * n) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&v32.p, size_t(head) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&o32.p, size_t(head) * sizeof(float)) != cudaSuccess) {
      return fail(h, "init_inputs", "cannot allocate the forward's scratch");
    }
    const Tensor S{scores.p, DType::f32, n * n, "S"};
    const Tensor V32{v32.p, DType::f32, head, "V32"};
    const Tensor O32{o32.p, DType::f32, head, "O32"};
    float* lse = static_cast<float*>(in[4].ptr);
    float* di = static_cast<float*>(in[5].ptr);
    for (long long bh = 0; bh < heads; ++bh) {
      const long long off = bh * head;
      // S = Q_h·K_hᵀ: K_h is stored [N, D], i.e. the transposed [D, N] operand.
      if (int rc = h.gemm_ref_f32(slice(in[0], off, head), false, slice(in[1], off, head), true, S,
                                  n, n, kHeadDim))
        return rc;
      softmax_rows_base2<<<unsigned(n), kThreads>>>(scores.f(), lse + bh * n, n);
      // V_h in f32 so that P·V is one f32 GEMM without an N² conversion copy of P.
      f16_to_f32<<<256, kThreads>>>(f16_at(in[2], off), v32.f(), head);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return fail(h, "init_inputs", cudaGetErrorString(e));
      if (int rc = h.gemm_ref_f32(S, false, V32, false, O32, n, kHeadDim, n)) return rc;
      row_dot<<<unsigned((n + kThreads / 32 - 1) / (kThreads / 32)), kThreads>>>(
          f16_at(in[3], off), o32.f(), di + bh * n, n);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return fail(h, "init_inputs", cudaGetErrorString(e));
    }
    // Before the scratch goes: the last row_dot reads O32.
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      return fail(h, "init_inputs", cudaGetErrorString(e));
    return 0;
  }

  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    if (s.d[2] != kHeadDim) return fail(h, "reference", "head dim must be 64");
    const long long heads = s.d[0], n = s.d[1], head = n * kHeadDim;
    Scratch probs, dprobs, q32, k32, do32;
    if (cudaMalloc(&probs.p, size_t(n * n) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&dprobs.p, size_t(n * n) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&q32.p, size_t(head) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&k32.p, size_t(head) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&do32.p, size_t(head) * sizeof(float)) != cudaSuccess) {
      return fail(h, "reference", "cannot allocate the backward's scratch");
    }
    const Tensor P{probs.p, DType::f32, n * n, "P"};
    const Tensor dP{dprobs.p, DType::f32, n * n, "dP"};  // becomes dS in place
    const Tensor Q32{q32.p, DType::f32, head, "Q32"};
    const Tensor K32{k32.p, DType::f32, head, "K32"};
    const Tensor DO32{do32.p, DType::f32, head, "DO32"};
    const float* lse = static_cast<const float*>(in[4].ptr);
    const float* di = static_cast<const float*>(in[5].ptr);
    for (long long bh = 0; bh < heads; ++bh) {
      const long long off = bh * head;
      const Tensor q = slice(in[0], off, head), k = slice(in[1], off, head);
      const Tensor v = slice(in[2], off, head), d_o = slice(in[3], off, head);
      // f32 copies of the operands that meet P or dS (f32) in a GEMM: cuBLAS takes one type.
      f16_to_f32<<<256, kThreads>>>(f16_at(in[0], off), q32.f(), head);
      f16_to_f32<<<256, kThreads>>>(f16_at(in[1], off), k32.f(), head);
      f16_to_f32<<<256, kThreads>>>(f16_at(in[3], off), do32.f(), head);
      // P = exp2(Q·Kᵀ·log2e − M), row-wise.
      if (int rc = h.gemm_ref_f32(q, false, k, true, P, n, n, kHeadDim)) return rc;
      probs_from_lse<<<unsigned(n), kThreads>>>(probs.f(), lse + bh * n, n);
      // dP = dO·Vᵀ, then dS = P ⊙ (dP − Di) in its place.
      if (int rc = h.gemm_ref_f32(d_o, false, v, true, dP, n, n, kHeadDim)) return rc;
      grad_scores<<<unsigned(n), kThreads>>>(probs.f(), dprobs.f(), di + bh * n, n);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return fail(h, "reference", cudaGetErrorString(e));
      // dV = Pᵀ·dO, dK = dSᵀ·Q, dQ = dS·K into the f32 reference slices (P, dS are [N, N]
      // row-major, so their transposes are the a_trans view).
      if (int rc = h.gemm_ref_f32(P, true, DO32, false, slice(ref[2], off, head), n, kHeadDim, n))
        return rc;
      if (int rc = h.gemm_ref_f32(dP, true, Q32, false, slice(ref[1], off, head), n, kHeadDim, n))
        return rc;
      if (int rc = h.gemm_ref_f32(dP, false, K32, false, slice(ref[0], off, head), n, kHeadDim, n))
        return rc;
    }
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      return fail(h, "reference", cudaGetErrorString(e));
    return 0;
  }

  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    for (int t = 0; t < 6; ++t) a.ptr(in[t].ptr);   // Q, K, V, DO, M, Di
    for (int t = 0; t < 3; ++t) a.ptr(out[t].ptr);  // DQ, DK, DV
    a.i(s.d[0]);
    a.i(s.d[1]);
    return 0;
  }
  // cuDNN runs in a Python child (docs/harness.md, "Vendor scripts"), not through vendor().
  const char* vendor_name() const override { return "cuDNN"; }
  const char* vendor_script() const override { return "vendor_cudnn.py"; }

 private:
  static int fail(Host& h, const char* where, const char* why) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "case4_FA_bwd %s: %s", where, why);
    return h.fail(msg);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(AttentionBwd)
