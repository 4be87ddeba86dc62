// Tests of the per-role modulo expander (docs/emitter.md, "Modulo expander") on a 2-stage loop
// with two MMAs per iteration: attention forward (case3's TTGIR scheduled with 2-deep rings into
// tests/emit/attention.schedule_graph.json). A golden of the whole kernel, plus the properties the
// expansion must have whatever the printing: the steady state starts at the full drain that
// precedes rewriting P (its loop back edge keeps ptxas from hoisting that wait above the softmax;
// the window's rotation makes the role 3 stages deep), issues S(i) = QK^T before O += PV(i-1),
// keeps PV(i-1) in flight while the softmax of iteration i reads S(i) (wgmma_wait<1>), releases
// each ring slot after the wait that covers its reader; the prologue and drain hold the partial
// stages; trip counts too small for the pipeline take the reference order; ping-pong turns are
// balanced.
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
  const std::string pro0 = section(c, "prologue step 0"), pro1 = section(c, "prologue step 1");
  const std::string steady = section(c, "steady state: step k runs stage s");
  const std::string drain0 = section(c, "drain step 0"), drain1 = section(c, "drain step 1");
  const std::string ref = section(c, "one iteration at a time");
  for (const auto* s : {&pro0, &pro1, &steady, &drain0, &drain1, &ref}) ASSERT_FALSE(s->empty());
  EXPECT_NE(c.find("if (T0 >= 2) {"), std::string::npos);  // 3 stages: the pipeline needs 2
  // Which MMAs each step issues: S (SS) of iterations 0, 1, ...; PV (RS) one iteration behind.
  EXPECT_EQ(count(pro0, "wgmma_ss<"), 1u);
  EXPECT_EQ(count(pro0, "wgmma_rs<"), 0u);
  EXPECT_EQ(count(pro1, "wgmma_ss<"), 1u);
  EXPECT_EQ(count(pro1, "wgmma_rs<"), 1u);
  EXPECT_EQ(count(steady, "wgmma_ss<"), 1u);
  EXPECT_EQ(count(steady, "wgmma_rs<"), 1u);
  EXPECT_EQ(count(drain0, "wgmma_ss<"), 0u);
  EXPECT_EQ(count(drain0, "wgmma_rs<"), 1u);
  EXPECT_EQ(count(drain1, "wgmma_"),
            count(drain1, "wgmma_wait<") + count(drain1, "wgmma_fence_operand"));
  // Steady state, in order: the full drain first (PV(i-2) done), V(i-2)'s slot released, P(i-1)
  // converted (before S(i), which overwrites the registers P lives in), S(i) issued, O rescaled
  // while S(i) runs (math feeding only an MMA sinks to it), PV(i-1) issued, then the softmax of
  // S(i) with PV(i-1) in flight.
  EXPECT_EQ(steady.find("wgmma_wait<"), steady.find("wgmma_wait<0>();"));
  const size_t w0 = steady.find("wgmma_wait<0>();");
  const size_t rel_v = steady.find("ring0_1->release(it0 + (k0 - 2));");
  const size_t trunc = steady.find("tile_map_packed<"), ss = steady.find("wgmma_ss<");
  const size_t rs = steady.find("wgmma_rs<"), w1 = steady.find("wgmma_wait<1>();");
  const size_t reduce = steady.find("acc_row_reduce("),
               rel_k = steady.find("ring0_0->release(it0 + (k0));");
  for (size_t x : {w0, rel_v, trunc, ss, rs, w1, reduce, rel_k}) ASSERT_NE(x, std::string::npos);
  EXPECT_LT(w0, rel_v);
  EXPECT_LT(rel_v, trunc);
  EXPECT_LT(trunc, ss);
  const size_t rescale = steady.find("row_bcast(alpha_");
  ASSERT_NE(rescale, std::string::npos);
  EXPECT_LT(ss, rescale);
  EXPECT_LT(rescale, rs);
  EXPECT_LT(rs, w1);
  EXPECT_LT(w1, reduce);
  EXPECT_LT(w1, rel_k);
  EXPECT_EQ(count(steady, "wgmma_wait<0>();"), 1u);  // nothing waits for PV(i-1) in this step
  EXPECT_NE(steady.find("ring0_1->wait_full(it0 + (k0 - 1));"), std::string::npos);
  // The prologue's S(0) has nothing behind it: it waits for everything.
  EXPECT_NE(pro0.find("wgmma_wait<0>();"), std::string::npos);
  // The row sum is carried as quad partials (reduced once after the loop); the row max is not.
  EXPECT_EQ(count(steady, "acc_row_partial("), 1u);
  EXPECT_EQ(count(steady, "acc_row_reduce("), 1u);
  EXPECT_EQ(count(c, "row_quad_reduce("), 2u);  // after the loop, in both zero-trip branches
  EXPECT_NE(c.find("row_fill_quad_sum("), std::string::npos);
  // The softmax chain qk -> qk * scale -> - m -> exp2 runs in the registers S(i) was written to.
  for (const char* p : {"p_18_52;", "p_21_55;", "p_22_56;"})
    EXPECT_EQ(c.find(std::string("AccTile<64, 128> ") + p), std::string::npos) << p;
  // P(i-1) is read (converted for PV) from S's registers before S(i) is issued into them, so it
  // needs no carried copy; neither do the row vectors read before their step redefines them.
  EXPECT_EQ(c.find("p_22_56_c1"), std::string::npos);
  EXPECT_EQ(c.find("alpha_23_58_c1"), std::string::npos);
  EXPECT_LT(
      steady.find("tile_map_packed<__nv_bfloat16>(acc_28_68, [](float x0) { return x0; }, "
                  "tile(qk_14_45));"),
      steady.find("wgmma_ss<128, __nv_bfloat16, __nv_bfloat16, Major::K, Major::K>(qk_14_45"));
  EXPECT_EQ(count(steady, "tile_map(qk_"), 3u);
  // The reference order waits for each group before the math that reads it.
  EXPECT_EQ(count(ref, "wgmma_wait<1>();"), 0u);
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

