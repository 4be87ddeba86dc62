// Tests of split loops (sched/split.h) on the corpus: which loop the scheduler lets the CTAs of
// a cluster share, and the reason it gives when it refuses one. The decision is read from the
// schedule graph and the notes, as `sched2cu schedule` reports them.
#include <gtest/gtest.h>

#include <filesystem>

#include "sched2cu/sched/kernel.h"
#include "sched2cu/sched/split.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

namespace {

struct Scheduled {
  sched::KernelSchedule ks;
  std::string notes;
};

Scheduled schedule(const std::string& c, bool split = true) {
  const fs::path p = fs::path(SCHED2CU_SOURCE_DIR) / "examples" / c / "pre_modulo.ttgir";
  auto m = ttgir::parse_file(p.string());
  auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  sched::KernelOptions o;
  o.split = split;
  Scheduled s{sched::schedule_kernel(m, c, t, o), ""};
  for (const auto& n : s.ks.notes) s.notes += n + "\n";
  return s;
}

std::vector<int> split_loops(const sgraph::ScheduleGraph& g) {
  std::vector<int> out;
  for (size_t i = 0; i < g.loops.size(); ++i)
    if (g.loops[i].split != 1) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace

// wgrad's K loop (loop 1, inside the persistent tile loop) sums into a zero-initialized f32
// accumulator and writes nothing: it is the one split loop, at the largest cluster.
TEST(Split, WgradKLoopIsSplit) {
  auto s = schedule("case7_wgrad_bias");
  EXPECT_EQ(split_loops(s.ks.graph), std::vector<int>{1});
  EXPECT_EQ(s.ks.graph.loops.at(1).split, sched::kMaxSplit);
  EXPECT_TRUE(sgraph::check(s.ks.graph).empty());
  EXPECT_NE(s.notes.find("loop 1: may be split over a cluster of up to 4 CTAs"), std::string::npos)
      << s.notes;
}

TEST(Split, NoSplitOptionLeavesEveryLoopWhole) {
  auto s = schedule("case7_wgrad_bias", false);
  EXPECT_TRUE(split_loops(s.ks.graph).empty());
  EXPECT_EQ(s.notes.find("split over a cluster"), std::string::npos) << s.notes;
}

// Attention's running max starts at -inf and its accumulator is rescaled every iteration: the
// parts of the loop do not add up to the whole.
TEST(Split, AttentionIsNotASum) {
  auto s = schedule("case3_FA");
  EXPECT_TRUE(split_loops(s.ks.graph).empty());
  EXPECT_NE(s.notes.find("loop 0: not split over a cluster (iter_arg 0 does not start at zero)"),
            std::string::npos)
      << s.notes;
}

// Attention backward accumulates dQ into global memory inside the loop.
TEST(Split, ALoopThatWritesMemoryIsNotSplit) {
  auto s = schedule("case4_FA_bwd");
  EXPECT_TRUE(split_loops(s.ks.graph).empty());
  EXPECT_NE(s.notes.find("tt.descriptor_reduce writes memory in every iteration"),
            std::string::npos)
      << s.notes;
}

// Three GEMM phases: splitting one would leave every CTA of the cluster repeating the others.
TEST(Split, OneOfSeveralTensorCoreLoopsIsNotSplit) {
  auto s = schedule("case8_multiphase_gemm");
  EXPECT_TRUE(split_loops(s.ks.graph).empty());
  EXPECT_NE(s.notes.find("has tensor-core work every CTA would repeat"), std::string::npos)
      << s.notes;
}
