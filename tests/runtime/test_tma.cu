// GPU test of the TMA primitives (runtime/sched2cu/tma.cuh, tma_host.h): 2D/3D tiled loads
// completing on an mbarrier, tiled stores and reduce-add stores with bulk-group waits, for
// every swizzle (none, 32B, 64B, 128B), including boxes that straddle the tensor's edge (zero
// fill on load, clipping on store). Shared memory is addressed with swizzle_offset(), so the
// test also pins that helper to the hardware's swizzle.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

using namespace sched2cu::rt;

// box: BR rows x BC columns of element type T; row bytes = BC * sizeof(T).
template <class T, int Swz, int BR, int BC>
__global__ void load_kernel(const __grid_constant__ CUtensorMap map, int c0, int r0, T* out) {
  __shared__ __align__(1024) uint8_t box[BR * BC * sizeof(T)];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, BR * BC * sizeof(T));
    tma_load_2d(box, &map, &bar, c0, r0);
  }
  mbar_wait(&bar, 0);
  for (int i = threadIdx.x; i < BR * BC; i += blockDim.x) {
    const int r = i / BC, c = i % BC;
    out[i] =
        *reinterpret_cast<const T*>(box + swizzle_offset<Swz, BC * sizeof(T)>(r, c * sizeof(T)));
  }
}

template <class T, int Swz, int BR, int BC>
__global__ void store_kernel(const __grid_constant__ CUtensorMap map, int c0, int r0, const T* vals,
                             bool reduce) {
  __shared__ __align__(1024) uint8_t box[BR * BC * sizeof(T)];
  for (int i = threadIdx.x; i < BR * BC; i += blockDim.x) {
    const int r = i / BC, c = i % BC;
    *reinterpret_cast<T*>(box + swizzle_offset<Swz, BC * sizeof(T)>(r, c * sizeof(T))) = vals[i];
  }
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (reduce)
      tma_reduce_add_2d(&map, box, c0, r0);
    else
      tma_store_2d(&map, box, c0, r0);
    tma_commit();
    tma_wait_read<0>();
    tma_wait<0>();
  }
}

