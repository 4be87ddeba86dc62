// CPU unit tests of the bench library's pure parts: iteration counts, statistics, dtypes, the
// column-major view of row-major GEMMs. They need no GPU and must never touch one.
#include <gtest/gtest.h>

#include "sched2cu/bench/blas.h"
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

// Row-major C[M,N] = A·B is column-major C^T = B^T·A^T: cuBLAS(Lt) gets B first, A second.
TEST(ColMajorView, PlainOperands) {
  const ColMajorGemm g = col_major_view(false, false, 300, 200, 100);
  EXPECT_EQ(g.m, 200);
  EXPECT_EQ(g.n, 300);
  EXPECT_EQ(g.k, 100);
  // B [K,N] row-major: N x K column-major, ld N, no transpose.
  EXPECT_FALSE(g.first.trans);
  EXPECT_EQ(g.first.rows, 200);
  EXPECT_EQ(g.first.cols, 100);
  EXPECT_EQ(g.first.ld, 200);
  // A [M,K] row-major: K x M column-major, ld K.
  EXPECT_FALSE(g.second.trans);
  EXPECT_EQ(g.second.rows, 100);
  EXPECT_EQ(g.second.cols, 300);
  EXPECT_EQ(g.second.ld, 100);
  // C [M,N] row-major: N x M column-major, ld N (the bias of addmm uses the same layout).
  EXPECT_EQ(g.out_rows, 200);
  EXPECT_EQ(g.out_cols, 300);
  EXPECT_EQ(g.ld_out, 200);
}

TEST(ColMajorView, TransposedOperands) {
  const ColMajorGemm g = col_major_view(true, true, 300, 200, 100);
  // B stored [N,K]: K x N column-major, ld K, transposed by cuBLAS.
  EXPECT_TRUE(g.first.trans);
  EXPECT_EQ(g.first.rows, 100);
  EXPECT_EQ(g.first.cols, 200);
  EXPECT_EQ(g.first.ld, 100);
  // A stored [K,M]: M x K column-major, ld M.
  EXPECT_TRUE(g.second.trans);
  EXPECT_EQ(g.second.rows, 300);
  EXPECT_EQ(g.second.cols, 100);
  EXPECT_EQ(g.second.ld, 300);
  EXPECT_EQ(g.ld_out, 200);
}
