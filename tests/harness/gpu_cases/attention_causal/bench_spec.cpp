// Bench spec of the gpu_cases/attention_causal test case: case3_FA's spec with a causal mask
// (query row i attends to keys 0..i), at small shapes; the first query tile's loop runs one step.
// Attention forward, bf16, head dim 128. Q, K, V and O are [Z·H·N_CTX, 128] row-major, M is the
// f32 base-2 log-sum-exp per query row ([Z·H, N_CTX]); launch args (Q, K, V, O, M, sm_scale, Z,
// H, N_CTX) with sm_scale = 1/sqrt(128). Inputs N(0,1), one seed per tensor. Reference in f32,
// one head at a time: S = Q·Kᵀ (cuBLAS f32), a masked base-2 row softmax (P in place, 0 above the
// diagonal, and M), O = P·V. Metric 2·Z·H·N²·D TFLOPS (half of the full attention's). No
// vendor baseline (a correctness test). Never round P to bf16 in the reference.
#include <cmath>
#include <cstdio>

#include "sched2cu/harness/bench_spec_api.h"

using namespace sched2cu::spec;

namespace {

constexpr long long kHeadDim = 128;
constexpr int kThreads = 256;
// (Z, H, N_CTX); N_CTX must be a multiple of the kernels' 128-row tiles.
constexpr long long kShapes[][3] = {{1, 2, 256}, {2, 3, 384}, {1, 4, 1024}, {1, 1, 128}};
constexpr float kSmScale = 0.08838834764831845f;  // 1/sqrt(kHeadDim)

__global__ void bf16_to_f32(const unsigned short* src, float* dst, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    dst[i] = __uint_as_float(unsigned(src[i]) << 16);  // bf16 is the top half of an f32
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

// One block per query row i of S ([n, n] f32), keys 0..i only: in the kernel's base-2 form,
// x = s·qk_scale, m = max x, l = Σ exp2(x − m); writes P = exp2(x − m) / l in place (0 past the
// diagonal) and lse = m + log2(l).
__global__ void softmax_rows_base2_causal(float* s, float* lse, long long n, float qk_scale) {
  __shared__ float scratch[kThreads / 32];
  float* row = s + blockIdx.x * n;
  const long long last = blockIdx.x;  // the diagonal
  float m = -INFINITY;
  for (long long j = threadIdx.x; j <= last; j += kThreads) m = fmaxf(m, row[j] * qk_scale);
  m = block_reduce<true>(m, scratch);
  float l = 0.f;
  for (long long j = threadIdx.x; j <= last; j += kThreads) l += exp2f(row[j] * qk_scale - m);
  l = block_reduce<false>(l, scratch);
  for (long long j = threadIdx.x; j < n; j += kThreads)
    row[j] = j <= last ? exp2f(row[j] * qk_scale - m) / l : 0.f;
  if (threadIdx.x == 0) lse[blockIdx.x] = m + log2f(l);
}

// Device scratch freed on every path out of reference().
struct Scratch {
  void* p = nullptr;
  ~Scratch() {
    if (p) cudaFree(p);
  }
};

Tensor slice(const Tensor& t, long long offset, long long numel) {
  Tensor s = t;
  s.ptr = static_cast<char*>(t.ptr) + offset * (long long)dtype_size(t.dtype);
  s.numel = numel;
  return s;
}

class AttentionCausal final : public BenchSpec {
 public:
  double tolerance() const override { return 1e-2; }
  int num_shapes() const override { return int(sizeof(kShapes) / sizeof(kShapes[0])); }
  Shape shape(int i) const override {
    return shape_of(kShapes[i][0], kShapes[i][1], kShapes[i][2]);
  }
  Metric metric(const Shape& s) const override {
    const double n = double(s.d[2]);
    return {2.0 * double(s.d[0]) * double(s.d[1]) * n * n * double(kHeadDim), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    const long long rows = s.d[0] * s.d[1] * s.d[2];
    l.input("Q", DType::bf16, rows * kHeadDim);
    l.input("K", DType::bf16, rows * kHeadDim);
    l.input("V", DType::bf16, rows * kHeadDim);
    l.output("O", DType::bf16, rows * kHeadDim);
    l.output("M", DType::f32, rows);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    for (int t = 0; t < 3; ++t) {
      if (int rc = h.fill_normal(in[t], seed * 3 + uint64_t(t) + 1, 0.f, 1.f)) return rc;
    }
    return 0;
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    const long long heads = s.d[0] * s.d[1], n = s.d[2], head = n * kHeadDim;
    Scratch scores, v32;
    if (cudaMalloc(&scores.p, size_t(n * n) * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&v32.p, size_t(head) * sizeof(float)) != cudaSuccess) {
      return fail(h, "cannot allocate the attention reference scratch");
    }
    const Tensor S{scores.p, DType::f32, n * n, "S"};
    const Tensor V32{v32.p, DType::f32, head, "V32"};
    const float qk_scale = kSmScale * 1.44269504f;  // as kernel.py: exp(x) == exp2(x·log2(e))
    for (long long zh = 0; zh < heads; ++zh) {
      const Tensor q = slice(in[0], zh * head, head), k = slice(in[1], zh * head, head);
      // S = Q_h·K_hᵀ: K_h is stored [N, D], i.e. the transposed [D, N] operand.
      if (int rc = h.gemm_ref_f32(q, false, k, true, S, n, n, kHeadDim)) return rc;
      softmax_rows_base2_causal<<<unsigned(n), kThreads>>>(
          static_cast<float*>(scores.p), static_cast<float*>(ref[1].ptr) + zh * n, n, qk_scale);
      // V_h in f32 so that P·V is one f32 GEMM without a 4·N² conversion copy of P.
      bf16_to_f32<<<256, kThreads>>>(static_cast<const unsigned short*>(in[2].ptr) + zh * head,
                                     static_cast<float*>(v32.p), head);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return fail(h, cudaGetErrorString(e));
      // O_h = P·V_h into the f32 reference slice (gemm_ref_f32 synchronizes).
      if (int rc =
              h.gemm_ref_f32(S, false, V32, false, slice(ref[0], zh * head, head), n, kHeadDim, n))
        return rc;
    }
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
      return fail(h, cudaGetErrorString(e));
    return 0;
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    for (int t = 0; t < 3; ++t) a.ptr(in[t].ptr);
    a.ptr(out[0].ptr);
    a.ptr(out[1].ptr);
    a.f(kSmScale);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }

 private:
  static int fail(Host& h, const char* why) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "attention_causal reference: %s", why);
    return h.fail(msg);
  }
};

}  // namespace

SCHED2CU_BENCH_SPEC(AttentionCausal)