TEST(TileStorage, AnInnerLoopsResultKeepsItsOwnVariable) {
  // case5's bias add, as a whole tile (the bias in registers: no staging fill), reads the K
  // loop's accumulator (an inner loop's result, which already prints as the loop's variable): it
  // is not written in place, and it still compiles.
  const fs::path graph =
      fs::path(SCHED2CU_SOURCE_DIR) / "examples/case5_addmm_bias/schedule_graph.json";
  auto g = sched2cu::sgraph::read_schedule_graph(graph);
  g.buffers.at(0).fill_op = -1;
  const std::string out = sched2cu::emit::emit_cuda(g, {});
  EXPECT_NE(out.find("AccTile<64, 256> acc_13_54;"), std::string::npos);
  EXPECT_NE(out.find("tile_map(acc_13_54, "), std::string::npos);
}

TEST(StagingOverlay, RoleSyncsOnlyWhereAnotherWarpgroupMayStillRead) {
  auto emit_case = [](const char* rel) {
    const auto g = sched2cu::sgraph::read_schedule_graph(fs::path(SCHED2CU_SOURCE_DIR) / rel);
    return sched2cu::emit::emit_cuda(g, {});
  };
  // case3: O's staging overlays Q, whose rows the two consumer warpgroups split; each box holds
  // both warpgroups' rows (warpgroup k's at k * 8 KB), so each rewrites only its own Q rows and
  // synchronizes only itself. M's 512 B staging fits beside the rings and overlays nothing.
  const std::string fa = emit_case("examples/case3_FA/schedule_graph.json");
  EXPECT_EQ(fa.find("role-wide: every warpgroup is done"), std::string::npos);
  EXPECT_NE(
      fa.find("warpgroup_sync(1 + wg);  // the staging overlays only this warpgroup's own rows"),
      std::string::npos);
  EXPECT_NE(fa.find("uint8_t* const stage = buf2 + slice * 8192u;"), std::string::npos);
  EXPECT_NE(fa.find("tma_store_2d(&map_o_desc_24, stage + ch * 16384u,"), std::string::npos);
  EXPECT_NE(fa.find("uint8_t* const buf1 = smem + 229376;"), std::string::npos);
  // case1's hand-written schedule: the staging overlays a ring slot, which the other
  // warpgroup's last MMAs may still read: the whole role synchronizes first.
  const std::string g1 = emit_case("tests/emit/case1_handwritten.schedule_graph.json");
  EXPECT_NE(g1.find("named_bar_sync(4, 256);  // role-wide: every warpgroup is done"),
            std::string::npos);
}

TEST(StagingOverlay, AFilledStagingThatDoesNotFitIsAnError) {
  // gemm_residual's residual tile is TMA-loaded into its store's staging during the K loop; on a
  // target with 32 KB less shared memory that staging could only overlay the rings the loop is
  // still using: refused, nothing emitted.
  auto g = sched2cu::sgraph::read_schedule_graph(
      fs::path(SCHED2CU_SOURCE_DIR) / "tests/harness/gpu_cases/gemm_residual/schedule_graph.json");
  ASSERT_EQ(g.buffers.at(0).fill_op, 19);
  g.target.smem_bytes -= 32768;
  try {
    sched2cu::emit::emit_cuda(g, {});
    FAIL() << "emitted";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("staging buffer 0 is filled during the loops but does "
                                         "not fit beside the rings"),
              std::string::npos)
        << e.what();
  }
}
