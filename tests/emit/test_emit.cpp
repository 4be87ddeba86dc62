// Emitter tests: the hand-written case1 fixture is current, `emit` reproduces the golden
// generated.cu byte for byte (tests/emit and every committed examples/**/generated.cu), emission
// is deterministic, and unsupported constructs fail with the op and its TTGIR line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "case1_fixture.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
using sched2cu::Error;
const fs::path kSrc = SCHED2CU_SOURCE_DIR;
const fs::path kFixture = kSrc / "tests/emit/case1_handwritten.schedule_graph.json";
const fs::path kGolden = kSrc / "tests/emit/case1_handwritten.generated.cu";

bool update_golden() { return std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr; }

sched2cu::sgraph::ScheduleGraph fixture() {
  return sched2cu::sgraph::read_schedule_graph(kFixture);
}

std::string emit(const sched2cu::sgraph::ScheduleGraph& g, const std::string& label) {
  sched2cu::emit::Options o;
  o.graph_path = label;
  return sched2cu::emit::emit_cuda(g, o);
}

TEST(EmitFixture, HandwrittenCase1GraphIsCurrent) {
  auto g = sched2cu::testing::case1_handwritten_graph(
      (kSrc / "tests/emit/case1_input.ttgir").string(), "tests/emit/case1_input.ttgir");
  std::string text = sched2cu::sgraph::to_json_text(g);
  if (update_golden()) sched2cu::write_file_atomic(kFixture, text);
  EXPECT_EQ(text, sched2cu::read_file(kFixture)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
}

TEST(EmitGolden, Case1HandwrittenGraph) {
  std::string out = emit(fixture(), "tests/emit/case1_handwritten.schedule_graph.json");
  if (update_golden()) sched2cu::write_file_atomic(kGolden, out);
  EXPECT_EQ(out, sched2cu::read_file(kGolden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
}

// A nested persistent loop (outer tile loop, inner K loop as a super-node, epilogue inside the
// outer loop). Input: tests/emit/persistent_input.ttgir (hand-written TTGIR) scheduled once by
// `sched2cu schedule` into tests/emit/persistent.schedule_graph.json (a fixed emitter input).
TEST(EmitGolden, PersistentNestedLoops) {
  auto g =
      sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/persistent.schedule_graph.json");
  std::string out = emit(g, "persistent.schedule_graph.json");
  fs::path golden = kSrc / "tests/emit/persistent.generated.cu";
  if (update_golden()) sched2cu::write_file_atomic(golden, out);
  EXPECT_EQ(out, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  // The inner loop's ring counter is declared once, before the tile loop, and advanced by each
  // run of the inner loop: ring phases continue across tiles.
  const size_t decl = out.find("uint32_t it1 = 0;"), tile_loop = out.find("for (int k0 = 0;");
  ASSERT_NE(decl, std::string::npos);
  ASSERT_NE(tile_loop, std::string::npos);
  EXPECT_LT(decl, tile_loop);
  EXPECT_NE(out.find("it1 += T1;", tile_loop), std::string::npos);
}

// Subtile staging ring (docs/emitter.md): the case1 C store through a 2-deep ring of [128, 64]
// slots beside the rings, box j in slot j % 2 after the store of box j - 2 has read it; nothing
// overlays the rings, so no role-wide barrier.
TEST(EmitStaging, SubtileRingAtFunctionScope) {
  auto g = fixture();
  ASSERT_EQ(g.buffers[2].loop, -1);
  std::string whole = emit(g, "x.json");
  EXPECT_NE(whole.find("named_bar_sync("), std::string::npos);  // 64 KB only fits overlaid
  g.buffers[2].shape = {128, 64};
  g.buffers[2].bytes = 128 * 64 * 2;
  g.buffers[2].depth = 2;
  std::string out = emit(g, "x.json");
  EXPECT_EQ(out.find("named_bar_sync("), std::string::npos);
  EXPECT_NE(out.find("tma_wait_read<1>();"), std::string::npos);
  EXPECT_NE(out.find("stage + (ch % 2) * 16384u"), std::string::npos);
  EXPECT_NE(out.find("+ slice * 8192u;"), std::string::npos);  // warpgroup k's box in a slot
  g.buffers[2].shape = {128, 128};  // neither the tile nor one TMA box wide
  g.buffers[2].bytes = 128 * 128 * 2;
  EXPECT_THROW(emit(g, "x.json"), Error);
}

// Inside a persistent loop the previous tile's stores may still read any slot: box 0 waits for
// all of them, later boxes only for the store two boxes back.
TEST(EmitStaging, SubtileRingInsideALoopWaitsForThePreviousIteration) {
  auto g =
      sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/persistent.schedule_graph.json");
  ASSERT_EQ(g.buffers[0].loop, 0);
  g.buffers[0].shape = {128, 64};
  g.buffers[0].bytes = 128 * 64 * 2;
  g.buffers[0].depth = 2;
  g.loops[0].rings[0].depth = 2;
  std::string out = emit(g, "x.json");
  EXPECT_NE(out.find("if (ch == 0) tma_wait_read<0>(); else tma_wait_read<1>();"),
            std::string::npos);
}

// Persistent attention (tests/harness/gpu_cases/attention_persistent): the inner loop's row sum l
// is read by the epilogue inside the outer tile loop, so it is reduced every iteration instead
// of deferred as per-lane partials (a deferred sum's one reduction would have to run inside a
// scheduled loop: emit failed with an internal error); the M row store inside the tile loop
// waits for the previous tile's store to read its staging before rewriting it (emit refused
// row-vector stores in loops).
TEST(EmitNested, SumReadInTheOuterLoopIsNotDeferredAndRowStoresWaitForTheLastTile) {
  auto g = sched2cu::sgraph::read_schedule_graph(
      kSrc / "tests/harness/gpu_cases/attention_persistent/schedule_graph.json");
  std::string out = emit(g, "x.json");
  EXPECT_EQ(out.find("row_fill_quad_sum"), std::string::npos);
  EXPECT_EQ(out.find("acc_row_partial"), std::string::npos);
  EXPECT_EQ(out.find("row_quad_reduce"), std::string::npos);
  const size_t row_store = out.find("row_store_smem(");
  ASSERT_NE(row_store, std::string::npos);
  const size_t wait =
      out.rfind("tma_wait_read<0>();  // previous stores have read the staging", row_store);
  ASSERT_NE(wait, std::string::npos);
  EXPECT_LT(out.find("for (int k0 = 1; k0 < T0; ++k0)"), wait);  // inside the tile loop
}

// A causal mask (tests/harness/gpu_cases/attention_causal): `offs_m[:, None] >= offs_n[None, :]`
// is an i1 tile of the accumulator layout that no register holds; the select that applies it
// reads the row and column indices at each element and writes the scores in place (emit failed
// before: "slice layout tensor<128x128xi1, #mma> has no blocked lowering").
TEST(EmitMask, CausalMaskIsEvaluatedInsideTheSelect) {
  auto g = sched2cu::sgraph::read_schedule_graph(
      kSrc / "tests/harness/gpu_cases/attention_causal/schedule_graph.json");
  std::string out = emit(g, "x.json");
  EXPECT_EQ(out.find("BTile<bool"), std::string::npos);  // no mask tile in registers
  const size_t sel = out.find("tile_gen(");
  ASSERT_NE(sel, std::string::npos);
  const std::string line = out.substr(sel, out.find('\n', sel) - sel);
  EXPECT_NE(line.find("mrow_val("), std::string::npos) << line;
  EXPECT_NE(line.find("mcol_val("), std::string::npos) << line;
  EXPECT_NE(line.find(">="), std::string::npos) << line;
  // In place: the select's result is the scores' own variable.
  const std::string dst = line.substr(9, line.find(',') - 9);
  EXPECT_NE(line.find("tile(" + dst + ").at(s, i)"), std::string::npos) << line;
}

// An epilogue's two selects (tests/harness/gpu_cases/gemm_masked_epilogue): x > 0 compares the
// accumulator tile itself; the bounds mask compares row and column indices as [N, 1] and [1, M]
// i1 tiles, broadcast and combined (emit failed on the [N, 1] compare: it is no register tile).
TEST(EmitMask, EpilogueSelectsOnTheTileAndOnBroadcastBounds) {
  auto g = sched2cu::sgraph::read_schedule_graph(
      kSrc / "tests/harness/gpu_cases/gemm_masked_epilogue/schedule_graph.json");
  std::string out = emit(g, "x.json");
  EXPECT_EQ(out.find("BTile<bool"), std::string::npos);  // the bias mask is a vector (BCol)
  const size_t first = out.find("tile_gen(");
  ASSERT_NE(first, std::string::npos);
  const size_t second = out.find("tile_gen(", first + 1);
  ASSERT_NE(second, std::string::npos);
  const std::string a = out.substr(first, out.find('\n', first) - first);
  const std::string b = out.substr(second, out.find('\n', second) - second);
  EXPECT_NE(a.find(".at(s, i) > 0"), std::string::npos) << a;
  EXPECT_NE(b.find("mrow_val("), std::string::npos) << b;
  EXPECT_NE(b.find("< M)"), std::string::npos) << b;
  EXPECT_NE(b.find("mcol_val("), std::string::npos) << b;
  EXPECT_NE(b.find("< N)"), std::string::npos) << b;
}

// The output is a function of the graph alone: `sched2cu emit` run in two processes from two
// working directories, with a relative and an absolute graph path, gives the bytes the library
// gives in this process.
TEST(EmitGolden, DeterministicAcrossProcessesAndPaths) {
#ifndef SCHED2CU_CLI
  GTEST_SKIP() << "the sched2cu CLI is not built";
#else
  const fs::path dir = fs::temp_directory_path() / ("emit_det_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  fs::copy_file(kFixture, dir / "g.json", fs::copy_options::overwrite_existing);
  const std::string cli = SCHED2CU_CLI;
  const std::string a = "cd " + dir.string() + " && " + cli + " emit g.json -o a.cu";
  const std::string b = "cd " + (dir / "sub").string() + " && " + cli + " emit " +
                        (dir / "g.json").string() + " -o ../b.cu";
  ASSERT_EQ(std::system(a.c_str()), 0);
  ASSERT_EQ(std::system(b.c_str()), 0);
  const std::string in_process = emit(fixture(), "elsewhere.json");
  EXPECT_EQ(sched2cu::read_file(dir / "a.cu"), in_process);
  EXPECT_EQ(sched2cu::read_file(dir / "b.cu"), in_process);
  fs::remove_all(dir);
#endif
}

// The committed corpus fixtures (written by `sched2cu schedule` and `sched2cu emit`): emitting each
// committed graph must reproduce the committed generated.cu exactly. case1 (one tile per program,
// subtile staging at function scope) must be there; case2 (a persistent tile loop around the K
// loop, its store staged in a subtile ring of the tile loop) is checked once committed.
TEST(EmitGolden, ExamplesReproduceTheirGeneratedCu) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::recursive_directory_iterator(kSrc / "examples"))
    if (e.path().filename() == "generated.cu" &&
        fs::exists(e.path().parent_path() / "schedule_graph.json"))
      dirs.push_back(e.path().parent_path());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_NE(std::find(dirs.begin(), dirs.end(), kSrc / "examples/case1_simple_gemm"), dirs.end());
  for (const auto& dir : dirs) {
    SCOPED_TRACE(dir.string());
    auto g = sched2cu::sgraph::read_schedule_graph(dir / "schedule_graph.json");
    EXPECT_EQ(emit(g, (dir / "schedule_graph.json").string()),
              sched2cu::read_file(dir / "generated.cu"))
        << "stale " << (dir / "generated.cu") << ": regenerate with sched2cu regen";
  }
}

TEST(EmitErrors, UnsupportedOpNamesOpAndLine) {
  auto g = fixture();
  auto& f = g.ir.functions.at(0);
  int dot = -1;
  for (auto& o : f.ops)
    if (o.name == "ttng.warp_group_dot") dot = o.id;
  ASSERT_GE(dot, 0);
  // An op the front end takes (so the graph is valid) but the emitter has no lowering for.
  f.ops[static_cast<size_t>(dot)].name = "tt.dot";
  try {
    emit(g, "g.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("op " + std::to_string(dot) + " 'tt.dot'"), std::string::npos) << m;
    EXPECT_NE(m.find("tests/emit/case1_input.ttgir:"), std::string::npos) << m;
    EXPECT_NE(m.find("from kernel.py:"), std::string::npos) << m;
  }
}

// Every op without a lowering is named at once, each with its TTGIR and Python lines (emit
// stopped at the first, so a user fixed them one run at a time).
TEST(EmitErrors, EveryOpWithoutALoweringIsListed) {
  auto g = fixture();
  auto& f = g.ir.functions.at(0);
  std::vector<int> renamed;
  for (auto& o : f.ops)
    if (o.name == "arith.muli" && renamed.size() < 2) {
      o.name = renamed.empty() ? "tt.precise_divf" : "tt.precise_sqrt";
      renamed.push_back(o.id);
    }
  ASSERT_EQ(renamed.size(), 2U);
  const auto missing = sched2cu::emit::unsupported_ops(g.ir, g.kernel.name);
  ASSERT_EQ(missing.size(), 2U);
  EXPECT_NE(missing[1].what.find("'tt.precise_sqrt' (from kernel.py:"), std::string::npos);
  try {
    emit(g, "g.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("op " + std::to_string(renamed[0]) + " 'tt.precise_divf'"), std::string::npos)
        << m;
    EXPECT_NE(m.find("1 more op(s) without a lowering:\ntests/emit/case1_input.ttgir:"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("op " + std::to_string(renamed[1]) + " 'tt.precise_sqrt' (from kernel.py:"),
              std::string::npos)
        << m;
  }
}

// docs/supported_ops.md is the op table's, regenerated, never edited by hand.
TEST(SupportedOps, DocIsCurrent) {
  const fs::path doc = kSrc / "docs/supported_ops.md";
  const std::string text = sched2cu::emit::supported_ops_markdown();
  if (update_golden()) sched2cu::write_file_atomic(doc, text);
  EXPECT_EQ(text, sched2cu::read_file(doc)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_NE(text.find("- `ttng.warp_group_dot`"), std::string::npos);
  EXPECT_NE(text.find("`arith.shrui`"), std::string::npos);  // unsigned ops, for tl.rand
  EXPECT_NE(text.find("`tt.mulhiui`"), std::string::npos);
  EXPECT_EQ(text.find("`tt.dot_scaled`"), std::string::npos);  // not lowered
}

// A TMA box larger than its slot (a graph buffer shrunk with its shape, bytes and channel kept
// consistent, so the graph validates) would write past the slot: refused with the load's
// location (it compiled, and arm() expected fewer bytes than the copies deliver).
TEST(EmitErrors, TmaBoxLargerThanItsSlotIsRefused) {
  auto g = fixture();
  bool shrunk = false;
  for (auto& b : g.buffers)
    if (b.loop >= 0 && !shrunk) {
      b.shape[0] /= 2;
      b.bytes /= 2;
      for (auto& ch : g.loops.at(static_cast<size_t>(b.loop)).channels)
        if (ch.ring == b.ring) ch.expect_bytes -= b.bytes;
      shrunk = true;
    }
  ASSERT_TRUE(shrunk);
  try {
    emit(g, "g.json");
    FAIL() << "a slot smaller than its TMA box was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the TMA box (16384 B) differs from buffer"), std::string::npos) << m;
    EXPECT_NE(m.find("tests/emit/case1_input.ttgir:"), std::string::npos) << m;
  }
}

TEST(EmitErrors, MissingStagingBuffer) {
  auto g = fixture();
  g.buffers.pop_back();  // the epilogue staging buffer
  try {
    emit(g, "g.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("staging buffer"), std::string::npos) << e.what();
  }
}

TEST(EmitErrors, InvalidGraphIsRejectedBeforeLowering) {
  auto g = fixture();
  g.loops[0].ii = 512;  // breaks the accumulator recurrence (latency 1024, distance 1)
  try {
    emit(g, "g.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/loops/0/edges/4: dependence violated"),
              std::string::npos)
        << e.what();
  }
}

TEST(EmitErrors, SharedMemoryOverBudget) {
  auto g = fixture();
  g.target.smem_bytes = 197000;  // rings fit (validator), rings + barriers + slack do not
  try {
    emit(g, "g.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shared memory plan needs"), std::string::npos)
        << e.what();
  }
}

}  // namespace
