// GPU test of a case6 module (examples/case6_layernorm/{handwritten,generated}.cu, linked into
// this executable) through its ABI (X, W, B, Y, M, eps): LayerNorm forward over rows of
// X[M, 512], f16 in/out, against a CPU double reference, for row counts of one row, fewer rows
// than a tile, M not a multiple of the 8-row tile and more tiles than a persistent grid has CTAs.
// Y is allocated with extra rows and poisoned with NaN: every row below M must be written and
// every row past M left untouched (TMA clips the store). Also the rejections of the launcher and
// M = 0, which launches nothing. X has a row mean far from 0 and w, b a wide spread, so a kernel
// that skips the mean, or drops or misplaces a column of w or b, fails.
#include <cuda_fp16.h>

#include <cstring>

#include "gpu_test_util.h"
#include "sched2cu/abi.h"

namespace {

constexpr long long kN = 512;
constexpr long long kPad = 24;  // rows of Y past M that must stay untouched
constexpr double kEps = 1e-5;

void run_shape(long long M, rt_test::Result& res) {
  uint32_t seed = static_cast<uint32_t>(M * 2654435761u + 17);
  std::vector<__half> x(M * kN), w(kN), b(kN);
  for (auto& v : x) v = __float2half(1.f + 2.f * rt_test::urand(seed));
  for (auto& v : w) v = __float2half(1.f + 0.5f * rt_test::urand(seed));
  for (auto& v : b) v = __float2half(0.5f * rt_test::urand(seed));
  // Reference in double from the f16 inputs, with the f32 eps the kernel receives.
  const double eps = static_cast<double>(static_cast<float>(kEps));
  std::vector<float> ref(M * kN);
  for (long long r = 0; r < M; ++r) {
    double s = 0, q = 0;
    for (long long c = 0; c < kN; ++c) s += __half2float(x[r * kN + c]);
    const double mean = s / kN;
    for (long long c = 0; c < kN; ++c) {
      const double d = __half2float(x[r * kN + c]) - mean;
      q += d * d;
    }
    const double rstd = 1.0 / std::sqrt(q / kN + eps);
    for (long long c = 0; c < kN; ++c)
      ref[r * kN + c] = static_cast<float>(
          (__half2float(x[r * kN + c]) - mean) * rstd * __half2float(w[c]) + __half2float(b[c]));
  }
  __half *dx, *dw, *db, *dy;
  const size_t ybytes = size_t((M + kPad) * kN) * 2;
  RT_CHECK(cudaMalloc(&dx, x.size() * 2));
  RT_CHECK(cudaMalloc(&dw, kN * 2));
  RT_CHECK(cudaMalloc(&db, kN * 2));
  RT_CHECK(cudaMalloc(&dy, ybytes));
  RT_CHECK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dw, w.data(), kN * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), kN * 2, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dy, 0xff, ybytes));  // NaN
  sched2cu_arg args[6];
  args[0].ptr = dx;
  args[1].ptr = dw;
  args[2].ptr = db;
  args[3].ptr = dy;
  args[4].i = M;
  args[5].f = kEps;
  char what[160];
  std::snprintf(what, sizeof what, "layernorm M=%lld", M);
  rt_test::launch_sync(
      [&] { RT_CHECK(static_cast<cudaError_t>(sched2cu_launch(args, 6, nullptr))); }, what);
  std::vector<__half> y(size_t((M + kPad) * kN));
  RT_CHECK(cudaMemcpy(y.data(), dy, ybytes, cudaMemcpyDeviceToHost));
  std::vector<float> got(M * kN);
  for (size_t i = 0; i < got.size(); ++i) got[i] = __half2float(y[i]);
  const double e = rt_test::rel_err(got, ref);
  std::snprintf(what, sizeof what, "Y = LayerNorm(X)*w + b, M=%lld (rel err %.2e)", M, e);
  res.check(e <= 2e-3, what);
  size_t touched = 0;
  for (size_t i = size_t(M * kN); i < y.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, &y[i], 2);
    touched += bits != 0xffff;
  }
  std::snprintf(what, sizeof what, "no row past M=%lld written (%zu elements were)", M, touched);
  res.check(touched == 0, what);
  RT_CHECK(cudaFree(dx));
  RT_CHECK(cudaFree(dw));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(dy));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  res.check(sched2cu_abi_version() == SCHED2CU_ABI_VERSION, "ABI version");
  run_shape(1, res);      // one row: one partial tile
  run_shape(5, res);      // fewer rows than one tile
  run_shape(8, res);      // exactly one tile
  run_shape(13, res);     // one full tile and a partial one
  run_shape(1024, res);   // 128 tiles: fewer than the resident CTAs
  run_shape(4099, res);   // M not a multiple of 8, one tile per CTA or so
  run_shape(70001, res);  // 8751 tiles: many per CTA (rings and staging wrap), a partial last
  sched2cu_arg args[6] = {};
  res.check(sched2cu_launch(args, 5, nullptr) == cudaErrorInvalidValue, "wrong nargs rejected");
  res.check(sched2cu_launch(nullptr, 6, nullptr) == cudaErrorInvalidValue, "null args rejected");
  void* buf = nullptr;
  RT_CHECK(cudaMalloc(&buf, 64 * kN * 2));
  RT_CHECK(cudaMemset(buf, 0xff, 64 * kN * 2));
  args[0].ptr = args[1].ptr = args[2].ptr = args[3].ptr = buf;
  args[5].f = kEps;
  args[4].i = -1;
  res.check(sched2cu_launch(args, 6, nullptr) == cudaErrorInvalidValue, "M < 0 rejected");
  args[4].i = 0;  // no rows: success, nothing launched, nothing written
  res.check(sched2cu_launch(args, 6, nullptr) == cudaSuccess, "M = 0 accepted");
  RT_CHECK(cudaDeviceSynchronize());
  std::vector<uint16_t> after(64 * kN);
  RT_CHECK(cudaMemcpy(after.data(), buf, after.size() * 2, cudaMemcpyDeviceToHost));
  size_t changed = 0;
  for (uint16_t v : after) changed += v != 0xffff;
  res.check(changed == 0, "M = 0 writes nothing");
#ifdef SCHED2CU_TEST_ALIGNMENT
  // Only for a module whose launcher promises it (the hand-written one needs 16-byte aligned
  // X and Y for TMA and W, B for its vector loads).
  args[4].i = 16;
  args[0].ptr = static_cast<char*>(buf) + 2;
  res.check(sched2cu_launch(args, 6, nullptr) == cudaErrorInvalidValue,
            "X not 16-byte aligned rejected");
  args[0].ptr = buf;
  args[1].ptr = static_cast<char*>(buf) + 8;
  res.check(sched2cu_launch(args, 6, nullptr) == cudaErrorInvalidValue,
            "W not 16-byte aligned rejected");
#endif
  RT_CHECK(cudaDeviceSynchronize());
  RT_CHECK(cudaFree(buf));
  return res.exit_code();
}
