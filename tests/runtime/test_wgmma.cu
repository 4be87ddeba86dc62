// GPU test of wgmma (runtime/sched2cu/wgmma.cuh) per dtype (f16, bf16, fp8 e4m3/e5m2), N,
// operand source (A from shared memory or registers) and major-ness (K / MN), for each TMA
// swizzle. Operands are loaded by TMA, so the descriptors are checked against the layout the
// copy engine really writes; D = A·B (64 x N, K = 64 for 16-bit, 128 for fp8) is compared with a
// double-precision CPU product. The register-A path also exercises acc_to_a (regtile.cuh).
#include <cstring>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

using namespace sched2cu::rt;

constexpr int kM = 64;

template <class T>
constexpr int kK = sizeof(T) == 1 ? 128 : 64;

// Operand stored [outer][inner] (inner contiguous) lands in shared memory as inner/W boxes of
// [outer][W elements], W = Swz / sizeof(T) (16 bytes when unswizzled).
template <class T, int Swz>
__host__ __device__ constexpr int box_w() {
  return (Swz == 0 ? 16 : Swz) / static_cast<int>(sizeof(T));
}

template <class T, int Swz, int Outer, int Inner>
__device__ void load_operand(uint8_t* dst, const CUtensorMap* map, uint64_t* bar) {
  constexpr int W = box_w<T, Swz>();
  for (int j = 0; j < Inner / W; ++j)
    tma_load_2d(dst + j * Outer * W * sizeof(T), map, bar, j * W, 0);
}

template <class T, int N, Major MA, Major MB, bool RS, int Swz>
__global__ void __launch_bounds__(128, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                 const float* a_f32, float* out) {
  constexpr int K = kK<T>;
  constexpr int KS = sizeof(T) == 1 ? 32 : 16;
  __shared__ __align__(1024) uint8_t sa[kM * K * sizeof(T)];
  __shared__ __align__(1024) uint8_t sb[N * K * sizeof(T)];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, sizeof(sa) + sizeof(sb));
    if constexpr (MA == Major::K)
      load_operand<T, Swz, kM, K>(sa, &ma, &bar);
    else
      load_operand<T, Swz, K, kM>(sa, &ma, &bar);
    if constexpr (MB == Major::K)
      load_operand<T, Swz, N, K>(sb, &mb, &bar);
    else
      load_operand<T, Swz, K, N>(sb, &mb, &bar);
  }
  mbar_wait(&bar, 0);

  AccTile<64, N> d;
  AccTile<64, (K < 256 ? K : 256)> a_regs;
  if constexpr (RS) {
    for (int i = 0; i < K / 2; ++i) a_regs.v[0][i] = a_f32[acc_row(i) * K + acc_col(i)];
  }
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < K / KS; ++ks) {
    uint64_t db;
    if constexpr (MB == Major::K)
      db = wgmma_desc_k<Swz, N>(sb, ks);
    else
      db = wgmma_desc_mn<Swz, K>(sb, ks);
    if constexpr (RS) {
      uint32_t a[4];
      acc_to_a<T>(a, a_regs, 0, ks);
      wgmma_rs<N, T, T, MB>(d.v[0], a, db, ks > 0);
    } else {
      uint64_t da;
      if constexpr (MA == Major::K)
        da = wgmma_desc_k<Swz, kM>(sa, ks);
      else
        da = wgmma_desc_mn<Swz, K>(sa, ks);
      wgmma_ss<N, T, T, MA, MB>(d.v[0], da, db, ks > 0);
    }
  }
  wgmma_commit();
  wgmma_wait<0>();
  wgmma_fence_operand(d.v[0]);
  for (int i = 0; i < N / 2; ++i) out[acc_row(i) * N + acc_col(i)] = d.v[0][i];
}

