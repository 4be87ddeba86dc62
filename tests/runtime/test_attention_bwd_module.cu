// GPU test of an attention backward module (examples/case4_FA_bwd/{handwritten,generated}.cu,
// linked into this executable) through its ABI: dQ, dK, dV of kernel.py against a CPU double
// reference on small shapes (one K/V block, several heads, an odd number of blocks, rings that
// wrap several times), with M and Di computed by a CPU forward pass; DK and DV poisoned with NaN
// so unwritten elements fail, DQ zeroed as the ABI requires and checked to accumulate (a second
// launch without zeroing doubles it), rejection of bad arguments, and empty problems that
// launch nothing. Every launch runs under a watchdog: a protocol bug shows as HANG, not a stuck
// test. Test support only: it must never loosen a tolerance to make a kernel pass.
#include "gpu_test_util.h"
#include "sched2cu/abi.h"

#include <cuda_fp16.h>

#include <cstring>

namespace {

constexpr int D = 64;
constexpr double kLog2e = 1.4426950408889634;

struct Shape {
  long long BH, N;
  float q_amp;  // Q values in [-q_amp, q_amp): larger = more peaked softmax
};

std::vector<__half> random_f16(size_t n, uint32_t& seed, float amp, std::vector<float>& as_float) {
  std::vector<__half> v(n);
  as_float.resize(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = __float2half(amp * rt_test::urand(seed));
    as_float[i] = __half2float(v[i]);
  }
  return v;
}

// The forward's statistics: M = base-2 log-sum-exp of S·log2(e) with S = Q·Kᵀ, and
// Di = rowsum(dO ⊙ O), O = softmax(S)·V, both rounded to f32 as the kernel gets them.
void forward_stats(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                   const std::vector<float>& v, const std::vector<float>& dout,
                   std::vector<float>& m, std::vector<float>& di) {
  const long long N = s.N;
  m.assign(s.BH * N, 0.f);
  di.assign(s.BH * N, 0.f);
  std::vector<double> sc(N), o(D);
  for (long long h = 0; h < s.BH; ++h) {
    const long long base = h * N;
    for (long long i = 0; i < N; ++i) {
      double mx = -INFINITY;
      for (long long j = 0; j < N; ++j) {
        double d = 0;
        for (int c = 0; c < D; ++c)
          d += static_cast<double>(q[(base + i) * D + c]) * k[(base + j) * D + c];
        sc[j] = d;
        mx = std::fmax(mx, d);
      }
      double sum = 0;
      for (int c = 0; c < D; ++c) o[c] = 0;
      for (long long j = 0; j < N; ++j) {
        const double p = std::exp(sc[j] - mx);
        sum += p;
        for (int c = 0; c < D; ++c) o[c] += p * v[(base + j) * D + c];
      }
      double dsum = 0;
      for (int c = 0; c < D; ++c) dsum += o[c] / sum * dout[(base + i) * D + c];
      m[base + i] = static_cast<float>((mx + std::log(sum)) * kLog2e);
      di[base + i] = static_cast<float>(dsum);
    }
  }
}

// kernel.py's backward in double from the f32 M and Di: P = exp2(S·log2e − M), dV = Pᵀ·dO,
// dP = dO·Vᵀ, dS = P ⊙ (dP − Di), dK = dSᵀ·Q, dQ = dS·K.
void backward_ref(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                  const std::vector<float>& v, const std::vector<float>& dout,
                  const std::vector<float>& m, const std::vector<float>& di, std::vector<float>& dq,
                  std::vector<float>& dk, std::vector<float>& dv) {
  const long long N = s.N, rows = s.BH * N;
  std::vector<double> adq(rows * D, 0.0), adk(rows * D, 0.0), adv(rows * D, 0.0);
  for (long long h = 0; h < s.BH; ++h) {
    const long long base = h * N;
    for (long long i = 0; i < N; ++i) {
      const float* qi = &q[(base + i) * D];
      const float* doi = &dout[(base + i) * D];
      for (long long j = 0; j < N; ++j) {
        const float* kj = &k[(base + j) * D];
        const float* vj = &v[(base + j) * D];
        double sij = 0, dpij = 0;
        for (int c = 0; c < D; ++c) {
          sij += static_cast<double>(qi[c]) * kj[c];
          dpij += static_cast<double>(doi[c]) * vj[c];
        }
        const double p = std::exp2(sij * kLog2e - m[base + i]);
        const double ds = p * (dpij - di[base + i]);
        for (int c = 0; c < D; ++c) {
          adv[(base + j) * D + c] += p * doi[c];
          adk[(base + j) * D + c] += ds * qi[c];
          adq[(base + i) * D + c] += ds * kj[c];
        }
      }
    }
  }
  dq.assign(adq.begin(), adq.end());
  dk.assign(adk.begin(), adk.end());
  dv.assign(adv.begin(), adv.end());
}

// Fills a[0..11) in kernel.py's order: Q, K, V, DO, M, Di, DQ, DK, DV, BH, N_CTX.
void make_args(sched2cu_arg* a, void* q, void* k, void* v, void* dout, void* m, void* di, void* dq,
               void* dk, void* dv, long long BH, long long N) {
  a[0].ptr = q;
  a[1].ptr = k;
  a[2].ptr = v;
  a[3].ptr = dout;
  a[4].ptr = m;
  a[5].ptr = di;
  a[6].ptr = dq;
  a[7].ptr = dk;
  a[8].ptr = dv;
  a[9].i = BH;
  a[10].i = N;
}

void run_shape(const Shape& s, bool twice, rt_test::Result& res) {
  const long long rows = s.BH * s.N;
  uint32_t seed = static_cast<uint32_t>(s.BH * 131 + s.N);
  std::vector<float> qf, kf, vf, dof, mf, dif;
  std::vector<__half> q = random_f16(rows * D, seed, s.q_amp, qf);
  std::vector<__half> k = random_f16(rows * D, seed, 1.f, kf);
  std::vector<__half> v = random_f16(rows * D, seed, 1.f, vf);
  std::vector<__half> dout = random_f16(rows * D, seed, 1.f, dof);
  forward_stats(s, qf, kf, vf, dof, mf, dif);

  const size_t hbytes = rows * D * sizeof(__half), fbytes = rows * D * sizeof(float);
  void *dq_, *dk_, *dv_, *ddo, *dm, *ddi, *gdq, *gdk, *gdv;
  RT_CHECK(cudaMalloc(&dq_, hbytes));
  RT_CHECK(cudaMalloc(&dk_, hbytes));
  RT_CHECK(cudaMalloc(&dv_, hbytes));
  RT_CHECK(cudaMalloc(&ddo, hbytes));
  RT_CHECK(cudaMalloc(&dm, rows * sizeof(float)));
  RT_CHECK(cudaMalloc(&ddi, rows * sizeof(float)));
  RT_CHECK(cudaMalloc(&gdq, fbytes));
  RT_CHECK(cudaMalloc(&gdk, hbytes));
  RT_CHECK(cudaMalloc(&gdv, hbytes));
  RT_CHECK(cudaMemcpy(dq_, q.data(), hbytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dk_, k.data(), hbytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dv_, v.data(), hbytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(ddo, dout.data(), hbytes, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dm, mf.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(ddi, dif.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(gdq, 0, fbytes));     // the caller zeroes DQ (the kernel accumulates)
  RT_CHECK(cudaMemset(gdk, 0xff, hbytes));  // NaN
  RT_CHECK(cudaMemset(gdv, 0xff, hbytes));
  sched2cu_arg args[11];
  make_args(args, dq_, dk_, dv_, ddo, dm, ddi, gdq, gdk, gdv, s.BH, s.N);
  char what[160];
  std::snprintf(what, sizeof what, "attention bwd (BH,N) = (%lld,%lld)", s.BH, s.N);
  int rc = -1;
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 11, nullptr); }, what);
  RT_CHECK(static_cast<cudaError_t>(rc));

  std::vector<float> got_dq(rows * D), got_dk(rows * D), got_dv(rows * D);
  std::vector<__half> hk(rows * D), hv(rows * D);
  RT_CHECK(cudaMemcpy(got_dq.data(), gdq, fbytes, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(hk.data(), gdk, hbytes, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(hv.data(), gdv, hbytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < hk.size(); ++i) {
    got_dk[i] = __half2float(hk[i]);
    got_dv[i] = __half2float(hv[i]);
  }
  std::vector<float> ref_dq, ref_dk, ref_dv;
  backward_ref(s, qf, kf, vf, dof, mf, dif, ref_dq, ref_dk, ref_dv);
  const double eq = rt_test::rel_err(got_dq, ref_dq), ek = rt_test::rel_err(got_dk, ref_dk),
               ev = rt_test::rel_err(got_dv, ref_dv);
  char line[256];
  std::snprintf(line, sizeof line, "%s: dQ rel err %.2e", what, eq);
  res.check(eq <= 3e-2, line);
  std::snprintf(line, sizeof line, "%s: dK rel err %.2e", what, ek);
  res.check(ek <= 3e-2, line);
  std::snprintf(line, sizeof line, "%s: dV rel err %.2e", what, ev);
  res.check(ev <= 3e-2, line);

  if (twice) {  // DQ is accumulated into, never overwritten: a second launch doubles it
    rt_test::launch_sync([&] { rc = sched2cu_launch(args, 11, nullptr); }, what);
    RT_CHECK(static_cast<cudaError_t>(rc));
    RT_CHECK(cudaMemcpy(got_dq.data(), gdq, fbytes, cudaMemcpyDeviceToHost));
    for (float& x : ref_dq) x *= 2.f;
    const double e2 = rt_test::rel_err(got_dq, ref_dq);
    std::snprintf(line, sizeof line, "%s: second launch accumulates dQ (rel err %.2e)", what, e2);
    res.check(e2 <= 3e-2, line);
  }
  for (void* p : {dq_, dk_, dv_, ddo, dm, ddi, gdq, gdk, gdv}) RT_CHECK(cudaFree(p));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  res.check(sched2cu_abi_version() == SCHED2CU_ABI_VERSION, "ABI version");
  run_shape({1, 128, 1.f}, true, res);    // one K/V block, one Q tile: no step loops back
  run_shape({2, 256, 1.f}, false, res);   // two heads, 2 blocks and 2 steps each
  run_shape({3, 384, 1.5f}, false, res);  // odd block count, more peaked softmax
  run_shape({1, 1024, 1.f}, false, res);  // 8 steps: the rings wrap 4 times, 8 CTAs add dQ

  // Bad arguments are refused without launching.
  void* buf = nullptr;
  const size_t buf_bytes = 256 * D * 4;
  RT_CHECK(cudaMalloc(&buf, buf_bytes));
  RT_CHECK(cudaMemset(buf, 0x5a, buf_bytes));
  sched2cu_arg args[12];
  make_args(args, buf, buf, buf, buf, buf, buf, buf, buf, buf, 1, 128);
  args[11].i = 0;
  res.check(sched2cu_launch(args, 10, nullptr) == cudaErrorInvalidValue, "10 args rejected");
  res.check(sched2cu_launch(args, 12, nullptr) == cudaErrorInvalidValue, "12 args rejected");
  res.check(sched2cu_launch(nullptr, 11, nullptr) == cudaErrorInvalidValue, "null args rejected");
#ifdef SCHED2CU_TEST_REJECTS_PARTIAL_BLOCKS
  // The hand-written kernel checks kernel.py's contract (N_CTX a multiple of 128); a generated
  // one knows only the TTGIR, which has no such check (as Triton's own kernel).
  args[10].i = 100;
  res.check(sched2cu_launch(args, 11, nullptr) == cudaErrorInvalidValue, "N_CTX = 100 rejected");
  args[10].i = 192;
  res.check(sched2cu_launch(args, 11, nullptr) == cudaErrorInvalidValue, "N_CTX = 192 rejected");
  args[10].i = -128;
  res.check(sched2cu_launch(args, 11, nullptr) == cudaErrorInvalidValue, "N_CTX = -128 rejected");
  args[10].i = 128;
  args[9].i = -1;
  res.check(sched2cu_launch(args, 11, nullptr) == cudaErrorInvalidValue, "BH = -1 rejected");
#else
  args[10].i = -128;  // an empty grid: nothing launched
  rt_test::launch_sync([&] { (void)sched2cu_launch(args, 11, nullptr); }, "N_CTX = -128");
#endif

  // Empty problems: success, nothing launched, nothing written.
  int rc = -1;
  make_args(args, buf, buf, buf, buf, buf, buf, buf, buf, buf, 2, 0);
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 11, nullptr); }, "N_CTX = 0");
  res.check(rc == cudaSuccess, "N_CTX = 0 succeeds");
  make_args(args, buf, buf, buf, buf, buf, buf, buf, buf, buf, 0, 256);
  rt_test::launch_sync([&] { rc = sched2cu_launch(args, 11, nullptr); }, "BH = 0");
  res.check(rc == cudaSuccess, "BH = 0 succeeds");
  RT_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> host(buf_bytes);
  RT_CHECK(cudaMemcpy(host.data(), buf, buf_bytes, cudaMemcpyDeviceToHost));
  bool untouched = true;
  for (unsigned char b : host) untouched = untouched && b == 0x5a;
  res.check(untouched, "rejected and empty launches wrote nothing");
  RT_CHECK(cudaFree(buf));
  return res.exit_code();
}
