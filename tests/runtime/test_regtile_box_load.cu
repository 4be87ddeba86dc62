// GPU test of acc_load_box / acc_load_box_f32 (runtime/sched2cu/regtile_box_load.cuh): boxes
// written by TMA (128B/64B/32B swizzle, f16) and boxes written through swizzle_offset (every
// swizzle, f16/bf16/f32, a non-zero slab, column block and box row offset) are read into the
// accumulator layout and checked element by element through acc_row/acc_col, including that the
// other columns of the tile stay untouched; plus the in-place bias epilogue of case5 (TMA-load a
// box, add accumulators, acc_store_box into the same box, TMA store) against a CPU reference.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

using namespace sched2cu::rt;

namespace {

constexpr float kSentinel = -7.f;

// out[64*s + row][col] = d (every slab, every column) as f32.
template <int M, int N>
__device__ void write_tile(float* out, const AccTile<M, N>& d) {
#pragma unroll
  for (int s = 0; s < M / 64; ++s)
#pragma unroll
    for (int i = 0; i < N / 2; ++i) out[(64 * s + acc_row(i)) * N + acc_col(i)] = d.v[s][i];
}

// A 128 x 2*BC f16 tensor, loaded as four 64 x BC TMA boxes (slab s, column block j) and read
// into an AccTile<128, 2*BC> with acc_load_box.
template <int Swz, int BC>
__global__ void tma_box_kernel(const __grid_constant__ CUtensorMap map, float* out) {
  constexpr int kBoxBytes = 64 * BC * 2;
  __shared__ __align__(1024) uint8_t boxes[4 * kBoxBytes];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, 4 * kBoxBytes);
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < 2; ++j)
        tma_load_2d(boxes + (2 * s + j) * kBoxBytes, &map, &bar, BC * j, 64 * s);
  }
  mbar_wait(&bar, 0);
  AccTile<128, 2 * BC> d;
  acc_fill(d, kSentinel);
#pragma unroll
  for (int s = 0; s < 2; ++s)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      acc_load_box<__half, Swz, BC>(d, boxes + (2 * s + j) * kBoxBytes, s, BC * j, 0);
  write_tile(out, d);
}

// A 128 x BC box of T written through swizzle_offset; slab 1, columns [BC, 2*BC) are loaded
// from box rows 64..127. Everything else of the tile must keep the sentinel.
template <class T, int Swz, int BC>
__global__ void fill_box_kernel(const T* in, float* out) {
  constexpr int kRowBytes = BC * static_cast<int>(sizeof(T));
  __shared__ __align__(1024) uint8_t box[128 * kRowBytes];
  for (int i = threadIdx.x; i < 128 * BC; i += blockDim.x) {
    const int r = i / BC, c = i % BC;
    *reinterpret_cast<T*>(box + swizzle_offset<Swz, kRowBytes>(r, c * sizeof(T))) = in[i];
  }
  __syncthreads();
  AccTile<128, 2 * BC> d;
  acc_fill(d, kSentinel);
  if constexpr (sizeof(T) == 4)
    acc_load_box_f32<Swz, BC>(d, box, 1, BC, 64);
  else
    acc_load_box<T, Swz, BC>(d, box, 1, BC, 64);
  write_tile(out, d);
}

// case5's epilogue on one chunk: bias box (64x64 f16, 128B) by TMA, e = bias + acc columns
// 64..127, f16 into the same box, TMA store to C.
__global__ void epilogue_kernel(const __grid_constant__ CUtensorMap map_bias,
                                const __grid_constant__ CUtensorMap map_c, const float* acc_in) {
  __shared__ __align__(1024) uint8_t box[64 * 64 * 2];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, sizeof(box));
    tma_load_2d(box, &map_bias, &bar, 0, 0);
  }
  AccTile<64, 128> acc;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc.v[0][i] = acc_in[acc_row(i) * 128 + acc_col(i)];
  mbar_wait(&bar, 0);
  AccTile<64, 64> e;
  acc_load_box<__half, 128, 64>(e, box, 0, 0, 0);
#pragma unroll
  for (int i = 0; i < 32; ++i) e.v[0][i] += acc.v[0][32 + i];
  acc_store_box<__half, 128, 64>(box, e, 0, 0, 0);  // same bytes per thread: no barrier before
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map_c, box, 0, 0);
    tma_commit();
    tma_wait<0>();
  }
}

template <class T>
T to_t(float x) {
  if constexpr (sizeof(T) == 4)
    return x;
  else if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(x);
  else
    return __float2bfloat16_rn(x);
}
template <class T>
float to_f(T x) {
  if constexpr (sizeof(T) == 4)
    return x;
  else if constexpr (std::is_same_v<T, __half>)
    return __half2float(x);
  else
    return __bfloat162float(x);
}

void report(rt_test::Result& res, const char* name, long long bad, long long first) {
  char what[160];
  std::snprintf(what, sizeof what, "%s (%lld wrong elements, first at %lld)", name, bad, first);
  res.check(bad == 0, what);
}

