// Role assignment for loop-carried scalars that only read each other (partition.cpp): an online
// log-sum-exp's running max and sum (tests/emit/online_lse_input.ttgir, one row per program) form
// a cycle no reader outside decides. They were left without a role, and emit refused the loop
// ("the loop yields %m_new, which the schedule placed in no role").
#include <gtest/gtest.h>

#include <filesystem>

#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

TEST(ScalarCycle, LoopCarriedScalarsGoToTheConsumer) {
  const fs::path in = fs::path(SCHED2CU_SOURCE_DIR) / "tests/emit/online_lse_input.ttgir";
  const auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  sched::KernelOptions o;
  o.grid = "n_rows,1,1";
  const ttgir::Module m = ttgir::parse_module(read_file(in.string()), "lse.ttgir");
  const auto ks = sched::schedule_kernel(m, "x", t, o);
  const ttgir::Function& f = m.functions.at(0);
  ASSERT_EQ(ks.graph.loops.size(), 1u);
  int consumer = -1;
  for (const auto& r : ks.graph.launch.roles)
    if (r.kind == "consumer") consumer = r.id;
  ASSERT_GE(consumer, 0);
  int maxes = 0;
  for (const auto& n : ks.graph.loops[0].nodes) {
    const std::string& name = f.op(n.op).name;
    if (n.pipeline != "NONE") EXPECT_EQ(n.role, consumer) << "node " << n.id << " (" << name << ")";
    maxes += name == "arith.maxnumf" ? 1 : 0;
  }
  EXPECT_GE(maxes, 1);  // the running max is one of the loop's nodes
}
