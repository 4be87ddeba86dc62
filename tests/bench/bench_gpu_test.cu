// GPU tests of the bench library (label gpu; exit 77 without a Hopper GPU): seeded fills are
// deterministic, NaN fill is counted, rel_error matches a hand computation, the cuBLAS reference
// agrees with the naive GEMM, add_to_f32 and the cuBLASLt addmm agree with the reference plus a
// bias, and do_bench returns sane statistics.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sched2cu/bench/blas.h"
#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/bench/device_ops.h"
#include "sched2cu/bench/gpu.h"
#include "sched2cu/bench/timing.h"

using namespace sched2cu::bench;

static int failures = 0;
#define EXPECT(c)                                                          \
  do {                                                                     \
    if (!(c)) {                                                            \
      std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

int main() {
  DeviceInfo d;
  try {
    d = query_device();
  } catch (const std::exception& e) {
    std::printf("skip: %s\n", e.what());
    return 77;
  }
  if (d.major != 9) {
    std::printf("skip: not a Hopper GPU\n");
    return 77;
  }
  try {
    const size_t n = 1 << 20;
    void *x, *y;
    check_cuda(cudaMalloc(&x, n * 4), "malloc");
    check_cuda(cudaMalloc(&y, n * 4), "malloc");
    fill_normal(x, n, DType::f32, 7);
    fill_normal(y, n, DType::f32, 7);
    RelError e = rel_error(x, DType::f32, y, DType::f32, n);
    EXPECT(e.rel == 0.0 && e.nan_a == 0);
    EXPECT(e.max_abs_ref > 3.0 && e.max_abs_ref < 7.0);  // max of 1M standard normals
    fill_normal(y, n, DType::f32, 8);
    EXPECT(rel_error(x, DType::f32, y, DType::f32, n).rel > 0.1);
    // One perturbed element: rel = |delta| / max|b|.
    fill_value(x, n, DType::f32, 2.0);
    fill_value(y, n, DType::f32, 2.0);
    float v = 2.5f;
    check_cuda(cudaMemcpy(static_cast<float*>(x) + 123, &v, 4, cudaMemcpyHostToDevice), "cpy");
    e = rel_error(x, DType::f32, y, DType::f32, n);
    EXPECT(std::fabs(e.rel - 0.25) < 1e-6);
    fill_nan(x, 1000, DType::f16);
    e = rel_error(x, DType::f16, y, DType::f32, 1000);
    EXPECT(e.nan_a == 1000 && std::isnan(e.rel));
    fill_nan(x, 10, DType::e4m3);
    EXPECT(std::isnan(read_element(x, DType::e4m3, 3)));
    // Reference GEMM against a transposed-B formulation of the same product.
    const long long M = 256, N = 192, K = 320;
    void *a, *b, *c1, *c2;
    check_cuda(cudaMalloc(&a, M * K * 2), "malloc");
    check_cuda(cudaMalloc(&b, K * N * 2), "malloc");
    check_cuda(cudaMalloc(&c1, M * N * 4), "malloc");
    check_cuda(cudaMalloc(&c2, M * N * 4), "malloc");
    fill_normal(a, M * K, DType::f16, 1);
    fill_normal(b, K * N, DType::f16, 2);
    Blas blas;
    blas.gemm_ref_f32({a, DType::f16}, {b, DType::f16}, static_cast<float*>(c1), M, N, K);
    // One entry against a host dot product.
    float h1 = 0;
    check_cuda(cudaMemcpy(&h1, static_cast<float*>(c1) + 5 * N + 7, 4, cudaMemcpyDeviceToHost),
               "cpy");
    double ref = 0;
    for (long long k = 0; k < K; ++k)
      ref += read_element(a, DType::f16, 5 * K + k) * read_element(b, DType::f16, k * N + 7);
    EXPECT(std::fabs(h1 - ref) < 1e-3 * (1 + std::fabs(ref)));
    // Vendor f16 GEMM close to the reference.
    EXPECT(blas.gemm({a, DType::f16}, {b, DType::f16}, c2, DType::f16, M, N, K) == 0);
    check_cuda(cudaDeviceSynchronize(), "vendor");
    EXPECT(rel_error(c2, DType::f16, c1, DType::f32, M * N).rel < 5e-3);
    // add_to_f32: the f32 reference plus a bias, element by element.
    void *bias, *r2, *d;
    check_cuda(cudaMalloc(&bias, M * N * 2), "malloc");
    check_cuda(cudaMalloc(&r2, M * N * 4), "malloc");
    check_cuda(cudaMalloc(&d, M * N * 2), "malloc");
    fill_normal(bias, M * N, DType::f16, 3);
    check_cuda(cudaMemcpy(r2, c1, M * N * 4, cudaMemcpyDeviceToDevice), "cpy");
    add_to_f32(static_cast<float*>(r2), bias, DType::f16, M * N);
    for (long long i : {0LL, 5 * N + 7, M * N - 1})
      EXPECT(read_element(r2, DType::f32, i) ==
             static_cast<double>(static_cast<float>(read_element(c1, DType::f32, i)) +
                                 static_cast<float>(read_element(bias, DType::f16, i))));
    // Vendor addmm (cuBLASLt, out of place): close to reference + bias, the bias left intact,
    // and a second call (cached plan) identical to the first.
    fill_nan(d, M * N, DType::f16);
    EXPECT(blas.addmm({a, DType::f16}, {b, DType::f16}, bias, d, DType::f16, M, N, K) == 0);
    check_cuda(cudaDeviceSynchronize(), "vendor addmm");
    RelError ea = rel_error(d, DType::f16, r2, DType::f32, M * N);
    EXPECT(ea.nan_a == 0 && ea.rel < 5e-3);
    EXPECT(rel_error(c2, DType::f16, r2, DType::f32, M * N).rel > 0.05);  // the bias matters
    void* d2;
    check_cuda(cudaMalloc(&d2, M * N * 2), "malloc");
    fill_nan(d2, M * N, DType::f16);
    EXPECT(blas.addmm({a, DType::f16}, {b, DType::f16}, bias, d2, DType::f16, M, N, K) == 0);
    check_cuda(cudaDeviceSynchronize(), "vendor addmm (cached plan)");
    EXPECT(rel_error(d2, DType::f16, d, DType::f16, M * N).rel == 0.0);
    void* bias_copy;
    check_cuda(cudaMalloc(&bias_copy, M * N * 2), "malloc");
    fill_normal(bias_copy, M * N, DType::f16, 3);
    EXPECT(rel_error(bias, DType::f16, bias_copy, DType::f16, M * N).rel == 0.0);
    // Shapes and types cuBLASLt is not asked to run are refused with a status.
    EXPECT(blas.addmm({a, DType::f16}, {b, DType::f16}, bias, d2, DType::f16, 0, N, K) != 0);
    EXPECT(blas.addmm({a, DType::f16}, {b, DType::bf16}, bias, d2, DType::f16, M, N, K) != 0);
    // Timing of the vendor GEMM: positive, ordered statistics.
    BenchOptions o;
    o.rep_ms = 20;
    o.warmup_ms = 5;
    TimingStats t = do_bench(
        [&] {
          return blas.gemm({a, DType::f16}, {b, DType::f16}, c2, DType::f16, M, N, K);
        },
        o);
    EXPECT(t.count >= 1 && t.min_ms > 0 && t.min_ms <= t.median_ms && t.median_ms <= t.max_ms);
    // Interleaved timing of a GEMM and a 4x larger one: every kernel timed, each with its own
    // counts, and the larger one measured slower.
    auto small = [&] {
      return blas.gemm({a, DType::f16}, {b, DType::f16}, c2, DType::f16, M, N, K);
    };
    auto big = [&] {
      int rc = 0;
      for (int r = 0; r < 4 && rc == 0; ++r)
        rc = blas.gemm({a, DType::f16}, {b, DType::f16}, c2, DType::f16, M, N, K);
      return rc;
    };
    std::vector<TimingStats> tt = do_bench_interleaved({small, big}, o);
    EXPECT(tt.size() == 2 && tt[0].count >= 1 && tt[1].count >= 1);
    EXPECT(tt[1].median_ms > tt[0].median_ms);
    EXPECT(tt[0].count >= tt[1].count);
    // A failing launch stops the timing with an error.
    bool threw = false;
    try {
      do_bench([] { return 1; }, o);
    } catch (const sched2cu::Error&) {
      threw = true;
    }
    EXPECT(threw);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
