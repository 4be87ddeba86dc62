// CPU unit tests of the bench library's pure parts: iteration counts, statistics, dtypes. They
// need no GPU and must never touch one.
#include <gtest/gtest.h>

#include "sched2cu/bench/device_ops.h"
#include "sched2cu/bench/gpu.h"
#include "sched2cu/bench/timing.h"
#include "sched2cu/common/diag.h"

using namespace sched2cu::bench;

TEST(BenchIterations, FollowsDoBench) {
  BenchOptions o;
  auto it = bench_iterations(0.5, o);  // 0.5 ms per flushed call
  EXPECT_EQ(it.warmup, 100);
  EXPECT_EQ(it.repeat, 400);
  it = bench_iterations(1000.0, o);  // slower than the budgets: at least one of each
  EXPECT_EQ(it.warmup, 1);
  EXPECT_EQ(it.repeat, 1);
}

TEST(BenchIterations, ZeroEstimateIsCapped) {
  BenchOptions o;
  auto it = bench_iterations(0.0, o);
  EXPECT_EQ(it.repeat, o.max_repeats);
  EXPECT_EQ(it.warmup, o.max_repeats);
}

TEST(Summarize, MedianMinMax) {
  auto s = summarize({3.f, 1.f, 2.f});
  EXPECT_DOUBLE_EQ(s.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 3.0);
  EXPECT_EQ(s.count, 3);
  s = summarize({4.f, 1.f, 2.f, 3.f});
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_EQ(summarize({}).count, 0);
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::e4m3), 1u);
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_THROW(parse_dtype("f64"), sched2cu::Error);
}

TEST(GpuLock, ExclusiveAcrossHolders) {
  setenv("SCHED2CU_LOCK_DIR", ::testing::TempDir().c_str(), 1);
  GpuLock a("unit_test");
  // A second holder in the same process opens a new file description, so flock conflicts.
  EXPECT_THROW(GpuLock("unit_test", 0.3), sched2cu::Error);
}

TEST(GpuLock, KeySanitized) { EXPECT_EQ(gpu_lock_key("0000:3B:00.0"), "0000_3B_00_0"); }
