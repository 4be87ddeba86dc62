// GPU test of an attention forward module (examples/case3_FA/{handwritten,generated}.cu, linked
// into this executable) through its ABI: O = softmax(Q·Kᵀ·sm_scale)·V and the base-2
// log-sum-exp M against a CPU double reference on small shapes (one key block, an odd number of
// blocks, several heads and batches, a ring that wraps several times, keys whose scores grow
// along the sequence so the running max moves and the rescaling matters), outputs poisoned with
// NaN so unwritten elements fail, rejection of bad arguments, and empty problems that launch
// nothing. Every launch runs under a watchdog: a protocol bug shows as HANG, not a stuck test.
#include "gpu_test_util.h"
#include "sched2cu/abi.h"

#include <cuda_bf16.h>

#include <cstring>

namespace {

struct Shape {
  long long Z, H, N;
  double sm_scale;
  float q_amp;     // Q values in [-q_amp, q_amp)
  bool ramp_keys;  // K rows scaled by 0.25 + 1.75·(key / N): later blocks score higher
};

std::vector<__nv_bfloat16> random_bf16(size_t n, uint32_t& seed, float amp,
                                       std::vector<float>& as_float) {
  std::vector<__nv_bfloat16> v(n);
  as_float.resize(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = __float2bfloat16(amp * rt_test::urand(seed));
    as_float[i] = __bfloat162float(v[i]);
  }
  return v;
}

// O [Z·H·N][128] and M [Z·H·N] in double, softmax in base e (M converted to base 2).
void reference(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
               const std::vector<float>& v, std::vector<float>& o, std::vector<float>& m) {
  constexpr int D = 128;
  const long long N = s.N;
  o.assign(s.Z * s.H * N * D, 0.f);
  m.assign(s.Z * s.H * N, 0.f);
  std::vector<double> sc(N), acc(D);
  for (long long hz = 0; hz < s.Z * s.H; ++hz) {
    const long long base = hz * N;
    for (long long i = 0; i < N; ++i) {
      const float* qi = &q[(base + i) * D];
      double mx = -INFINITY;
      for (long long j = 0; j < N; ++j) {
        const float* kj = &k[(base + j) * D];
        double d = 0;
        for (int c = 0; c < D; ++c) d += static_cast<double>(qi[c]) * kj[c];
        sc[j] = d * s.sm_scale;
        mx = std::fmax(mx, sc[j]);
      }
      double sum = 0;
      for (int c = 0; c < D; ++c) acc[c] = 0;
      for (long long j = 0; j < N; ++j) {
        const double p = std::exp(sc[j] - mx);
        sum += p;
        const float* vj = &v[(base + j) * D];
        for (int c = 0; c < D; ++c) acc[c] += p * vj[c];
      }
      for (int c = 0; c < D; ++c) o[(base + i) * D + c] = static_cast<float>(acc[c] / sum);
      m[base + i] = static_cast<float>((mx + std::log(sum)) / std::log(2.0));
    }
  }
}

// Fills a[0..9) in kernel.py's order: Q, K, V, O, M, sm_scale, Z, H, N_CTX.
void make_args(sched2cu_arg* a, void* q, void* k, void* v, void* o, void* m, double sm_scale,
               long long Z, long long H, long long N) {
  a[0].ptr = q;
  a[1].ptr = k;
  a[2].ptr = v;
  a[3].ptr = o;
  a[4].ptr = m;
  a[5].f = sm_scale;
  a[6].i = Z;
  a[7].i = H;
  a[8].i = N;
}

void run_shape(const Shape& s, rt_test::Result& res) {
  constexpr int D = 128;
  const long long rows = s.Z * s.H * s.N;
  uint32_t seed = static_cast<uint32_t>(s.Z * 131 + s.H * 17 + s.N);
  std::vector<float> qf, kf, vf;
  std::vector<__nv_bfloat16> q = random_bf16(rows * D, seed, s.q_amp, qf);
  std::vector<__nv_bfloat16> k = random_bf16(rows * D, seed, 1.f, kf);
  std::vector<__nv_bfloat16> v = random_bf16(rows * D, seed, 1.f, vf);
  if (s.ramp_keys) {
    for (long long r = 0; r < rows; ++r) {
      const float f = 0.25f + 1.75f * static_cast<float>(r % s.N) / static_cast<float>(s.N);
      for (int c = 0; c < D; ++c) {
        k[r * D + c] = __float2bfloat16(kf[r * D + c] * f);
        kf[r * D + c] = __bfloat162float(k[r * D + c]);
      }
    }
  }
  void *dq, *dk, *dv, *dout, *dm;
  const size_t bytes = rows * D * sizeof(__nv_bfloat16);
  RT_CHECK(cudaMalloc(&dq, bytes));
  RT_CHECK(cudaMalloc(&dk, bytes));
  RT_CHECK(cudaMalloc(&dv, bytes));
  RT_CHECK(cudaMalloc(&dout, bytes));
  RT_CHECK(cudaMalloc(&dm, rows * sizeof(float)));
  RT_CHECK(cudaMemcpy(dq, q.data(), bytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dk, k.data(), bytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dv, v.data(), bytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, bytes));  // NaN
  RT_CHECK(cudaMemset(dm, 0xff, rows * sizeof(float)));
  sched2cu_arg args[9];
  make_args(args, dq, dk, dv, dout, dm, s.sm_scale, s.Z, s.H, s.N);
  char what[160];
  std::snprintf(what, sizeof what, "attention (Z,H,N) = (%lld,%lld,%lld) sm_scale %.3f", s.Z, s.H,
                s.N, s.sm_scale);
  int rc = -1;
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 9, nullptr); }, what);
  RT_CHECK(static_cast<cudaError_t>(rc));
  std::vector<__nv_bfloat16> o(rows * D);
  std::vector<float> got_m(rows);
  RT_CHECK(cudaMemcpy(o.data(), dout, bytes, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(got_m.data(), dm, rows * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> got_o(rows * D), ref_o, ref_m;
  for (size_t i = 0; i < got_o.size(); ++i) got_o[i] = __bfloat162float(o[i]);
  reference(s, qf, kf, vf, ref_o, ref_m);
  const double eo = rt_test::rel_err(got_o, ref_o), em = rt_test::rel_err(got_m, ref_m);
  char line[256];
  std::snprintf(line, sizeof line, "%s: O rel err %.2e", what, eo);
  res.check(eo <= 1e-2, line);
  std::snprintf(line, sizeof line, "%s: M rel err %.2e", what, em);
  res.check(em <= 1e-2, line);
  RT_CHECK(cudaFree(dq));
  RT_CHECK(cudaFree(dk));
  RT_CHECK(cudaFree(dv));
  RT_CHECK(cudaFree(dout));
  RT_CHECK(cudaFree(dm));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  res.check(sched2cu_abi_version() == SCHED2CU_ABI_VERSION, "ABI version");
  const double s128 = 1.0 / std::sqrt(128.0);
  run_shape({1, 2, 128, s128, 1.f, false}, res);  // one key block: turn 0 and the last PV only
  run_shape({1, 1, 384, 0.3, 2.f, true}, res);    // 3 blocks (odd), peaked and moving max
  run_shape({2, 3, 256, s128, 1.f, false}, res);  // several batches and heads, 2 q-blocks each
  run_shape({1, 2, 1024, 0.25, 2.f, true}, res);  // 8 blocks: both rings wrap 4 times

  // Bad arguments are refused without launching.
  void* buf = nullptr;
  const size_t buf_bytes = 256 * 128 * 2;
  RT_CHECK(cudaMalloc(&buf, buf_bytes));
  RT_CHECK(cudaMemset(buf, 0x5a, buf_bytes));
  sched2cu_arg args[10];
  make_args(args, buf, buf, buf, buf, buf, s128, 1, 1, 128);
  args[9].i = 0;
  res.check(sched2cu_launch(args, 8, nullptr) == cudaErrorInvalidValue, "8 args rejected");
  res.check(sched2cu_launch(args, 10, nullptr) == cudaErrorInvalidValue, "10 args rejected");
  res.check(sched2cu_launch(nullptr, 9, nullptr) == cudaErrorInvalidValue, "null args rejected");
#ifdef SCHED2CU_TEST_REJECTS_PARTIAL_BLOCKS
  // The hand-written kernel checks kernel.py's contract (N_CTX a positive multiple of 128); a
  // generated one knows only the TTGIR, which has no such check (as Triton's own kernel).
  args[8].i = 100;
  res.check(sched2cu_launch(args, 9, nullptr) == cudaErrorInvalidValue, "N_CTX = 100 rejected");
  args[8].i = 192;
  res.check(sched2cu_launch(args, 9, nullptr) == cudaErrorInvalidValue, "N_CTX = 192 rejected");
  args[8].i = -128;
  res.check(sched2cu_launch(args, 9, nullptr) == cudaErrorInvalidValue, "N_CTX = -128 rejected");
#else
  args[8].i = -128;  // an empty grid: nothing launched
  rt_test::launch_sync([&] { (void)sched2cu_launch(args, 9, nullptr); }, "N_CTX = -128");
#endif

  // Empty problems: success, nothing launched, nothing written.
  int rc = -1;
  args[8].i = 0;
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 9, nullptr); }, "N_CTX = 0");
  res.check(rc == cudaSuccess, "N_CTX = 0 succeeds");
  make_args(args, buf, buf, buf, buf, buf, s128, 0, 4, 128);
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 9, nullptr); }, "Z = 0");
  res.check(rc == cudaSuccess, "Z = 0 succeeds");
  make_args(args, buf, buf, buf, buf, buf, s128, 2, 0, 256);
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 9, nullptr); }, "H = 0");
  res.check(rc == cudaSuccess, "H = 0 succeeds");
  RT_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> host(buf_bytes);
  RT_CHECK(cudaMemcpy(host.data(), buf, buf_bytes, cudaMemcpyDeviceToHost));
  bool untouched = true;
  for (unsigned char b : host) untouched = untouched && b == 0x5a;
  res.check(untouched, "rejected and empty launches wrote nothing");
  RT_CHECK(cudaFree(buf));
  return res.exit_code();
}
