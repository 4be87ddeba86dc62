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
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (double(ms[n / 2 - 1]) + double(ms[n / 2]));
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  return s;
}

std::vector<TimingStats> do_bench_interleaved(const std::vector<LaunchFn>& fns,
                                              const BenchOptions& opt) {
  void* flush = flush_buffer(opt.flush_bytes);
  cudaStream_t s = nullptr;  // legacy default stream: see timing.h
  Events ev;
  std::vector<double> estimate(fns.size());
  std::vector<Iterations> its(fns.size());
  for (size_t k = 0; k < fns.size(); ++k) {
    run_checked(fns[k], "the first (untimed) call");
    check_cuda(cudaDeviceSynchronize(), "the first (untimed) call");
    cudaEvent_t e0 = ev.make(), e1 = ev.make();
    check_cuda(cudaEventRecord(e0, s), "cudaEventRecord");
    for (int i = 0; i < opt.estimate_calls; ++i) {
      check_cuda(cudaMemsetAsync(flush, 0, opt.flush_bytes, s), "L2 flush");
      run_checked(fns[k], "the estimate");
    }
    check_cuda(cudaEventRecord(e1, s), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(e1), "the estimate");
    float est_total = 0;
    check_cuda(cudaEventElapsedTime(&est_total, e0, e1), "cudaEventElapsedTime");
    estimate[k] = est_total / opt.estimate_calls;
    its[k] = bench_iterations(estimate[k], opt);
  }
  // Round robin from here on: warmup and timed calls of the kernels alternate one call at a
  // time, so that every kernel samples the same stretch of the GPU's clock and power state.
  int rounds = 0;
  for (const auto& it : its) rounds = std::max({rounds, it.warmup, it.repeat});
  for (int i = 0; i < rounds; ++i)
    for (size_t k = 0; k < fns.size(); ++k)
      if (i < its[k].warmup) run_checked(fns[k], "warmup");
  std::vector<std::vector<cudaEvent_t>> starts(fns.size()), ends(fns.size());
  for (size_t k = 0; k < fns.size(); ++k)
    for (int i = 0; i < its[k].repeat; ++i) {
      starts[k].push_back(ev.make());
      ends[k].push_back(ev.make());
    }
  // Odd rounds run the kernels in reverse order, so that no kernel always comes first after
  // another kernel's flush.
  for (int i = 0; i < rounds; ++i)
    for (size_t j = 0; j < fns.size(); ++j) {
      const size_t k = i % 2 ? fns.size() - 1 - j : j;
      if (i >= its[k].repeat) continue;
      check_cuda(cudaMemsetAsync(flush, 0, opt.flush_bytes, s), "L2 flush");
      check_cuda(cudaEventRecord(starts[k][i], s), "cudaEventRecord");
      run_checked(fns[k], "timing");
      check_cuda(cudaEventRecord(ends[k][i], s), "cudaEventRecord");
    }
  check_cuda(cudaDeviceSynchronize(), "the timed repetitions");
  std::vector<TimingStats> out;
  for (size_t k = 0; k < fns.size(); ++k) {
    std::vector<float> ms(its[k].repeat);
    for (int i = 0; i < its[k].repeat; ++i)
      check_cuda(cudaEventElapsedTime(&ms[i], starts[k][i], ends[k][i]), "cudaEventElapsedTime");
    TimingStats st = summarize(std::move(ms));
    st.warmup = its[k].warmup;
    st.estimate_ms = estimate[k];
    out.push_back(std::move(st));
  }
  return out;
}

TimingStats do_bench(const LaunchFn& fn, const BenchOptions& opt) {
  return do_bench_interleaved({fn}, opt).at(0);
}

}  // namespace sched2cu::bench
