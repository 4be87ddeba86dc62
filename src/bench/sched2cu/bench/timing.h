// Kernel timing in the manner of triton.testing.do_bench: one untimed call, an estimate from 5
// flushed calls, ~50 ms of warmup, ~200 ms of repetitions each preceded by a 256 MiB L2 flush
// (a memset), CUDA events around every timed call, median reported. Runs on the legacy default
// stream so that launches made by separately linked modules (dlopened kernels) serialize with
// the events. Never time without the flush, and never report a mean.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace sched2cu::bench {

struct BenchOptions {
  double warmup_ms = 50.0;
  double rep_ms = 200.0;
  size_t flush_bytes = 256ull << 20;
  int estimate_calls = 5;
  int max_repeats = 100000;  // guards event arrays against a near-zero estimate
};

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int count = 0;  // timed repetitions
  int warmup = 0;
  double estimate_ms = 0;  // per call, flush included, as do_bench estimates it
};

// Number of warmup and timed repetitions for a per-call estimate (pure; unit-tested).
struct Iterations {
  int warmup;
  int repeat;
};
Iterations bench_iterations(double estimate_ms, const BenchOptions& opt);

// Median (mean of the two middle values for an even count), min, max and count of `ms`.
TimingStats summarize(std::vector<float> ms);

// A launch returning a cudaError_t as int (0 = success). Any non-zero return stops the timing
// with a sched2cu::Error naming the error.
using LaunchFn = std::function<int()>;

// Times `fn` on the current device. Throws sched2cu::Error on any CUDA error or launch failure.
TimingStats do_bench(const LaunchFn& fn, const BenchOptions& opt = {});

// Times several kernels side by side: each gets its own estimate and its own do_bench iteration
// counts, but after the estimates their warmup calls and then their timed calls alternate one
// call at a time, the order reversed every other round (each timed call still after its own L2
// flush). Kernels compared in one table
// must be timed this way: on the H200 under its 700 W cap, where a kernel sat in a sequence of
// back-to-back do_bench runs moved its result by up to 8%.
std::vector<TimingStats> do_bench_interleaved(const std::vector<LaunchFn>& fns,
                                              const BenchOptions& opt = {});

// Releases the flush buffer (kept between calls to avoid re-allocating 256 MiB per timing).
void release_flush_buffer();

}  // namespace sched2cu::bench
