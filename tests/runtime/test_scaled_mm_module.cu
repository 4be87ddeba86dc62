// GPU test of a case9_scaled_mm/blockwise module (examples/case9_scaled_mm/blockwise/
// {handwritten,generated}.cu, linked into this executable) through its ABI (a, b, d, scale_a,
// scale_b, M, N, K): D = bf16(Σ_g (A_g·B_gᵀ)·scale_a[g, m]·scale_b[n/128, g]) against a CPU
// reference, on shapes that are not multiples of the tile in M and N, a partial last K group,
// one K group only, more tiles than a persistent grid has CTAs, and a D poisoned with NaN so
// that unwritten elements fail; then the launcher's refusals.
#include <cuda_fp8.h>

#include <algorithm>
#include <cstring>

#include "gpu_test_util.h"
#include "sched2cu/abi.h"

namespace {

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

float bf16_to_float(uint16_t x) {
  const uint32_t u = static_cast<uint32_t>(x) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void run_shape(long long M, long long N, long long K, rt_test::Result& res) {
  const long long G = cdiv(K, 128), NB = cdiv(N, 128);
  uint32_t seed = static_cast<uint32_t>(M * 7 + N * 3 + K);
  std::vector<__nv_fp8_e4m3> a(M * K), b(N * K);
  std::vector<float> af(M * K), bf(N * K), sa(G * M), sb(NB * G);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = __nv_fp8_e4m3(2.f * rt_test::urand(seed));
    af[i] = static_cast<float>(a[i]);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = __nv_fp8_e4m3(2.f * rt_test::urand(seed));
    bf[i] = static_cast<float>(b[i]);
  }
  for (auto& x : sa) x = 1.125f + 0.875f * rt_test::urand(seed);  // U(0.25, 2)
  for (auto& x : sb) x = 1.125f + 0.875f * rt_test::urand(seed);
  void *da, *db, *dd, *dsa, *dsb;
  RT_CHECK(cudaMalloc(&da, a.size()));
  RT_CHECK(cudaMalloc(&db, b.size()));
  RT_CHECK(cudaMalloc(&dd, M * N * 2));
  RT_CHECK(cudaMalloc(&dsa, sa.size() * 4));
  RT_CHECK(cudaMalloc(&dsb, sb.size() * 4));
  RT_CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dsa, sa.data(), sa.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dsb, sb.data(), sb.size() * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dd, 0xff, M * N * 2));  // NaN
  sched2cu_arg args[8];
  args[0].ptr = da;
  args[1].ptr = db;
  args[2].ptr = dd;
  args[3].ptr = dsa;
  args[4].ptr = dsb;
  args[5].i = M;
  args[6].i = N;
  args[7].i = K;
  char what[160];
  std::snprintf(what, sizeof what, "blockwise fp8 %lldx%lldx%lld", M, N, K);
  rt_test::launch_sync(
      [&] { RT_CHECK(static_cast<cudaError_t>(sched2cu_launch(args, 8, nullptr))); }, what);
  std::vector<uint16_t> d(M * N);
  RT_CHECK(cudaMemcpy(d.data(), dd, d.size() * 2, cudaMemcpyDeviceToHost));
  std::vector<float> ref(M * N, 0.f), got(M * N);
  for (long long m = 0; m < M; ++m)
    for (long long n = 0; n < N; ++n) {
      double acc = 0;
      for (long long g = 0; g < G; ++g) {
        double part = 0;
        for (long long k = g * 128; k < std::min(K, g * 128 + 128); ++k)
          part += static_cast<double>(af[m * K + k]) * bf[n * K + k];
        acc += part * sa[g * M + m] * sb[(n / 128) * G + g];
      }
      ref[m * N + n] = static_cast<float>(acc);
    }
  for (size_t i = 0; i < got.size(); ++i) got[i] = bf16_to_float(d[i]);
  const double e = rt_test::rel_err(got, ref);
  std::snprintf(what, sizeof what, "D %lldx%lldx%lld (rel err %.2e)", M, N, K, e);
  res.check(e <= 1e-2, what);  // bf16 rounding is 2^-9 of the largest element
  for (void* p : {da, db, dd, dsa, dsb}) RT_CHECK(cudaFree(p));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  res.check(sched2cu_abi_version() == SCHED2CU_ABI_VERSION, "ABI version");
  run_shape(128, 128, 128, res);    // one tile, one K group
  run_shape(320, 392, 448, res);    // edges in M and N, a partial last K group
  run_shape(1, 8, 16, res);         // smaller than a tile everywhere, a 16-wide K group
  run_shape(129, 136, 144, res);    // one row and one column past a tile
  run_shape(200, 264, 4112, res);   // 33 K groups, the last 16 wide: the ring wraps
  run_shape(1536, 1536, 256, res);  // 144 tiles: a second tile per CTA of a persistent grid
  sched2cu_arg args[8] = {};
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue, "wrong nargs rejected");
  res.check(sched2cu_launch(nullptr, 8, nullptr) == cudaErrorInvalidValue, "null args rejected");
  void* buf = nullptr;
  RT_CHECK(cudaMalloc(&buf, 256 * 256 * 4));
  for (int i = 0; i < 5; ++i) args[i].ptr = buf;
  args[5].i = 128;
  args[6].i = 100;  // N % 8 != 0: D's rows are not 16-byte strides
  args[7].i = 128;
  res.check(sched2cu_launch(args, 8, nullptr) == cudaErrorInvalidValue, "N % 8 != 0 rejected");
  args[6].i = 128;
  args[7].i = 0;  // a tensor map needs non-zero extents
  res.check(sched2cu_launch(args, 8, nullptr) == cudaErrorInvalidValue, "K = 0 rejected");
  args[7].i = 128;
  args[5].i = 0;  // D is empty: nothing to write (docs/abi.md)
  res.check(sched2cu_launch(args, 8, nullptr) == cudaSuccess, "M = 0 launches nothing");
  RT_CHECK(cudaDeviceSynchronize());
  RT_CHECK(cudaFree(buf));
  return res.exit_code();
}