template <class T>
CUtensorMapDataType dtype_of() {
  if constexpr (std::is_same_v<T, __half>)
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

// Small integers/8 are exact in every tested type, so products are exact in f32 too.
template <class T>
T quant(float x) {
  return T(std::round(x * 4.f) / 8.f);
}

template <class T, int N, Major MA, Major MB, bool RS, int Swz>
bool run(const char* name, rt_test::Result& res) {
  constexpr int K = kK<T>;
  uint32_t seed = 1000u + N + 7u * Swz;
  std::vector<T> a(kM * K), b(K * N);  // logical A[m][k], B[k][n]
  std::vector<float> af(kM * K), bf(K * N);
  for (int i = 0; i < kM * K; ++i) {
    a[i] = quant<T>(rt_test::urand(seed));
    af[i] = float(a[i]);
  }
  for (int i = 0; i < K * N; ++i) {
    b[i] = quant<T>(rt_test::urand(seed));
    bf[i] = float(b[i]);
  }
  // Storage: K-major A = [m][k], MN-major A = [k][m]; K-major B = [n][k], MN-major B = [k][n].
  std::vector<T> as(a.size()), bs(b.size());
  for (int m = 0; m < kM; ++m)
    for (int k = 0; k < K; ++k) as[MA == Major::K ? m * K + k : k * kM + m] = a[m * K + k];
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) bs[MB == Major::K ? n * K + k : k * N + n] = b[k * N + n];
  T *da, *db;
  float *daf, *dout;
  RT_CHECK(cudaMalloc(&da, as.size() * sizeof(T)));
  RT_CHECK(cudaMalloc(&db, bs.size() * sizeof(T)));
  RT_CHECK(cudaMalloc(&daf, af.size() * 4));
  RT_CHECK(cudaMalloc(&dout, kM * N * 4));
  RT_CHECK(cudaMemcpy(da, as.data(), as.size() * sizeof(T), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, bs.data(), bs.size() * sizeof(T), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(daf, af.data(), af.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, kM * N * 4));
  constexpr int W = box_w<T, Swz>();
  const TmaSwizzle sw = static_cast<TmaSwizzle>(Swz);
  CUtensorMap ma, mb;
  const int a_rows = MA == Major::K ? kM : K, a_cols = MA == Major::K ? K : kM;
  const int b_rows = MB == Major::K ? N : K, b_cols = MB == Major::K ? K : N;
  RT_CHECK(
      tma_make_map_2d(&ma, dtype_of<T>(), sizeof(T), da, a_rows, a_cols, a_cols, a_rows, W, sw));
  RT_CHECK(
      tma_make_map_2d(&mb, dtype_of<T>(), sizeof(T), db, b_rows, b_cols, b_cols, b_rows, W, sw));
  rt_test::launch_sync([&] { wgmma_kernel<T, N, MA, MB, RS, Swz><<<1, 128>>>(ma, mb, daf, dout); });
  std::vector<float> out(kM * N), ref(kM * N);
  RT_CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(af[m * K + k]) * bf[k * N + n];
      ref[m * N + n] = float(s);
    }
  const double e = rt_test::rel_err(out, ref);
  char what[256];
  std::snprintf(what, sizeof what, "%s (rel err %.2e)", name, e);
  res.check(e < 1e-6, what);
  RT_CHECK(cudaFree(da));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(daf));
  RT_CHECK(cudaFree(dout));
  return e < 1e-6;
}

#define RUN(T, N, MA, MB, RS, SWZ) \
  run<T, N, Major::MA, Major::MB, RS, SWZ>(#T " n" #N " A:" #MA " B:" #MB " " #RS " swz" #SWZ, r)

int main() {
  rt_test::require_hopper();
  rt_test::Result r;
  using f16 = __half;
  using bf16 = __nv_bfloat16;
  using e4m3 = __nv_fp8_e4m3;
  using e5m2 = __nv_fp8_e5m2;
  // f16, 128B swizzle, all majors, SS and RS, several N
  RUN(f16, 256, K, MN, false, 128);  // case1/case2 configuration
  RUN(f16, 256, K, K, false, 128);
  RUN(f16, 256, MN, MN, false, 128);
  RUN(f16, 256, MN, K, false, 128);
  RUN(f16, 8, K, K, false, 128);
  RUN(f16, 16, K, K, false, 128);
  RUN(f16, 24, K, K, false, 128);
  RUN(f16, 64, K, MN, false, 128);
  RUN(f16, 128, K, MN, false, 128);
  RUN(f16, 192, K, K, false, 128);
  RUN(f16, 256, K, K, true, 128);
  RUN(f16, 128, K, MN, true, 128);
  RUN(f16, 64, K, K, true, 64);
  // other swizzles
  RUN(f16, 64, K, K, false, 64);
  RUN(f16, 64, MN, MN, false, 64);
  RUN(f16, 64, K, K, false, 32);
  RUN(f16, 64, MN, MN, false, 32);
  RUN(f16, 64, K, K, false, 0);
  RUN(f16, 64, MN, MN, false, 0);
  RUN(f16, 8, K, MN, false, 0);
  // bf16
  RUN(bf16, 128, K, K, false, 128);
  RUN(bf16, 256, K, MN, false, 128);
  RUN(bf16, 64, MN, K, false, 128);
  RUN(bf16, 64, K, K, true, 128);
  RUN(bf16, 128, K, MN, true, 128);
  // fp8 (K-major only)
  RUN(e4m3, 8, K, K, false, 128);
  RUN(e4m3, 128, K, K, false, 128);
  RUN(e4m3, 256, K, K, false, 128);
  RUN(e5m2, 64, K, K, false, 128);
  RUN(e4m3, 64, K, K, false, 64);
  RUN(e5m2, 32, K, K, false, 0);
  return r.exit_code();
}