template <class T>
CUtensorMapDataType dtype_of();
template <>
CUtensorMapDataType dtype_of<__half>() {
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
template <>
CUtensorMapDataType dtype_of<float>() {
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

template <class T>
float to_f(T x) {
  return static_cast<float>(x);
}
template <class T>
T from_f(float x) {
  return static_cast<T>(x);
}

// Loads, stores and (for float) reduce-adds one box at (c0, r0) of an R x C tensor.
template <class T, int Swz, int BR, int BC>
bool run_2d(int R, int C, int c0, int r0) {
  const TmaSwizzle sw = static_cast<TmaSwizzle>(Swz);
  uint32_t seed = 42u + Swz;
  std::vector<T> h(static_cast<size_t>(R) * C);
  for (auto& x : h) x = from_f<T>(std::round(rt_test::urand(seed) * 64.f) / 8.f);
  T *g, *out, *vals;
  RT_CHECK(cudaMalloc(&g, h.size() * sizeof(T)));
  RT_CHECK(cudaMalloc(&out, BR * BC * sizeof(T)));
  RT_CHECK(cudaMalloc(&vals, BR * BC * sizeof(T)));
  RT_CHECK(cudaMemcpy(g, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUtensorMap map;
  RT_CHECK(tma_make_map_2d(&map, dtype_of<T>(), sizeof(T), g, R, C, C, BR, BC, sw));
  bool ok = true;
  // load
  rt_test::launch_sync([&] { load_kernel<T, Swz, BR, BC><<<1, 128>>>(map, c0, r0, out); });
  std::vector<T> o(BR * BC);
  RT_CHECK(cudaMemcpy(o.data(), out, o.size() * sizeof(T), cudaMemcpyDeviceToHost));
  for (int r = 0; r < BR; ++r)
    for (int c = 0; c < BC; ++c) {
      const int gr = r0 + r, gc = c0 + c;
      const float want = (gr < R && gc < C) ? to_f(h[static_cast<size_t>(gr) * C + gc]) : 0.f;
      ok = ok && to_f(o[r * BC + c]) == want;
    }
  // store / reduce-add
  std::vector<T> v(BR * BC);
  for (auto& x : v) x = from_f<T>(std::round(rt_test::urand(seed) * 64.f) / 8.f);
  RT_CHECK(cudaMemcpy(vals, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  for (int pass = 0; pass < (sizeof(T) == 4 ? 2 : 1); ++pass) {
    const bool reduce = pass == 1;
    RT_CHECK(cudaMemcpy(g, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    rt_test::launch_sync(
        [&] { store_kernel<T, Swz, BR, BC><<<1, 128>>>(map, c0, r0, vals, reduce); });
    std::vector<T> back(h.size());
    RT_CHECK(cudaMemcpy(back.data(), g, back.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const size_t i = static_cast<size_t>(r) * C + c;
        const bool in = r >= r0 && r < r0 + BR && c >= c0 && c < c0 + BC;
        float want = to_f(h[i]);
        if (in)
          want =
              reduce ? want + to_f(v[(r - r0) * BC + (c - c0)]) : to_f(v[(r - r0) * BC + (c - c0)]);
        ok = ok && to_f(back[i]) == want;
      }
  }
  RT_CHECK(cudaFree(g));
  RT_CHECK(cudaFree(out));
  RT_CHECK(cudaFree(vals));
  return ok;
}

// 3D: tensor [D2][D1][D0] f16, box [2][BR][64] with 128B swizzle at (c0, c1, c2).
__global__ void load3d_kernel(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2,
                              __half* out) {
  constexpr int BR = 16, BC = 64, BD = 2;
  __shared__ __align__(1024) uint8_t box[BD * BR * BC * 2];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, sizeof(box));
    tma_load_3d(box, &map, &bar, c0, c1, c2);
  }
  mbar_wait(&bar, 0);
  for (int i = threadIdx.x; i < BD * BR * BC; i += blockDim.x) {
    const int rr = i / BC, c = i % BC;  // rr = d * BR + r: boxes stack along the outer dims
    out[i] = *reinterpret_cast<const __half*>(box + swizzle_offset<128, 128>(rr, c * 2));
  }
}

bool run_3d() {
  const int D0 = 128, D1 = 40, D2 = 3;
  std::vector<__half> h(D0 * D1 * D2);
  uint32_t seed = 9;
  for (auto& x : h) x = __float2half(rt_test::urand(seed));
  __half *g, *out;
  RT_CHECK(cudaMalloc(&g, h.size() * 2));
  RT_CHECK(cudaMalloc(&out, 2 * 16 * 64 * 2));
  RT_CHECK(cudaMemcpy(g, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  const uint64_t dims[3] = {D0, D1, D2};
  const uint64_t strides[2] = {D0 * 2, static_cast<uint64_t>(D0) * D1 * 2};
  const uint32_t box[3] = {64, 16, 2};
  CUtensorMap map;
  RT_CHECK(tma_make_map(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, g, dims, strides, box,
                        TmaSwizzle::b128));
  const int c0 = 64, c1 = 32, c2 = 2;  // straddles D1 and D2
  rt_test::launch_sync([&] { load3d_kernel<<<1, 128>>>(map, c0, c1, c2, out); });
  std::vector<__half> o(2 * 16 * 64);
  RT_CHECK(cudaMemcpy(o.data(), out, o.size() * 2, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int d = 0; d < 2; ++d)
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 64; ++c) {
        const int a = c0 + c, b = c1 + r, e = c2 + d;
        const float want =
            (a < D0 && b < D1 && e < D2) ? __half2float(h[(e * D1 + b) * D0 + a]) : 0.f;
        ok = ok && __half2float(o[(d * 16 + r) * 64 + c]) == want;
      }
  RT_CHECK(cudaFree(g));
  RT_CHECK(cudaFree(out));
  return ok;
}

int main() {
  rt_test::require_hopper();
  rt_test::Result r;
  r.check(run_2d<__half, 128, 64, 64>(200, 256, 64, 64), "f16 128B swizzle 64x64 box, interior");
  r.check(run_2d<__half, 128, 64, 64>(100, 200, 160, 64), "f16 128B swizzle, box over both edges");
  r.check(run_2d<__half, 64, 32, 32>(96, 96, 32, 16), "f16 64B swizzle 32x32 box");
  r.check(run_2d<__half, 32, 16, 16>(64, 64, 48, 8), "f16 32B swizzle 16x16 box");
  r.check(run_2d<__half, 0, 64, 64>(128, 128, 32, 40), "f16 no swizzle 64x64 box");
  r.check(run_2d<float, 128, 32, 32>(96, 96, 32, 0), "f32 128B swizzle store + reduce-add");
  r.check(run_2d<float, 64, 16, 16>(40, 40, 32, 32),
          "f32 64B swizzle store + reduce-add over edge");
  r.check(run_2d<float, 0, 8, 32>(64, 64, 16, 16), "f32 no swizzle store + reduce-add");
  r.check(run_3d(), "f16 3D load 128B swizzle, box over edges");
  return r.exit_code();
}
