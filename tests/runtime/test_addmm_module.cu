// GPU test of a case5 module (examples/case5_addmm_bias/{handwritten,generated}.cu, linked into
// this executable) through its ABI (a, b, bias, c, M, N, K): C = f16(f32(A·B) + f32(bias))
// against a CPU reference on small shapes, including shapes that are not multiples of the tile
// (TMA bounds handle the edges) and more tiles than a persistent grid has CTAs, rejection of
// unsupported shapes, and a C buffer poisoned with NaN so unwritten elements fail. The bias is
// large relative to A·B on purpose, so a kernel that drops or misplaces it fails.
#include <cuda_fp16.h>

#include "gpu_test_util.h"
#include "sched2cu/abi.h"

namespace {

void run_shape(long long M, long long N, long long K, rt_test::Result& res) {
  uint32_t seed = static_cast<uint32_t>(M * 7 + N * 3 + K);
  std::vector<__half> a(M * K), b(K * N), bias(M * N);
  std::vector<float> af(M * K), bf(K * N), ref(M * N);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = __float2half(rt_test::urand(seed));
    af[i] = __half2float(a[i]);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = __float2half(rt_test::urand(seed));
    bf[i] = __half2float(b[i]);
  }
  // Bias of the same order as A·B (|A·B| ~ sqrt(K)/3), with a per-element pattern.
  const float scale = std::sqrt(static_cast<float>(K)) / 3.f + 1.f;
  for (size_t i = 0; i < bias.size(); ++i) {
    bias[i] = __float2half(scale * rt_test::urand(seed));
    ref[i] = __half2float(bias[i]);
  }
  __half *da, *db, *dbias, *dc;
  RT_CHECK(cudaMalloc(&da, a.size() * 2));
  RT_CHECK(cudaMalloc(&db, b.size() * 2));
  RT_CHECK(cudaMalloc(&dbias, bias.size() * 2));
  RT_CHECK(cudaMalloc(&dc, M * N * 2));
  RT_CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dbias, bias.data(), bias.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dc, 0xff, M * N * 2));  // NaN
  sched2cu_arg args[7];
  args[0].ptr = da;
  args[1].ptr = db;
  args[2].ptr = dbias;
  args[3].ptr = dc;
  args[4].i = M;
  args[5].i = N;
  args[6].i = K;
  char what[160];
  std::snprintf(what, sizeof what, "addmm %lldx%lldx%lld", M, N, K);
  rt_test::launch_sync(
      [&] { RT_CHECK(static_cast<cudaError_t>(sched2cu_launch(args, 7, nullptr))); }, what);
  std::vector<__half> c(M * N);
  RT_CHECK(cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost));
  for (long long m = 0; m < M; ++m) {
    for (long long k = 0; k < K; ++k) {
      const float x = af[m * K + k];
      for (long long n = 0; n < N; ++n) ref[m * N + n] += x * bf[k * N + n];
    }
  }
  std::vector<float> got(M * N);
  for (size_t i = 0; i < got.size(); ++i) got[i] = __half2float(c[i]);
  const double e = rt_test::rel_err(got, ref);
  std::snprintf(what, sizeof what, "C = A*B + bias %lldx%lldx%lld (rel err %.2e)", M, N, K, e);
  res.check(e <= 5e-3, what);
  RT_CHECK(cudaFree(da));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(dbias));
  RT_CHECK(cudaFree(dc));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  res.check(sched2cu_abi_version() == SCHED2CU_ABI_VERSION, "ABI version");
  run_shape(256, 256, 128, res);    // the spec's smallest shape: 2 tiles, 2 k-steps
  run_shape(128, 256, 64, res);     // one tile, one k-step (bias loaded at k-step 0)
  run_shape(384, 768, 1024, res);   // several tiles, 16 k-steps (ring wraps 4 times)
  run_shape(200, 264, 72, res);     // edges in M, N and K
  run_shape(72, 40, 8, res);        // smaller than one tile in every dimension
  run_shape(1024, 1024, 128, res);  // 32 tiles
  run_shape(4352, 2048, 64, res);   // 272 tiles: more than one tile per CTA on any Hopper part
  // 153 tiles of 128x256 and 3 k-iterations: a persistent CTA runs a second tile through its
  // epilogue staging ring (a slot offset there once wrote past the ring, only from tile 2 on).
  run_shape(2176, 2304, 192, res);
  sched2cu_arg args[7] = {};
  res.check(sched2cu_launch(args, 6, nullptr) == cudaErrorInvalidValue, "wrong nargs rejected");
  res.check(sched2cu_launch(nullptr, 7, nullptr) == cudaErrorInvalidValue, "null args rejected");
  void* buf = nullptr;
  RT_CHECK(cudaMalloc(&buf, 256 * 256 * 2));
  args[0].ptr = args[1].ptr = args[2].ptr = args[3].ptr = buf;
  args[4].i = 128;
  args[5].i = 100;  // N % 8 != 0
  args[6].i = 64;
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue, "N % 8 != 0 rejected");
  args[5].i = 256;
  args[6].i = 60;  // K % 8 != 0
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue, "K % 8 != 0 rejected");
  args[6].i = 0;  // a tensor map needs non-zero extents
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue, "K = 0 rejected");
  args[6].i = 64;
  args[4].i = 0;
#ifdef SCHED2CU_TEST_EMPTY_OUTPUT_IS_NOOP
  // The generated launcher: C is empty, so there is nothing to write (docs/abi.md).
  res.check(sched2cu_launch(args, 7, nullptr) == cudaSuccess, "M = 0 launches nothing");
#else
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue, "M = 0 rejected");
#endif
#ifdef SCHED2CU_TEST_BIAS_ALIGNMENT
  // Only for a module whose launcher promises it (the hand-written one TMA-loads the bias; a
  // kernel reading the bias with plain loads may accept any 2-byte aligned pointer).
  args[4].i = 128;
  args[2].ptr = static_cast<char*>(buf) + 8;
  res.check(sched2cu_launch(args, 7, nullptr) == cudaErrorInvalidValue,
            "bias not 16-byte aligned rejected");
#endif
  RT_CHECK(cudaDeviceSynchronize());
  RT_CHECK(cudaFree(buf));
  return res.exit_code();
}
