// GPU test of runtime/sched2cu/regtile_global.cuh: global -> register loads in the wgmma
// accumulator layout (packed_load_global, acc_load_global), widening (acc_unpack) and the
// packed elementwise ops (acc_{add,sub,mul,max}_packed). Two warpgroups each load a 64 x 256
// slice of a 128 x 256 tile at (row0 + 64 * wg, col0), as the cooperative consumers of a
// generated epilogue do, from f16 and bf16 tensors: inside the tensor (4-byte loads), straddling
// its bottom/right edges, at negative coordinates, and with an odd leading dimension and odd
// column offset (element loads). Everything outside the tensor must read 0 (TMA semantics):
// the allocation around the tensor, and the gap between cols and ld, hold a sentinel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

constexpr int kRows = 128, kCols = 256, kPlanes = 7;
constexpr int kGuard = 4096;  // sentinel elements before and after the tensor

__host__ __device__ float xval(int r, int c) {
  return static_cast<float>((r * 7 + c * 13) % 17) - 8.f;
}

// Plane k of `out` ([kPlanes][kRows][kCols]) = warpgroup wg's rows of t.
__device__ void write_plane(float* out, int k, int wg, const AccTile<64, kCols>& t) {
#pragma unroll
  for (int i = 0; i < kCols / 2; ++i)
    out[(k * kRows + 64 * wg + acc_row(i)) * kCols + acc_col(i)] = t.v[0][i];
}

template <class T>
__global__ void __launch_bounds__(256, 1)
    load_kernel(const T* base, long long ld, int row0, int col0, int rows, int cols, float* out) {
  const int wg = static_cast<int>(threadIdx.x / 128);
  const int r0 = row0 + 64 * wg;
  PackedTile<64, kCols> p;
  AccTile<64, kCols> t, x;
  packed_load_global<T>(p, base, ld, r0, col0, rows, cols);
  acc_unpack<T>(t, p);
  write_plane(out, 0, wg, t);
  acc_load_global<T>(t, base, ld, r0, col0, rows, cols);
  write_plane(out, 1, wg, t);
  // In place (d aliases a), x refilled before each op: only p and one f32 tile stay live.
  auto fill_x = [&] {
#pragma unroll
    for (int i = 0; i < kCols / 2; ++i) x.v[0][i] = xval(64 * wg + acc_row(i), acc_col(i));
  };
  fill_x();
  acc_add_packed<T>(x, x, p);
  write_plane(out, 2, wg, x);
  fill_x();
  acc_sub_packed<T>(x, x, p);
  write_plane(out, 3, wg, x);
  fill_x();
  acc_mul_packed<T>(x, x, p);
  write_plane(out, 4, wg, x);
  fill_x();
  acc_max_packed<T>(x, x, p);
  write_plane(out, 5, wg, x);
  fill_x();
  acc_add_packed<T>(t, x, p);  // out of place
  write_plane(out, 6, wg, t);
}

template <class T>
T to_t(float f);
template <>
__half to_t<__half>(float f) {
  return __float2half(f);
}
template <>
__nv_bfloat16 to_t<__nv_bfloat16>(float f) {
  return __float2bfloat16(f);
}
float from_t(__half h) { return __half2float(h); }
float from_t(__nv_bfloat16 h) { return __bfloat162float(h); }

template <class T>
void run_case(rt_test::Result& res, const char* name, int rows, int cols, long long ld, int row0,
              int col0) {
  // Tensor at element kGuard of the allocation; everything else is the sentinel 1000.
  const size_t n = static_cast<size_t>(kGuard) * 2 + static_cast<size_t>(rows) * ld;
  std::vector<T> host(n, to_t<T>(1000.f));
  uint32_t seed = 12345u + static_cast<uint32_t>(rows * 31 + cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      host[kGuard + static_cast<size_t>(r) * ld + c] = to_t<T>(rt_test::urand(seed) * 4.f);
  T* dev = nullptr;
  float* out = nullptr;
  const size_t out_n = static_cast<size_t>(kPlanes) * kRows * kCols;
  RT_CHECK(cudaMalloc(&dev, n * sizeof(T)));
  RT_CHECK(cudaMalloc(&out, out_n * sizeof(float)));
  RT_CHECK(cudaMemcpy(dev, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(out, 0xff, out_n * sizeof(float)));  // NaN: an unwritten element fails
  rt_test::launch_sync(
      [&] { load_kernel<T><<<1, 256>>>(dev + kGuard, ld, row0, col0, rows, cols, out); }, name);
  std::vector<float> got(out_n), ref(out_n);
  RT_CHECK(cudaMemcpy(got.data(), out, out_n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const int gr = row0 + r, gc = col0 + c;
      const bool in = gr >= 0 && gr < rows && gc >= 0 && gc < cols;
      const float v = in ? from_t(host[kGuard + static_cast<size_t>(gr) * ld + gc]) : 0.f;
      const float x = xval(r, c);
      const float planes[kPlanes] = {v, v, x + v, x - v, x * v, std::fmax(x, v), x + v};
      for (int k = 0; k < kPlanes; ++k)
        ref[(static_cast<size_t>(k) * kRows + r) * kCols + c] = planes[k];
    }
  static const char* kWhat[kPlanes] = {"packed_load_global+acc_unpack",
                                       "acc_load_global",
                                       "acc_add_packed",
                                       "acc_sub_packed",
                                       "acc_mul_packed",
                                       "acc_max_packed",
                                       "acc_add_packed out of place"};
  for (int k = 0; k < kPlanes; ++k) {
    const size_t P = static_cast<size_t>(kRows) * kCols;
    std::vector<float> g(got.begin() + k * P, got.begin() + (k + 1) * P);
    std::vector<float> e(ref.begin() + k * P, ref.begin() + (k + 1) * P);
    char what[160];
    std::snprintf(what, sizeof what, "%s: %s", name, kWhat[k]);
    res.check(rt_test::rel_err(g, e) == 0.0, what);  // loads and one f32 op: exact
  }
  RT_CHECK(cudaFree(dev));
  RT_CHECK(cudaFree(out));
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  // Inside the tensor, 4-byte pair loads (ld even, col0 even, base aligned).
  run_case<__half>(res, "f16 interior", 300, 520, 528, 64, 256);
  // Straddling the bottom and right edges (rows 256..299 and cols 384..519 valid), with a
  // sentinel gap between cols and ld.
  run_case<__half>(res, "f16 edge", 300, 520, 528, 256, 384);
  // Negative coordinates: the top-left rows/cols are outside the tensor.
  run_case<__half>(res, "f16 negative", 100, 200, 200, -40, -6);
  // Odd leading dimension and odd column offset: element loads, right edge inside a pair.
  run_case<__half>(res, "f16 odd ld", 150, 261, 261, 30, 3);
  // Odd column count with an even ld: the pair (260, 261) straddles the edge.
  run_case<__half>(res, "f16 odd cols", 150, 261, 264, 40, 8);
  run_case<__nv_bfloat16>(res, "bf16 edge", 200, 300, 312, 100, 128);
  return res.exit_code();
}