template <int Swz, int BC>
void run_tma(rt_test::Result& res, const char* name) {
  constexpr int R = 128, C = 2 * BC;
  uint32_t seed = 11u + Swz;
  std::vector<__half> h(R * C);
  for (auto& x : h) x = __float2half_rn(4.f * rt_test::urand(seed));
  __half* dg;
  float* dout;
  RT_CHECK(cudaMalloc(&dg, h.size() * 2));
  RT_CHECK(cudaMalloc(&dout, R * C * 4));
  RT_CHECK(cudaMemcpy(dg, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, R * C * 4));
  CUtensorMap map;
  RT_CHECK(tma_make_map_2d(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dg, R, C, C, 64, BC,
                           static_cast<TmaSwizzle>(Swz)));
  rt_test::launch_sync([&] { tma_box_kernel<Swz, BC><<<1, 128>>>(map, dout); }, name);
  std::vector<float> o(R * C);
  RT_CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
  long long bad = 0, first = -1;
  for (int i = 0; i < R * C; ++i) {
    if (o[i] != __half2float(h[i]) && bad++ == 0) first = i;
  }
  report(res, name, bad, first);
  RT_CHECK(cudaFree(dg));
  RT_CHECK(cudaFree(dout));
}

template <class T, int Swz, int BC>
void run_fill(rt_test::Result& res, const char* name) {
  constexpr int N = 2 * BC;
  uint32_t seed = 23u + Swz + BC;
  std::vector<T> h(128 * BC);
  for (auto& x : h) x = to_t<T>(4.f * rt_test::urand(seed));
  T* din;
  float* dout;
  RT_CHECK(cudaMalloc(&din, h.size() * sizeof(T)));
  RT_CHECK(cudaMalloc(&dout, 128 * N * 4));
  RT_CHECK(cudaMemcpy(din, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, 128 * N * 4));
  rt_test::launch_sync([&] { fill_box_kernel<T, Swz, BC><<<1, 128>>>(din, dout); }, name);
  std::vector<float> o(128 * N);
  RT_CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
  long long bad = 0, first = -1;
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < N; ++c) {
      const bool loaded = r >= 64 && c >= BC;
      const float want = loaded ? to_f(h[r * BC + (c - BC)]) : kSentinel;
      if (o[r * N + c] != want && bad++ == 0) first = r * N + c;
    }
  report(res, name, bad, first);
  RT_CHECK(cudaFree(din));
  RT_CHECK(cudaFree(dout));
}

void run_epilogue(rt_test::Result& res) {
  uint32_t seed = 99u;
  std::vector<__half> bias(64 * 64);
  std::vector<float> acc(64 * 128);
  for (auto& x : bias) x = __float2half_rn(rt_test::urand(seed));
  for (auto& x : acc) x = 30.f * rt_test::urand(seed);
  __half *dbias, *dc;
  float* dacc;
  RT_CHECK(cudaMalloc(&dbias, bias.size() * 2));
  RT_CHECK(cudaMalloc(&dc, 64 * 64 * 2));
  RT_CHECK(cudaMalloc(&dacc, acc.size() * 4));
  RT_CHECK(cudaMemcpy(dbias, bias.data(), bias.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dacc, acc.data(), acc.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dc, 0xff, 64 * 64 * 2));
  CUtensorMap mb, mc;
  RT_CHECK(tma_make_map_2d(&mb, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dbias, 64, 64, 64, 64, 64,
                           TmaSwizzle::b128));
  RT_CHECK(tma_make_map_2d(&mc, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dc, 64, 64, 64, 64, 64,
                           TmaSwizzle::b128));
  rt_test::launch_sync([&] { epilogue_kernel<<<1, 128>>>(mb, mc, dacc); }, "epilogue");
  std::vector<__half> c(64 * 64);
  RT_CHECK(cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost));
  long long bad = 0, first = -1;
  for (int r = 0; r < 64; ++r)
    for (int col = 0; col < 64; ++col) {
      const float want =
          __half2float(__float2half_rn(__half2float(bias[r * 64 + col]) + acc[r * 128 + 64 + col]));
      const float got = __half2float(c[r * 64 + col]);
      if (!(got == want) && bad++ == 0) first = r * 64 + col;
    }
  report(res, "in-place bias epilogue: TMA load, acc_load_box + acc, acc_store_box, TMA store", bad,
         first);
  RT_CHECK(cudaFree(dbias));
  RT_CHECK(cudaFree(dc));
  RT_CHECK(cudaFree(dacc));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  run_tma<128, 64>(res, "acc_load_box<f16, 128B> from TMA boxes");
  run_tma<64, 32>(res, "acc_load_box<f16, 64B> from TMA boxes");
  run_tma<32, 16>(res, "acc_load_box<f16, 32B> from TMA boxes");
  run_fill<__half, 128, 64>(res, "acc_load_box<f16, 128B> slab 1, col0 64, row0 64");
  run_fill<__half, 64, 32>(res, "acc_load_box<f16, 64B> slab 1, col0 32, row0 64");
  run_fill<__half, 0, 64>(res, "acc_load_box<f16, none> slab 1, col0 64, row0 64");
  run_fill<__nv_bfloat16, 128, 64>(res, "acc_load_box<bf16, 128B> slab 1, col0 64, row0 64");
  run_fill<float, 128, 32>(res, "acc_load_box_f32<128B> slab 1, col0 32, row0 64");
  run_fill<float, 64, 16>(res, "acc_load_box_f32<64B> slab 1, col0 16, row0 64");
  run_fill<float, 0, 32>(res, "acc_load_box_f32<none> slab 1, col0 32, row0 64");
  run_epilogue(res);
  return res.exit_code();
}
