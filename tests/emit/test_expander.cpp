// Tests of the per-role modulo expander (docs/emitter.md, "Modulo expander") on a 2-stage loop
// with two MMAs per iteration: attention forward (case3's TTGIR scheduled with 2-deep rings into
// tests/emit/attention.schedule_graph.json). A golden of the whole kernel, plus the properties the
// expansion must have whatever the printing: the prologue issues only stage 0 (S = QK^T), the
// drain only stage 1 (O += PV), the steady state keeps PV(i-1) in flight while the softmax of
// iteration i reads S(i) (wgmma_wait<1>), waits for every group before P is rewritten
// (wgmma_wait<0>), releases each ring slot after the wait that covers its reader, and the
// ping-pong turns are balanced.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
const fs::path kSrc = SCHED2CU_SOURCE_DIR;

std::string emit_attention() {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/attention.schedule_graph.json");
  sched2cu::emit::Options o;
  o.graph_path = "attention.schedule_graph.json";
  return sched2cu::emit::emit_cuda(g, o);
}

size_t count(const std::string& s, const std::string& what, size_t from = 0,
             size_t to = std::string::npos) {
  size_t n = 0;
  for (size_t p = s.find(what, from); p != std::string::npos && p < to; p = s.find(what, p + 1))
    ++n;
  return n;
}

// The text of the block that starts at the first line containing `head`.
std::string section(const std::string& s, const std::string& head) {
  const size_t a = s.find(head);
  if (a == std::string::npos) return "";
  const size_t line = s.rfind('\n', a) + 1;
  const size_t indent = s.find_first_not_of(' ', line) - line;
  const std::string close = "\n" + std::string(indent, ' ') + "}";
  return s.substr(a, s.find(close, a) - a);
}

TEST(Expander, TwoStageTwoMmaGolden) {
  const std::string out = emit_attention();
  const fs::path golden = kSrc / "tests/emit/attention.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, out);
  EXPECT_EQ(out, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
}

TEST(Expander, PrologueSteadyStateAndDrainOfTheConsumer) {
  const std::string out = emit_attention();
  const size_t consumer = out.find("setmaxnreg_inc<");
  ASSERT_NE(consumer, std::string::npos);
  const std::string c = out.substr(consumer);
  const std::string pro = section(c, "prologue step 0");
  const std::string steady = section(c, "steady state: step k runs stage s");
  const std::string drain = section(c, "drain step 0");
  ASSERT_FALSE(pro.empty());
  ASSERT_FALSE(steady.empty());
  ASSERT_FALSE(drain.empty());
  // Stage 0 (S = QK^T, SS) in the prologue, stage 1 (O += PV, RS) in the drain, both in between.
  EXPECT_EQ(count(pro, "wgmma_ss<"), 1u);
  EXPECT_EQ(count(pro, "wgmma_rs<"), 0u);
  EXPECT_EQ(count(drain, "wgmma_ss<"), 0u);
  EXPECT_EQ(count(drain, "wgmma_rs<"), 1u);
  EXPECT_EQ(count(steady, "wgmma_ss<"), 1u);
  EXPECT_EQ(count(steady, "wgmma_rs<"), 1u);
  // Steady state: S(i) issued before PV(i-1); the row max of S(i) waits with PV(i-1) still in
  // flight; P is rewritten only after every group finished.
  const size_t ss = steady.find("wgmma_ss<"), rs = steady.find("wgmma_rs<");
  const size_t w1 = steady.find("wgmma_wait<1>();"), reduce = steady.find("acc_row_reduce(");
  const size_t w0 = steady.find("wgmma_wait<0>();"), trunc = steady.find("tile_map_packed<");
  EXPECT_LT(ss, rs);
  EXPECT_LT(rs, w1);
  EXPECT_LT(w1, reduce);
  EXPECT_LT(reduce, w0);
  EXPECT_LT(w0, trunc);
  // The prologue has no MMA in flight behind S(0): it waits for everything.
  EXPECT_NE(pro.find("wgmma_wait<0>();"), std::string::npos);
  EXPECT_EQ(pro.find("wgmma_wait<1>();"), std::string::npos);
  // Ring slots: K released after the wait that covers S, V after the one that covers PV; each
  // iteration's slot counter is the iteration's (stage 1 runs iteration k - 1).
  const size_t rel_k = steady.find("ring0_0->release(it0 + (k0));");
  const size_t rel_v = steady.find("ring0_1->release(it0 + (k0 - 1));");
  ASSERT_NE(rel_k, std::string::npos);
  ASSERT_NE(rel_v, std::string::npos);
  EXPECT_LT(w1, rel_k);
  EXPECT_LT(w0, rel_v);
  EXPECT_NE(steady.find("ring0_1->wait_full(it0 + (k0 - 1));"), std::string::npos);
  // The P fragments PV(i-1) reads (issued from the carried copy) are fenced after the wait.
  EXPECT_NE(steady.find("packed_to_a(a_, acc_28_68_c1"), std::string::npos);
  EXPECT_NE(steady.find("wgmma_fence_operand(acc_28_68_c1);", w0), std::string::npos);
}

TEST(Expander, PingPongTurnsAreBalanced) {
  const std::string out = emit_attention();
  const size_t consumer = out.find("setmaxnreg_inc<");
  const std::string c = out.substr(consumer);
  // One turn per step that issues MMAs: sync before its first, arrive after its last.
  for (const char* head :
       {"prologue step 0", "steady state: step k runs stage s", "drain step 0"}) {
    const std::string s = section(c, head);
    SCOPED_TRACE(head);
    EXPECT_EQ(count(s, "named_bar_sync(5 + slice, 256);"), 1u);
    EXPECT_EQ(count(s, "named_bar_arrive(5 + (slice + 1) % 2, 256);"), 1u);
    EXPECT_LT(s.find("named_bar_sync(5 + slice"), s.find("wgmma_fence();"));
    EXPECT_GT(s.find("named_bar_arrive("), s.rfind("wgmma_commit();"));
  }
  // The first warpgroup takes the first turn; the last hand-over is absorbed before exit.
  EXPECT_NE(c.find("if (slice == 0) named_bar_arrive(5, 256);"), std::string::npos);
  EXPECT_NE(c.find("if (slice == 0) named_bar_sync(5, 256);"), std::string::npos);
}

}  // namespace
