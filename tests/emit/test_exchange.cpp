// Emitter tests of what attention backward (case4) brought: accumulator tiles split over the
// warpgroups along their columns, the register exchange of a transposed tile through a ring slot
// the role fills for itself (docs/emitter.md, "Register exchange"), and the TMA reduce-add of a
// tile every iteration through a ring of whole-tile staging ("Whole-tile ring inside a loop"):
// the value model, the order of the exchange's protocol in the emitted kernel, and the located
// errors for what they do not cover.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph_fixture.h"
#include "lower.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::emit;
using sched2cu::Error;
const fs::path kGraph = fs::path(SCHED2CU_SOURCE_DIR) / "examples/case4_FA_bwd/schedule_graph.json";

struct Fixture : sched2cu::testing::GraphFixture {
  Fixture() : GraphFixture(kGraph) {}
};

std::string emit_graph(const sched2cu::sgraph::ScheduleGraph& g) {
  Options o;
  o.graph_path = "case4.json";
  return emit_cuda(g, o);
}

std::string emit_error(const sched2cu::sgraph::ScheduleGraph& g) {
  try {
    emit_graph(g);
  } catch (const Error& e) {
    return e.what();
  }
  return "(emitted)";
}

TEST(ValueModel, ColumnSplitAccumulator) {
  Fixture x;
  const sched2cu::sgraph::Role& consumer = x.g.launch.roles.at(1);
  ASSERT_EQ(consumer.split_parts, 2);
  Lower L(x.c, consumer);
  // dQ's tile: #mma warpsPerCTA [4, 2], 64 x 64: each warpgroup all 64 rows, 32 columns.
  const int dq = x.value("dq_32");
  const Val v = L.from_type(dq, x.op_of(dq));
  EXPECT_EQ(v.lay, Lay::Acc);
  EXPECT_EQ(v.rows, 64);
  EXPECT_EQ(v.cols, 32);
  EXPECT_EQ(v.col_parts, 2);
  EXPECT_EQ(L.ctype(v, x.op_of(dq)), "AccTile<64, 32>");
  // S's tile: #mma1 warpsPerCTA [8, 1], 128 x 64: the rows split.
  const int s = x.value("qkT_15");
  const Val vs = L.from_type(s, x.op_of(s));
  EXPECT_EQ(vs.rows, 64);
  EXPECT_EQ(vs.cols, 64);
  EXPECT_EQ(vs.col_parts, 1);
  // One warpgroup cannot hold a tile split over two along its columns.
  sched2cu::sgraph::Role one = consumer;
  one.split_dim = -1;
  one.split_parts = 1;
  one.warpgroups = {1};
  Lower L1(x.c, one);
  try {
    L1.from_type(dq, x.op_of(dq));
    FAIL() << "a column split over 2 warpgroups was accepted in a role of one";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a cooperative role of as many warpgroups"),
              std::string::npos)
        << e.what();
  }
}

// In the emitted steady state each warpgroup waits for the exchange slot, writes its rows,
// fences them for the async proxy and commits, before any warpgroup's dQ MMA waits for the slot
// and reads it transposed (MN-major A), N = 32 per warpgroup; its release follows the MMA's wait.
TEST(EmitExchange, SlotWrittenFencedCommittedThenReadTransposed) {
  Fixture x;
  const std::string cu = emit_graph(x.g);
  const size_t steady = cu.find("steady state");
  ASSERT_NE(steady, std::string::npos);
  auto at = [&](const std::string& s) {
    const size_t p = cu.find(s, steady);
    EXPECT_NE(p, std::string::npos) << s;
    return p;
  };
  const size_t empty = at("ring0_2->wait_empty("), store = at("packed_store_smem<128, 128>(");
  const size_t fence = cu.find("fence_proxy_async();", store);
  const size_t commit = at("ring0_2->commit("), full = at("ring0_2->wait_full(");
  const size_t mma = at("wgmma_ss<32, __half, __half, Major::MN, Major::MN>(");
  const size_t release = at("ring0_2->release(");
  EXPECT_LT(empty, store);
  EXPECT_LT(store, fence);
  EXPECT_LT(fence, commit);
  EXPECT_LT(commit, full);
  EXPECT_LT(full, mma);
  EXPECT_LT(mma, release);
  // Each warpgroup reduce-adds its own 32 columns of dQ from its own part of the slot.
  EXPECT_NE(cu.find("tma_reduce_add_2d(&map_dq_desc_24, stage + ch * 8192u, c0_i32_16 + slice * "
                    "32 + 32 * ch,"),
            std::string::npos);
}

TEST(EmitErrors, ReduceKindOtherThanAddIsRefused) {
  Fixture x;
  auto& f = x.g.ir.functions.at(0);
  int red = -1;
  for (auto& o : f.ops)
    if (o.name == "tt.descriptor_reduce") red = o.id;
  ASSERT_GE(red, 0);
  bool set = false;
  for (auto& [k, a] : f.ops[static_cast<size_t>(red)].attrs)
    if (k == "_pos0") {
      a.text = "max";
      set = true;
    }
  ASSERT_TRUE(set);
  const std::string m = emit_error(x.g);
  EXPECT_NE(m.find("descriptor_reduce max is not implemented"), std::string::npos) << m;
  EXPECT_NE(m.find("kernel.py:"), std::string::npos) << m;
}

// The exchange's ring must be filled by the role itself through a "store" channel; a graph whose
// channel says TMA is refused at the convert, with its location.
TEST(EmitErrors, ExchangeWithoutItsStoreChannel) {
  Fixture x;
  bool changed = false;
  for (auto& ch : x.g.loops.at(0).channels)
    if (ch.mechanism == "store") {
      ch.producer_role = 0;  // the producer warpgroup (4 warps) would fill it
      ch.full_arrivals = 4;
      changed = true;
    }
  ASSERT_TRUE(changed);
  const std::string m = emit_error(x.g);
  EXPECT_NE(m.find("ttg.convert_layout"), std::string::npos) << m;
  EXPECT_NE(m.find("store\" channel"), std::string::npos) << m;
}

}  // namespace
