// The stage cap (--max-stages, docs/scheduler.md "Stage cap") on real kernels: a loop whose trip
// count is a run-time value is planned again with its long latencies shortened until it has at
// most the cap's stages, the schedule graph records the latencies it was planned on (and
// validates), the note says what was given up; loops with constant trip counts and loops already
// within the cap are left as they were.
#include <gtest/gtest.h>

#include <filesystem>

#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

namespace {

sched::KernelSchedule schedule(const std::string& rel, int max_stages) {
  const auto m = ttgir::parse_file((fs::path(SCHED2CU_SOURCE_DIR) / rel).string());
  sched::KernelOptions o;
  // With the idle producer warpgroup kept: without it (the default for these pointer-load
  // kernels) the loops are capped at one stage unless --max-stages says otherwise.
  o.loads = sched::LoadMode::Tma;
  o.sched.max_stages = max_stages;
  return sched::schedule_kernel(m, "x", ddg::TargetModel::load(ddg::TargetModel::default_path()),
                                o);
}

int notes_with(const sched::KernelSchedule& ks, const std::string& what) {
  int n = 0;
  for (const auto& s : ks.notes) n += s.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST(StageCap, RunTimeTripLoopsTakeAtMostTheCap) {
  const std::string rms = "tests/harness/gpu_cases/rmsnorm/pre_modulo.ttgir";
  const auto free = schedule(rms, 0);
  ASSERT_EQ(free.graph.loops.size(), 3u);
  EXPECT_EQ(free.graph.loops[1].stages, 10);  // the squared-sum loop: a 600-cycle load, II 72
  EXPECT_EQ(free.graph.loops[2].stages, 5);
  EXPECT_EQ(notes_with(free, "capped"), 0);
  for (int cap : {3, 5}) {
    const auto c = schedule(rms, cap);
    EXPECT_NO_THROW(sgraph::validate(c.graph, "x"));
    for (size_t k = 0; k < c.graph.loops.size(); ++k) {
      EXPECT_LE(c.graph.loops[k].stages, cap) << "loop " << k;
      // The inner loops keep their II (the same resources); the row loop's is their latency.
      if (k > 0) {
        EXPECT_EQ(c.graph.loops[k].ii, free.graph.loops[k].ii) << "loop " << k;
      }
    }
    // Loop 1 always over the cap; loop 2 (5 stages) only under 3.
    EXPECT_EQ(notes_with(c, "capped at " + std::to_string(cap)), cap == 3 ? 2 : 1);
    // The graph records the shortened latencies: no edge of loop 1 is longer than the cap's
    // stages of II (a latency past that cannot fit them).
    int64_t longest = 0;
    for (const auto& e : c.graph.loops[1].edges) longest = std::max<int64_t>(longest, e.latency);
    EXPECT_LE(longest, int64_t{cap} * c.graph.loops[1].ii);
  }
}

TEST(StageCap, ConstantTripLoopsAreLeftAlone) {
  // The same kernel with its row length a constexpr: trip counts 4, the same 10 and 5 stages.
  const std::string in = "tests/sched/rmsnorm_const_input.ttgir";
  const auto free = schedule(in, 0), c = schedule(in, 3);
  ASSERT_EQ(c.graph.loops.size(), free.graph.loops.size());
  for (size_t k = 0; k < c.graph.loops.size(); ++k)
    EXPECT_EQ(c.graph.loops[k].stages, free.graph.loops[k].stages) << "loop " << k;
  EXPECT_EQ(c.graph.loops[1].stages, 10);
  EXPECT_EQ(notes_with(c, "capped"), 0);
}

TEST(StageCap, ACapOfOneRunsEachIterationInOneStage) {
  // A cap of 1 used to be silently ignored (the search stopped below one II): 10 stages stayed.
  const auto c = schedule("tests/harness/gpu_cases/rmsnorm/pre_modulo.ttgir", 1);
  EXPECT_NO_THROW(sgraph::validate(c.graph, "x"));
  for (size_t k = 1; k < c.graph.loops.size(); ++k)
    EXPECT_EQ(c.graph.loops[k].stages, 1) << "loop " << k;
  EXPECT_EQ(notes_with(c, "capped at 1"), 2);
}
