// Helpers shared by the runtime GPU tests: skip (exit 77) without a Hopper GPU, CUDA error
// checks, deterministic random data and a relative-error comparison. Test support only; must
// never hide a failure (every check counts into the exit code).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define RT_CHECK(x)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace rt_test {

// Exits 77 (ctest: skipped) unless a compute-capability-9.0 device is visible.
inline void require_hopper() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no CUDA device: skipped\n");
    std::exit(77);
  }
  cudaDeviceProp p{};
  RT_CHECK(cudaGetDeviceProperties(&p, 0));
  if (p.major != 9 || p.minor != 0) {
    std::printf("device %s is sm_%d%d, not Hopper: skipped\n", p.name, p.major, p.minor);
    std::exit(77);
  }
}

// Deterministic uniform values in [-1, 1).
inline float urand(uint32_t& s) {
  s = s * 1664525u + 1013904223u;
  return static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
}

struct Result {
  int failures = 0;
  void check(bool ok, const char* what) {
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    std::fflush(stdout);
    if (!ok) ++failures;
  }
  int exit_code() const {
    std::printf("%d failure(s)\n", failures);
    return failures == 0 ? 0 : 1;
  }
};

// max|a-b| / max(max|ref|, 1e-9); NaN anywhere in `a` gives +inf.
inline double rel_err(const std::vector<float>& a, const std::vector<float>& ref) {
  double md = 0, mr = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(a[i])) return INFINITY;
    md = std::fmax(md, std::fabs(static_cast<double>(a[i]) - ref[i]));
    mr = std::fmax(mr, std::fabs(static_cast<double>(ref[i])));
  }
  return md / std::fmax(mr, 1e-9);
}

// Runs the kernel launch `f` (on the legacy default stream), then waits at most `timeout_s`
// seconds: a protocol bug shows up as "HANG" and exit code 1 instead of a stuck test.
template <class F>
void launch_sync(F f, const char* what = "kernel", double timeout_s = 20.0) {
  std::fflush(stdout);
  f();
  RT_CHECK(cudaGetLastError());
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(nullptr);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) RT_CHECK(e);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) {
      std::printf("HANG in %s (no completion after %.0f s)\n", what, timeout_s);
      std::fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace rt_test
