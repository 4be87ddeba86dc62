// Emitter tests of the read-at-use vector loads (src/emit/lazy_loads.cpp, docs/emitter.md,
// "Vectors read where they are used"): which loads the planner lets the emitter read at their
// uses instead of holding in registers, and what the emitted kernel then does. case4's loop
// fits its registers and keeps both vectors there; attention backward at 128-row Q tiles does
// not, and its variants (a store through M, a mask on the M load, Δ read from the reduce-added
// DQ) each differ from it in exactly the property under test.
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

const fs::path kSrc = fs::path(SCHED2CU_SOURCE_DIR);
const fs::path kCase4 = kSrc / "examples/case4_FA_bwd";
// Attention backward at 128-row Q tiles: two [128, 64] f32 tiles more than case4 (Sᵀ and dPᵀ
// twice as wide), whose register tensors do not fit 240 registers beside M and Δ.
const fs::path kM128 = kSrc / "tests/emit/fa_bwd_m128_input.ttgir";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The 128-row TTGIR with `from` replaced by `to` (which must occur once; nothing when empty),
// scheduled.
sgraph::ScheduleGraph schedule_edited(const std::string& from, const std::string& to) {
  std::string text = read(kM128);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (!from.empty()) {
    EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  }
  if (at != std::string::npos && !from.empty()) text.replace(at, from.size(), to);
  const fs::path old = fs::current_path();
  fs::current_path(SCHED2CU_SOURCE_DIR);  // the target model's default path is repo-relative
  auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  auto ks = sched::schedule_kernel(ttgir::parse_module(text, "edited.ttgir"), "edited", t, {});
  fs::current_path(old);
  return ks.graph;
}

// The load ops the planner reads through their affine addresses, by the name of the value each
// defines: read at use (lazy), or, with `held`, loaded into registers (affine, bload_at). Both
// read through the non-coherent path, so neither may be a load of memory the kernel writes.
std::set<std::string> lazy_names(const sgraph::ScheduleGraph& g, bool held = false) {
  const ttgir::Function& f = g.ir.function(g.kernel.name);
  Ctx c(g, g.ir, f);
  plan_lazy_loads(c);
  std::set<std::string> out;
  for (int op : held ? c.affine_loads : c.lazy_loads)
    out.insert(f.value(f.op(op).results.at(0)).name);
  return out;
}

// Only the loads read M's and Δ's pointer vectors and offsets: none of them is computed. The
// splats stay: their scalars are the address's terms.
void expect_pointer_chains_folded(const sched2cu::testing::GraphFixture& x) {
  for (const char* v : {"offs_m", "offs_m_9", "m_13", "di_23"})
    EXPECT_EQ(x.c.folded_ops.count(x.op_of(x.value(v))), 1U) << v;
  EXPECT_EQ(x.c.folded_ops.count(x.op_of(x.value("m_5"))), 0U);
}

const char* kMLoad =
    "%m_14 = tt.load %m_13 : tensor<128x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #mma}>> "
    "loc(#loc88)";

TEST(LazyLoads, VectorsStayInRegistersWhereTheLoopsTensorsFitBesideThem) {
  // case4 (64-row Q tiles): Sᵀ, dPᵀ, dK, dV and dQ fit the consumers' 240 registers with M and Δ.
  // They are loaded where scheduled, from their affine addresses, with no pointer vectors.
  sched2cu::testing::GraphFixture x(kCase4 / "schedule_graph.json");
  plan_lazy_loads(x.c);
  EXPECT_TRUE(x.c.lazy_loads.empty());
  const std::set<int> want = {x.op_of(x.value("m_14")), x.op_of(x.value("di_24"))};
  EXPECT_EQ(x.c.affine_loads, want);
  expect_pointer_chains_folded(x);
  Options o;
  o.graph_path = "case4.json";
  const std::string cu = emit_cuda(x.g, o);
  EXPECT_EQ(cu.find("bload<"), std::string::npos);
  EXPECT_EQ(cu.find("brange("), std::string::npos);
  EXPECT_NE(cu.find("bload_at(m_14_"), std::string::npos);
  EXPECT_NE(cu.find("mcol_bcast(m_14_"), std::string::npos);
  EXPECT_EQ(cu.find("prefetch_l1("), std::string::npos);
}

TEST(LazyLoads, RowsOfMAndDiAreReadWhereUsedWhenTheyWouldNotFit) {
  sched2cu::testing::GraphFixture x(schedule_edited("", ""));
  plan_lazy_loads(x.c);
  const std::set<int> want = {x.op_of(x.value("m_14")), x.op_of(x.value("di_24"))};
  EXPECT_EQ(x.c.lazy_loads, want);
  expect_pointer_chains_folded(x);

  Options o;
  o.graph_path = "m128.json";
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
      "\n      tt.store %m_13, %m_14 : tensor<128x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = "
      "#mma}>> loc(#loc88)";
  const auto g = schedule_edited(kMLoad, store);
  EXPECT_EQ(lazy_names(g), std::set<std::string>{"di_24"});
  EXPECT_TRUE(lazy_names(g, true).empty());
}

TEST(LazyLoads, AMaskedVectorLoadIsLoadedWhereScheduled) {
  const std::string masked =
      "%mk = arith.cmpi slt, %offs_m_9, %offs_m_8 : tensor<128xi32, #ttg.slice<{dim = 0, parent "
      "= #mma}>> loc(#loc88)\n      %m_14 = tt.load %m_13, %mk : tensor<128x!tt.ptr<f32>, "
      "#ttg.slice<{dim = 0, parent = #mma}>> loc(#loc88)";
  const auto g = schedule_edited(kMLoad, masked);
  EXPECT_EQ(lazy_names(g), std::set<std::string>{"di_24"});
  EXPECT_TRUE(lazy_names(g, true).empty());
}

TEST(LazyLoads, AVectorOfAnArgumentWrittenThroughADescriptorIsLoadedWhereScheduled) {
  // Δ's row read from DQ instead, which dq_desc's reduce-add writes every iteration.
  const auto g = schedule_edited("%di = tt.addptr %Di, %off", "%di = tt.addptr %DQ, %off");
  EXPECT_EQ(lazy_names(g), std::set<std::string>{"m_14"});
  EXPECT_TRUE(lazy_names(g, true).empty());
}

}  // namespace
