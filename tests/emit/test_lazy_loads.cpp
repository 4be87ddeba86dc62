// Emitter tests of the read-at-use vector loads (src/emit/lazy_loads.cpp, docs/emitter.md,
// "Vectors read where they are used"): which loads the planner lets the emitter read at their
// uses instead of holding in registers, and what the emitted kernel then does. The variants
// edit case4's committed TTGIR (a store through M, a mask on the M load) and schedule it again,
// so each differs from a lazy case in exactly the property under test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "graph_fixture.h"
#include "lower.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/ttgir/parser.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu;
using namespace sched2cu::emit;

const fs::path kDir = fs::path(SCHED2CU_SOURCE_DIR) / "examples/case4_FA_bwd";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// case4's TTGIR with `from` replaced by `to` (which must occur once), scheduled.
sgraph::ScheduleGraph schedule_edited(const std::string& from, const std::string& to) {
  std::string text = read(kDir / "pre_modulo.ttgir");
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const fs::path old = fs::current_path();
  fs::current_path(SCHED2CU_SOURCE_DIR);  // the target model's default path is repo-relative
  auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  auto ks = sched::schedule_kernel(ttgir::parse_module(text, "edited.ttgir"), "edited", t, {});
  fs::current_path(old);
  return ks.graph;
}

// The load ops the planner makes lazy, by the name of the value each defines.
std::set<std::string> lazy_names(const sgraph::ScheduleGraph& g) {
  const ttgir::Function& f = g.ir.function(g.kernel.name);
  Ctx c(g, g.ir, f);
  plan_lazy_loads(c);
  std::set<std::string> out;
  for (int op : c.lazy_loads) out.insert(f.value(f.op(op).results.at(0)).name);
  return out;
}

const char* kMLoad =
    "%m_14 = tt.load %m_13 : tensor<64x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #mma1}>> "
    "loc(#loc87)";

TEST(LazyLoads, AttentionBackwardRowsOfMAndDiAreReadWhereUsed) {
  sched2cu::testing::GraphFixture x(kDir / "schedule_graph.json");
  plan_lazy_loads(x.c);
  std::set<int> want = {x.op_of(x.value("m_14")), x.op_of(x.value("di_24"))};
  EXPECT_EQ(x.c.lazy_loads, want);
  // Only the loads read the pointer vectors and the offsets: none of them is computed.
  for (const char* v : {"offs_m", "offs_m_9", "m_13", "di_23"})
    EXPECT_EQ(x.c.folded_ops.count(x.op_of(x.value(v))), 1U) << v;
  // The splats stay: their scalars are the address's terms.
  EXPECT_EQ(x.c.folded_ops.count(x.op_of(x.value("m_5"))), 0U);

  Options o;
  o.graph_path = "case4.json";
  const std::string cu = emit_cuda(x.g, o);
  EXPECT_EQ(cu.find("bload<"), std::string::npos);
  EXPECT_EQ(cu.find("brange("), std::string::npos);
  EXPECT_NE(cu.find("const float* m_14_"), std::string::npos);
  EXPECT_NE(cu.find("prefetch_l1(m_14_"), std::string::npos);
  EXPECT_NE(cu.find("mcol_bcast_at<"), std::string::npos);
  EXPECT_EQ(cu.find("mcol_bcast(m_14"), std::string::npos);
}

TEST(LazyLoads, AVectorOfAnArgumentTheKernelWritesIsLoadedWhereScheduled) {
  // A store through M's pointers right after the load: reading M later could see the store.
  const std::string store =
      std::string(kMLoad) +
      "\n      tt.store %m_13, %m_14 : tensor<64x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = "
      "#mma1}>> loc(#loc87)";
  EXPECT_EQ(lazy_names(schedule_edited(kMLoad, store)), std::set<std::string>{"di_24"});
}

TEST(LazyLoads, AMaskedVectorLoadIsLoadedWhereScheduled) {
  const std::string masked =
      "%mk = arith.cmpi slt, %offs_m_9, %offs_m_8 : tensor<64xi32, #ttg.slice<{dim = 0, parent "
      "= #mma1}>> loc(#loc87)\n      %m_14 = tt.load %m_13, %mk : tensor<64x!tt.ptr<f32>, "
      "#ttg.slice<{dim = 0, parent = #mma1}>> loc(#loc87)";
  EXPECT_EQ(lazy_names(schedule_edited(kMLoad, masked)), std::set<std::string>{"di_24"});
}

TEST(LazyLoads, AVectorOfAnArgumentWrittenThroughADescriptorIsLoadedWhereScheduled) {
  // Δ's row read from DQ instead, which dq_desc's reduce-add writes every iteration.
  const auto g = schedule_edited("%di = tt.addptr %Di, %off", "%di = tt.addptr %DQ, %off");
  EXPECT_EQ(lazy_names(g), std::set<std::string>{"m_14"});
}

}  // namespace
