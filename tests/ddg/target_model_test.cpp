// Tests of the target table loader and formulas: the shipped sm_90a table loads, the three costs
// stay distinct for the ops the corpus uses, and malformed tables are rejected by name.
#include <gtest/gtest.h>

#include "sched2cu/common/diag.h"
#include "sched2cu/ddg/target_model.h"

using namespace sched2cu;
using namespace sched2cu::ddg;

TEST(TargetModel, Sm90aLoadsAndClassifies) {
  auto t = TargetModel::load(TargetModel::default_path("sm_90a"));
  EXPECT_EQ(t.name, "sm_90a");
  EXPECT_EQ(t.budgets.smem_bytes_per_block, 232448);
  EXPECT_EQ(t.budgets.regs_per_sm, 65536);
  EXPECT_EQ(t.budgets.max_regs_per_thread, 255);
  EXPECT_EQ(t.budgets.setmaxnreg_granularity, 8);
  const OpClass* mma = t.classify("ttng.warp_group_dot", true);
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->pipe, Pipe::TC);
  // 128x256x64 f16: 2*M*N*K / 4074 (the H200's measured f16 rate, 2026-11-29) = 1029.5 -> 1030
  // cycles of tensor-core occupancy; e4m3 measured at 8149 FLOP/clk -> 514.7 -> 515.
  OpShape s{0, 128 * 256, 64 * 256, 2LL * 128 * 256 * 64, "f16"};
  auto c = t.costs(*mma, s);
  EXPECT_EQ(c.occupancy, 1030);
  EXPECT_EQ(c.latency, 1030 + 202);  // + the measured drain to wait_group
  EXPECT_LT(c.issue, c.occupancy);
  EXPECT_TRUE(mma->occupancy.calibrated && mma->latency.calibrated);
  EXPECT_FALSE(mma->issue.calibrated);  // not measured by tools/calibrate
  s.dtype = "f8E4M3FN";
  EXPECT_EQ(t.costs(*mma, s).occupancy, 515);
  const OpClass* tma = t.classify("tt.descriptor_load", true);
  ASSERT_NE(tma, nullptr);
  EXPECT_EQ(tma->stream, "producer");
  // 64x256 f16 (32 KB): the fits to the H200 points (docs/target_model.md): latency
  // 366 + 9.3*32 = 663.6 (measured p50 664), tail 1878 + 143.7*32 = 6476.4, one load per 512.
  auto k = t.costs(*tma, OpShape{32768, 16384, 0, 0, ""});
  EXPECT_EQ(k.latency, 664);
  EXPECT_EQ(k.latency_tail, 6476);
  EXPECT_EQ(k.occupancy, 512);
  EXPECT_EQ(t.costs(*tma, OpShape{8192, 4096, 0, 0, ""}).occupancy, 512);  // not per byte
  EXPECT_GT(k.occupancy, k.issue);
  EXPECT_TRUE(tma->latency.calibrated && tma->latency_tail.calibrated && tma->occupancy.calibrated);
  // Scalar and tensor forms of one op land in different classes.
  EXPECT_EQ(t.classify("arith.addi", false)->name, "scalar");
  EXPECT_EQ(t.classify("arith.addf", true)->name, "elementwise");
  EXPECT_EQ(t.classify("no.such_op", true), nullptr);
}

TEST(TargetModel, RejectsMalformedTables) {
  const std::string good = R"({"schema":"sched2cu.target","schema_version":1,"target":"x",
    "budgets":{"smem_bytes_per_block":1,"regs_per_sm":1,"max_regs_per_thread":1,
      "setmaxnreg_granularity":8,"setmaxnreg_min":24,"setmaxnreg_max":256,
      "threads_per_warpgroup":128,"max_threads_per_block":1024,"mbarrier_bytes":8,
      "producer_regs":40},
    "tc_flop_per_clk":{"f16":4096},"streams":{"TC":"consumer"},
    "classes":[{"name":"m","pipe":"TC","ops":["a.b"],"latency":{"base":1},"issue":{"base":1},
      "occupancy":{"per_tc_cycle":1}}]})";
  EXPECT_NO_THROW(TargetModel::from_json_text(good, "t.json"));
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_THROW(TargetModel::from_json_text(bad("\"pipe\":\"TC\"", "\"pipe\":\"XX\""), "t"), Error);
  EXPECT_THROW(TargetModel::from_json_text(bad("{\"base\":1}", "{\"bsae\":1}"), "t"), Error);
  EXPECT_THROW(
      TargetModel::from_json_text(bad("\"schema_version\":1", "\"schema_version\":9"), "t"), Error);
  EXPECT_THROW(TargetModel::from_json_text("{", "t"), Error);
  auto t = TargetModel::from_json_text(good, "t.json");
  EXPECT_THROW(t.costs(t.classes[0], OpShape{0, 0, 0, 100, "bf16"}), Error);  // no bf16 rate
}
