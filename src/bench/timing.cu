// do_bench-style timing (see timing.h). The flush buffer is allocated once per process; events
// are created per call and destroyed on every path, including errors.
#include <algorithm>
#include <cmath>
#include <string>

#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/bench/timing.h"

namespace sched2cu::bench {

namespace {

void* g_flush = nullptr;
size_t g_flush_bytes = 0;

void* flush_buffer(size_t bytes) {
  if (g_flush_bytes < bytes) {
    release_flush_buffer();
    check_cuda(cudaMalloc(&g_flush, bytes), "allocating the L2 flush buffer");
    g_flush_bytes = bytes;
  }
  return g_flush;
}

void run_checked(const LaunchFn& fn, const char* phase) {
  int rc = fn();
  if (rc != 0) {
    throw Error(std::string("kernel launch failed during ") + phase + ": " + cuda_error_name(rc));
  }
}

struct Events {
  std::vector<cudaEvent_t> ev;
  ~Events() {
    for (auto e : ev) cudaEventDestroy(e);
  }
  cudaEvent_t make() {
    cudaEvent_t e;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    ev.push_back(e);
    return e;
  }
};

}  // namespace

void release_flush_buffer() {
  if (g_flush) cudaFree(g_flush);
  g_flush = nullptr;
  g_flush_bytes = 0;
}

Iterations bench_iterations(double estimate_ms, const BenchOptions& opt) {
  // do_bench divides by the estimate; a zero estimate (timer resolution) must not crash us.
  double est = std::max(estimate_ms, 1e-4);
  auto clamp = [&](double v) {
    if (!(v < opt.max_repeats)) return opt.max_repeats;
    return std::max(1, static_cast<int>(v));
  };
  return {clamp(opt.warmup_ms / est), clamp(opt.rep_ms / est)};
}

TimingStats summarize(std::vector<float> ms) {
  TimingStats s;
  s.count = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  s.samples = ms;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (double(ms[n / 2 - 1]) + double(ms[n / 2]));
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  return s;
}

TimingStats pool(const TimingStats& a, const TimingStats& b) {
  std::vector<float> all = a.samples;
  all.insert(all.end(), b.samples.begin(), b.samples.end());
  TimingStats s = summarize(std::move(all));
  s.warmup = a.warmup + b.warmup;
  s.estimate_ms = a.estimate_ms;
  return s;
}

TimingStats do_bench(const LaunchFn& fn, const BenchOptions& opt) {
  void* flush = flush_buffer(opt.flush_bytes);
  cudaStream_t s = nullptr;  // legacy default stream: see timing.h
  run_checked(fn, "the first (untimed) call");
  check_cuda(cudaDeviceSynchronize(), "the first (untimed) call");

  Events ev;
  cudaEvent_t e0 = ev.make(), e1 = ev.make();
  check_cuda(cudaEventRecord(e0, s), "cudaEventRecord");
  for (int i = 0; i < opt.estimate_calls; ++i) {
    check_cuda(cudaMemsetAsync(flush, 0, opt.flush_bytes, s), "L2 flush");
    run_checked(fn, "the estimate");
  }
  check_cuda(cudaEventRecord(e1, s), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(e1), "the estimate");
  float est_total = 0;
  check_cuda(cudaEventElapsedTime(&est_total, e0, e1), "cudaEventElapsedTime");
  double estimate = est_total / opt.estimate_calls;
  Iterations it = bench_iterations(estimate, opt);

  for (int i = 0; i < it.warmup; ++i) run_checked(fn, "warmup");

  std::vector<cudaEvent_t> starts(it.repeat), ends(it.repeat);
  for (int i = 0; i < it.repeat; ++i) {
    starts[i] = ev.make();
    ends[i] = ev.make();
  }
  for (int i = 0; i < it.repeat; ++i) {
    check_cuda(cudaMemsetAsync(flush, 0, opt.flush_bytes, s), "L2 flush");
    check_cuda(cudaEventRecord(starts[i], s), "cudaEventRecord");
    run_checked(fn, "timing");
    check_cuda(cudaEventRecord(ends[i], s), "cudaEventRecord");
  }
  check_cuda(cudaDeviceSynchronize(), "the timed repetitions");
  std::vector<float> ms(it.repeat);
  for (int i = 0; i < it.repeat; ++i) {
    check_cuda(cudaEventElapsedTime(&ms[i], starts[i], ends[i]), "cudaEventElapsedTime");
  }
  TimingStats st = summarize(std::move(ms));
  st.warmup = it.warmup;
  st.estimate_ms = estimate;
  return st;
}

}  // namespace sched2cu::bench
