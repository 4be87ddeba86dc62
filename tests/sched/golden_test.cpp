// Golden and end-to-end tests of `sched2cu schedule` on the corpus: every examples/*/
// pre_modulo.ttgir reproduces its committed schedule_graph.json byte for byte (run from the
// repository root with the relative path, as `sched2cu regen` does), every loop schedule passes
// the independent validator, and the DDG built from case1's IR has the expected shape.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sched/validate.h"
#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

namespace {

struct InRepo {
  fs::path old = fs::current_path();
  InRepo() { fs::current_path(SCHED2CU_SOURCE_DIR); }
  ~InRepo() { fs::current_path(old); }
};

std::vector<std::string> cases() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(SCHED2CU_SOURCE_DIR) / "examples"))
    if (e.path().filename() == "pre_modulo.ttgir")
      out.push_back(fs::relative(e.path().parent_path(), SCHED2CU_SOURCE_DIR).string());
  std::sort(out.begin(), out.end());
  return out;
}

ddg::TargetModel target() { return ddg::TargetModel::load(ddg::TargetModel::default_path()); }

}  // namespace

TEST(Golden, ScheduleGraphsReproduceByteForByte) {
  InRepo here;
  auto all = cases();
  ASSERT_FALSE(all.empty());
  for (const auto& c : all) {
    SCOPED_TRACE(c);
    const std::string in = c + "/pre_modulo.ttgir";
    const fs::path fixture = fs::path(c) / "schedule_graph.json";
    ASSERT_TRUE(fs::exists(fixture))
        << "no committed " << fixture << " (write it with: sched2cu schedule " << in << " -o "
        << fixture.string() << ")";
    const fs::path tmp =
        fs::temp_directory_path() / ("sched2cu_golden_" + std::to_string(::getpid()) + ".json");
    sched::KernelOptions o;
    sched::schedule_file(in, tmp.string(), o);
    EXPECT_EQ(read_file(tmp), read_file(fixture))
        << fixture << " is stale: regenerate it with sched2cu schedule " << in << " -o "
        << fixture.string();
    fs::remove(tmp);
  }
}

TEST(Golden, EveryLoopScheduleValidates) {
  InRepo here;
  auto t = target();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c);
    auto m = ttgir::parse_file(c + "/pre_modulo.ttgir");
    auto ks = sched::schedule_kernel(m, c, t, {});
    EXPECT_TRUE(sgraph::check(ks.graph).empty());
    const auto& f = m.functions.at(0);
    auto loops = f.for_ops();
    ASSERT_EQ(loops.size(), ks.plans.size());
    // A nested loop is a super-node of its parent, with the latency the graph records.
    std::map<int, int64_t> inner_latency;
    std::map<int, int> loop_index;
    for (size_t k = 0; k < loops.size(); ++k) loop_index[loops[k]] = static_cast<int>(k);
    for (const auto& L : ks.graph.loops)
      for (const auto& n : L.nodes)
        if (n.child_loop >= 0) inner_latency[ks.graph.loops.at(n.child_loop).op] = n.latency;
    for (size_t k = 0; k < loops.size(); ++k) {
      auto b = ddg::build_loop(m, f, loops[k], t, std::max(1, m.num_warps() / 4), inner_latency,
                               loop_index, ks.tc_turns.at(k));
      EXPECT_TRUE(sched::check_schedule(b.g, ks.plans[k].sched).empty());
      EXPECT_GE(ks.plans[k].sched.ii, ks.plans[k].mii.mii);
    }
  }
}

TEST(Ddg, Case1GemmShape) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("examples/case1_simple_gemm/pre_modulo.ttgir");
  const auto& f = m.functions.at(0);
  auto b = ddg::build_loop(m, f, f.for_ops().at(0), t, 2);
  const auto& g = b.g;
  ASSERT_EQ(g.nodes.size(), 5u);  // 2 loads, 2 local_allocs, 1 wgmma; the yield is no node
  EXPECT_EQ(g.nodes[0].name, "tt.descriptor_load");
  EXPECT_EQ(g.nodes[4].name, "ttng.warp_group_dot");
  EXPECT_EQ(g.nodes[4].pipe, ddg::Pipe::TC);
  EXPECT_EQ(g.nodes[4].occupancy, 1030);  // 2*128*256*64 / 4074 (H200-calibrated f16 rate)
  // The accumulator recurrence is a distance-1 self edge weighted by occupancy.
  bool self = false;
  for (const auto& e : g.edges)
    if (e.src == 4 && e.dst == 4) self = e.distance == 1 && e.latency == 1030;
  EXPECT_TRUE(self);
  ASSERT_EQ(g.rings.size(), 2u);
  EXPECT_EQ(g.rings[0].bytes, 128 * 64 * 2);
  EXPECT_EQ(g.rings[1].bytes, 64 * 256 * 2);
  EXPECT_EQ(g.rings[0].group, g.rings[1].group);  // both read by the one wgmma
  EXPECT_EQ(b.facts.tile_rows, 128);
  EXPECT_EQ(b.facts.peak_regs, 128 * 256);  // the f32 accumulator
}

TEST(Kernel, SmemBudgetCutRederivesIi) {
  InRepo here;
  auto t = target();
  t.budgets.smem_bytes_per_block = 2 * 49152 + 1024;  // room for two A+B slots only
  auto m = ttgir::parse_file("examples/case1_simple_gemm/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  const auto& P = ks.plans.at(0);
  EXPECT_TRUE(P.budget_cut);
  EXPECT_EQ(P.rings.at(0).depth, 2);
  EXPECT_EQ(P.sched.ii, 1030);                   // 2 still covers the mean-latency lifetime
  t.budgets.smem_bytes_per_block = 65536 + 512;  // the epilogue staging still fits
  auto one = sched::schedule_kernel(m, "x", t, {});
  EXPECT_EQ(one.plans.at(0).rings.at(0).depth, 1);
  EXPECT_GT(one.plans.at(0).sched.ii, 1030);
}

// The whole C tile (64 KB) does not fit beside case1's 4-deep A+B ring, so the epilogue stages
// through a 2-deep ring of 64-column subtiles beside it (no overlay, no role-wide barrier);
// with room to spare the whole tile is kept. Ring depth is never traded for staging.
TEST(Kernel, EpilogueStagingIsASubtileRingWhenTheTileDoesNotFit) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("examples/case1_simple_gemm/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  EXPECT_EQ(ks.plans.at(0).rings.at(0).depth, 4);
  const sgraph::Buffer* st = nullptr;
  for (const auto& b : ks.graph.buffers)
    if (b.loop == -1) st = &b;
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->shape, (std::vector<int>{128, 64}));
  EXPECT_EQ(st->depth, 2);
  EXPECT_EQ(st->bytes, 16384);
  EXPECT_LE(ks.plans.at(0).ring_bytes + int64_t{st->bytes} * st->depth + 1024,
            t.budgets.smem_bytes_per_block);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());

  t.budgets.smem_bytes_per_block = 1 << 20;  // everything fits: the whole tile, once
  auto big = sched::schedule_kernel(m, "x", t, {});
  for (const auto& b : big.graph.buffers)
    if (b.loop == -1) {
      EXPECT_EQ(b.shape, (std::vector<int>{128, 256}));
      EXPECT_EQ(b.depth, 1);
    }
}

// case2's tile loop stores each 128x256 tile from inside the loop, after the K loop's 4-deep A+B
// ring took 192 KiB: its staging becomes a 2-slot ring of [128, 64] subtiles of the tile loop
// (the whole tile, 64 KiB, fits at no depth). The loop `range(pid, num_tiles, 132)` needs 132
// programs, or num_tiles where that is fewer (nothing outside the loop writes memory, so a program
// past num_tiles would do nothing), and a 1-D grid is not rasterized.
TEST(Kernel, PersistentTileLoopStagesItsStoreInSubtilesAndRunsStepPrograms) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("examples/case2_persistent_gemm/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  ASSERT_EQ(ks.graph.loops.size(), 2u);
  EXPECT_EQ(ks.graph.loops[1].parent_loop, 0);
  EXPECT_EQ(ks.plans.at(1).rings.at(0).depth, 4);  // the K loop's ring is not cut for staging
  const sgraph::Buffer* st = nullptr;
  for (const auto& b : ks.graph.buffers)
    if (b.loop == 0) st = &b;
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(m.functions.at(0).op(st->producer_op).name, "tt.descriptor_store");
  EXPECT_EQ(st->shape, (std::vector<int>{128, 64}));
  EXPECT_EQ(st->depth, 2);
  EXPECT_EQ(st->bytes, 16384);
  EXPECT_EQ(ks.graph.loops[0].rings.at(static_cast<size_t>(st->ring)).depth, 2);
  EXPECT_LE(ks.plans[0].ring_bytes + ks.plans[1].ring_bytes + 1024, t.budgets.smem_bytes_per_block);
  ASSERT_EQ(ks.graph.launch.grid.size(), 3u);
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "min(132, cdiv(M, 128) * cdiv(N, 256))");
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[1]), "1");
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[2]), "1");
  EXPECT_EQ(ks.graph.launch.raster_group, 0);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());

  t.budgets.smem_bytes_per_block = 1 << 20;  // room for everything: the whole tile, once
  auto big = sched::schedule_kernel(m, "x", t, {});
  for (const auto& b : big.graph.buffers)
    if (b.loop == 0) {
      EXPECT_EQ(b.shape, (std::vector<int>{128, 256}));
      EXPECT_EQ(b.depth, 1);
    }
}

namespace {
int op_named(const ttgir::Function& f, const std::string& name, int nth = 0) {
  for (const auto& op : f.ops)
    if (op.name == name && nth-- == 0) return op.id;
  return -1;
}
}  // namespace

// case5's bias tile is a register load: no buffer, the consumer's. Its 64 registers per thread
// fit beside the K loop's 128 accumulator registers (under 3/4 of setmaxnreg_max), so it may
// issue with the K loop's super-node (a prefetch); with a register file that leaves less room it
// is ordered after the super-node, whose result its consumers also read.
TEST(Kernel, RegisterLoadHasNoBufferAndOverlapsTheInnerLoopWhenItFits) {
  InRepo here;
  auto m = ttgir::parse_file("examples/case5_addmm_bias/pre_modulo.ttgir");
  const auto& f = m.functions.at(0);
  const int bias = op_named(f, "tt.descriptor_load", 2);  // A, B, then the bias
  ASSERT_GE(bias, 0);
  EXPECT_TRUE(ddg::is_register_load(m, f, f.op(bias)));
  EXPECT_FALSE(ddg::is_register_load(m, f, f.op(op_named(f, "tt.descriptor_load", 0))));
  for (const int regs : {256, 200}) {
    auto t = target();
    t.budgets.setmaxnreg_max = regs;
    auto ks = sched::schedule_kernel(m, "x", t, {});
    ASSERT_EQ(ks.graph.loops.size(), 2u);
    for (const auto& b : ks.graph.buffers) {
      EXPECT_NE(b.producer_op, bias);
      for (int c : b.consumer_ops) EXPECT_NE(c, bias);
    }
    EXPECT_EQ(ks.graph.loops[0].rings.size(), 1u);   // the C staging only
    EXPECT_EQ(ks.plans.at(1).rings.at(0).depth, 4);  // the K loop's A+B ring keeps its depth
    const auto& L = ks.graph.loops[0];
    const sgraph::Node *load = nullptr, *super = nullptr;
    for (const auto& n : L.nodes) {
      if (n.op == bias) load = &n;
      if (n.child_loop >= 0) super = &n;
    }
    ASSERT_TRUE(load && super);
    EXPECT_EQ(load->pipeline, "CUDA");
    EXPECT_EQ(load->role, 1);  // the consumer, which owns the accumulator
    bool edge = false;
    for (const auto& e : L.edges)
      edge |= e.src == super->id && e.dst == load->id && e.latency == super->latency;
    if (regs == 256) {
      EXPECT_FALSE(edge);
      EXPECT_LE(load->cycle, super->cycle);
    } else {
      EXPECT_TRUE(edge) << "192 live of 200 leaves too little: the load waits for the K loop";
      EXPECT_GE(load->cycle, super->cycle + super->latency);
    }
    EXPECT_TRUE(sgraph::check(ks.graph).empty());
  }
}

// case5's bias tile is read only by the epilogue's add before the C store: it becomes the C
// staging's fill (loaded box by box into the store's slots), wherever the register model puts
// the load (before the K loop, or after it when its registers would not fit), since both places
// are the store's stage. A note says so.
TEST(Kernel, EpilogueOperandBecomesItsStoreStagingsFill) {
  InRepo here;
  auto m = ttgir::parse_file("examples/case5_addmm_bias/pre_modulo.ttgir");
  const auto& f = m.functions.at(0);
  const int bias = op_named(f, "tt.descriptor_load", 2);
  const int store = op_named(f, "tt.descriptor_store", 0);
  ASSERT_GE(bias, 0);
  ASSERT_GE(store, 0);
  for (const int regs : {256, 200}) {
    auto t = target();
    t.budgets.setmaxnreg_max = regs;
    auto ks = sched::schedule_kernel(m, "x", t, {});
    int fills = 0;
    for (const auto& b : ks.graph.buffers) {
      if (b.fill_op < 0) continue;
      ++fills;
      EXPECT_EQ(b.fill_op, bias);
      EXPECT_EQ(b.producer_op, store);
      EXPECT_EQ(b.depth, 2);
    }
    EXPECT_EQ(fills, 1);
    bool noted = false;
    for (const auto& n : ks.notes)
      noted |=
          n.find("op " + std::to_string(bias) + " tt.descriptor_load") == 0 &&
          n.find("box by box into the staging of op " + std::to_string(store)) != std::string::npos;
    EXPECT_TRUE(noted);
    EXPECT_TRUE(sgraph::check(ks.graph).empty());
  }
  // No shared memory left for the fill's barriers: the bias stays a register load.
  auto t = target();
  const auto full = sched::schedule_kernel(m, "x", t, {});
  t.budgets.smem_bytes_per_block =
      full.smem_resident + full.smem_rings + full.smem_staging + 1024;  // nothing spare
  auto ks = sched::schedule_kernel(m, "x", t, {});
  ASSERT_EQ(ks.plans.at(1).rings.at(0).depth, 4);  // the same plan, only no slack
  for (const auto& b : ks.graph.buffers) EXPECT_EQ(b.fill_op, -1);
}

// case8: three top-level K loops (phases) share one ring pool: the footprint is the largest
// phase's rings, not their sum (before, the second loop found 2960 bytes left and scheduling
// failed), and the staging of the three same-shape stores is one region beside it.
TEST(Kernel, SequentialLoopNestsShareOneRingPool) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("examples/case8_multiphase_gemm/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  ASSERT_EQ(ks.graph.loops.size(), 3U);
  EXPECT_EQ(ks.phases, 3);
  int64_t sum = 0, most = 0;
  for (const auto& p : ks.plans) {
    sum += p.ring_bytes;
    most = std::max<int64_t>(most, p.ring_bytes);
  }
  EXPECT_EQ(ks.smem_rings, most);
  EXPECT_LT(ks.smem_rings, sum);
  EXPECT_EQ(ks.smem_staging, 128 * 256 * 2);  // one [128, 256] 16-bit tile for all three stores
  EXPECT_FALSE(ks.smem_overlay);
  EXPECT_LE(ks.smem_resident + ks.smem_rings + ks.smem_staging + 1024,
            t.budgets.smem_bytes_per_block);
  EXPECT_NE(sched::render_report(ks).find("ring pool of 3 phases"), std::string::npos);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());
}

// A persistent attention (tests/harness/gpu_cases/attention_persistent): the outer tile loop loads
// Q and stages O and M per tile, the inner loop streams K and V. Planned innermost first, the
// inner rings took every byte and the outer loop could not get even depth 1 (an error); now the
// outer loop's depth-1 need is reserved and the inner rings are cut to leave it.
TEST(Kernel, InnerLoopLeavesItsOuterLoopsRingsTheirDepthOne) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("tests/harness/gpu_cases/attention_persistent/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  ASSERT_EQ(ks.plans.size(), 2U);
  const auto& outer = ks.plans[0];
  const auto& inner = ks.plans[1];
  ASSERT_EQ(outer.rings.size(), 3U);  // Q, and the staging of the M and O stores
  for (const auto& r : outer.rings) EXPECT_GE(r.depth, 1);
  EXPECT_TRUE(inner.budget_cut);
  EXPECT_EQ(inner.sched.ii, inner.mii.mii);  // the cut costs no II
  EXPECT_LE(ks.smem_resident + ks.smem_rings + ks.smem_staging, t.budgets.smem_bytes_per_block);
  EXPECT_EQ(ks.smem_rings, outer.ring_bytes + inner.ring_bytes);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());
}

// case9: the promotion of each K group reads the MMA's result, so the consumers ping-pong (a GEMM
// whose MMA feeds only the next MMA does not: case2); the per-row and per-block scale loads are
// issued a step ahead of their reader, and the report says both.
TEST(Kernel, BlockwiseScaledGemmPingPongsAndPrefetchesItsScales) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("examples/case9_scaled_mm/blockwise/pre_modulo.ttgir");
  auto ks = sched::schedule_kernel(m, "x", t, {});
  ASSERT_EQ(ks.graph.launch.roles.size(), 2U);
  EXPECT_TRUE(ks.graph.launch.roles[1].pingpong);
  ASSERT_EQ(ks.plans.size(), 2U);
  const auto& k_loop = ks.plans[1];
  EXPECT_EQ(k_loop.prefetched.size(), 2U);  // scale_a's row vector and scale_b's scalar
  const std::string report = sched::render_report(ks);
  EXPECT_NE(report.find("consumers ping-pong: register math on the MMA results of loop 1"),
            std::string::npos);
  EXPECT_NE(report.find("is issued a step ahead of its reader"), std::string::npos);
  auto m2 = ttgir::parse_file("examples/case2_persistent_gemm/pre_modulo.ttgir");
  auto k2 = sched::schedule_kernel(m2, "x", t, {});
  EXPECT_FALSE(k2.graph.launch.roles.back().pingpong);
  for (const auto& p : k2.plans) EXPECT_TRUE(p.prefetched.empty());
}

// At function scope (after the K loop of a one-tile kernel) a register load is no resident
// buffer either: without the rule its 64 KiB would cost the K loop a ring slot.
TEST(Kernel, FunctionScopeRegisterLoadIsNotResident) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("tests/emit/regload_input.ttgir");
  const auto& f = m.functions.at(0);
  const int load = op_named(f, "tt.descriptor_load", 2);
  ASSERT_GE(load, 0);
  auto ks = sched::schedule_kernel(m, "x", t, {});
  for (const auto& b : ks.graph.buffers) EXPECT_NE(b.producer_op, load);
  EXPECT_EQ(ks.plans.at(0).rings.at(0).depth, 4);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());
}

TEST(Kernel, GridAxesAreExpressionsOfKernelParameters) {
  InRepo here;
  auto t = target();
  auto fa =
      sched::schedule_kernel(ttgir::parse_file("examples/case3_FA/pre_modulo.ttgir"), "x", t, {});
  ASSERT_EQ(fa.graph.launch.grid.size(), 3u);
  EXPECT_EQ(sgraph::to_text(fa.graph.launch.grid[0]), "cdiv(N_CTX, 128)");
  EXPECT_EQ(sgraph::to_text(fa.graph.launch.grid[1]),
            "H * Z");  // off_hz indexes Z * H * N_CTX rows
  EXPECT_TRUE(fa.graph.launch.grid[2].is_int(1));
  // K and V are indexed by the head alone, Q by both axes: no operand is x-only, so the launch
  // keeps the x-fastest order; case1's A (x only) and B (y only) are grouped.
  EXPECT_EQ(fa.graph.launch.raster_group, 0);
  auto gemm = sched::schedule_kernel(ttgir::parse_file("tests/emit/case1_input.ttgir"), "x", t, {});
  EXPECT_EQ(sgraph::to_text(gemm.graph.launch.grid[0]), "cdiv(M, 128)");
  EXPECT_EQ(sgraph::to_text(gemm.graph.launch.grid[1]), "cdiv(N, 256)");
  EXPECT_GT(gemm.graph.launch.raster_group, 0);
}

// The persistent grid is clamped to the loop's bound only when every program past it would do
// nothing: a store before case2's tile loop runs in every program, so all 132 are launched.
TEST(Kernel, PersistentGridKeepsItsStepWhenAStoreIsOutsideTheLoop) {
  InRepo here;
  auto t = target();
  std::string text = read_file("examples/case2_persistent_gemm/pre_modulo.ttgir");
  const std::string loop = "    scf.for %tile_id = %start_pid to %num_tiles step %c132_i32";
  const size_t at = text.find(loop);
  ASSERT_NE(at, std::string::npos);
  text.insert(at,
              "    %flag = arith.constant 1.000000e+00 : f16\n"
              "    tt.store %c_ptr, %flag : !tt.ptr<f16>\n");
  auto ks = sched::schedule_kernel(ttgir::parse_module(text, "flag.ttgir"), "x", t, {});
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "132");
}

TEST(Kernel, UnderivableGridAxisNamesTheProgramIdAndTheFlag) {
  InRepo here;
  auto t = target();
  std::string text = read_file("tests/emit/case1_input.ttgir");
  // pid_m scaled by 64 indexes a 128-row box: not `pid * BLOCK`, so x has no derivable extent.
  for (size_t p = 0; (p = text.find("arith.muli %pid_m, %c128_i32", p)) != std::string::npos;)
    text.replace(p, 29, "arith.muli %pid_m, %c64_i32 ");
  auto m = ttgir::parse_module(text, "odd.ttgir");
  try {
    sched::schedule_kernel(m, "x", t, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("odd.ttgir:21:"), std::string::npos) << w;
    EXPECT_NE(w.find("program id axis x"), std::string::npos) << w;
    EXPECT_NE(w.find("--grid"), std::string::npos) << w;
  }
  // With the grid given, the same module schedules.
  sched::KernelOptions o;
  o.grid = "cdiv(M, 64),cdiv(N, 256),1";
  auto ks = sched::schedule_kernel(m, "x", t, o);
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "cdiv(M, 64)");
}

// Split-K (the gpu case splitk_gemm): the K coordinate is `pid_k * 64 + k * 256`, so the
// programs along y share the loop's steps, 256 / 64 = 4 of them. Read as `pid_k * 64` alone it
// gave cdiv(K, 64) programs, each summing slices another program summed too.
TEST(Kernel, SplitKGridIsTheSliceCount) {
  InRepo here;
  auto t = target();
  auto ks = sched::schedule_kernel(
      ttgir::parse_file("tests/harness/gpu_cases/splitk_gemm/pre_modulo.ttgir"), "x", t, {});
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[1]), "4");
  bool noted = false;
  for (const auto& n : ks.notes)
    noted |= n.find("grid y: 4 (the loop moves the coordinate `pid * 64 + k * 256`") != n.npos;
  EXPECT_TRUE(noted);
}

// The tutorial's grouped launch order (pid_m, pid_n from pid by division and remainder): the
// grid is the tile count, found by evaluating the coordinates; a decomposition that misses or
// repeats tiles on some shape is refused as before.
TEST(Kernel, GroupedLaunchOrderGridIsTheTileCount) {
  InRepo here;
  auto t = target();
  const std::string text = read_file("tests/emit/grouped_matmul_input.ttgir");
  auto ks = sched::schedule_kernel(ttgir::parse_module(text, "g.ttgir"), "x", t, {});
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "cdiv(M, 128) * cdiv(N, 256)");
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[1]), "1");
  bool noted = false;
  for (const auto& n : ks.notes) noted |= n.find("decomposes into 2 tile indices") != n.npos;
  EXPECT_TRUE(noted);
  // pid_n divided by the full group size even in the last, shorter group: two programs reach
  // one tile where cdiv(M, 128) is not a multiple of 8.
  std::string bad = text;
  const std::string good_n = "%pid_n = arith.divsi %pid_m, %group_size_m_4";
  ASSERT_NE(bad.find(good_n), std::string::npos);
  bad.replace(bad.find(good_n), good_n.size(), "%pid_n = arith.divsi %pid_m, %c8_i32        ");
  try {
    sched::schedule_kernel(ttgir::parse_module(bad, "bad.ttgir"), "x", t, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot derive the grid extent of program id axis x"),
              std::string::npos)
        << e.what();
  }
}

// The Triton tutorial's matmul loads A and B through pointer tiles into shared memory for the
// MMA and stores C through a masked pointer tile: all three are lifted to tensor maps
// (sched2cu/ttgir/lift.h), said in the notes, and the lifted kernel schedules as a descriptor
// GEMM. It was refused at the first load before lifting (and, before that check, failed in the
// emitter at a blocked layout's make_range).
TEST(Kernel, PointerTileMmaOperandsAreLiftedToTensorMaps) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("tests/emit/ptr_matmul_input.ttgir");
  sched::KernelOptions o;
  o.grid = "cdiv(M, 128) * cdiv(N, 256),1,1";
  const auto ks = sched::schedule_kernel(m, "x", t, o);
  std::string notes;
  for (const auto& n : ks.notes) notes += n + "\n";
  EXPECT_NE(notes.find("ptr_matmul.py:25:20: pointer load lifted to a TMA load of a_ptr"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("ptr_matmul.py:26:20: pointer load lifted to a TMA load of b_ptr"),
            std::string::npos);
  EXPECT_NE(notes.find("pointer store lifted to a TMA store of c_ptr"), std::string::npos);
  // The graph carries the lifted IR: descriptor loads and store, no pointer loads or stores.
  std::map<std::string, int> ops;
  for (const auto& op : ks.graph.ir.functions.at(0).ops) ++ops[op.name];
  EXPECT_EQ(ops["tt.descriptor_load"], 2);
  EXPECT_EQ(ops["tt.descriptor_store"], 1);
  EXPECT_EQ(ops["tt.load"] + ops["tt.store"], 0);
}

// A pointer tile feeding an MMA that cannot be lifted is refused at its load with the reason.
TEST(Kernel, PointerTileMmaOperandThatCannotBeLiftedIsRefusedAtTheLoad) {
  InRepo here;
  auto t = target();
  auto m = ttgir::parse_file("tests/ttgir/lift/rows_unbounded.ttgir");
  try {
    sched::schedule_kernel(m, "x", t, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("rows_unbounded.ttgir:"), std::string::npos) << w;
    EXPECT_NE(w.find("(from rows_unbounded.py:27:20)"), std::string::npos) << w;
    EXPECT_NE(w.find("rows have no bound"), std::string::npos) << w;
    EXPECT_NE(w.find("tl.make_tensor_descriptor"), std::string::npos) << w;
  }
}

// Attention backward: dSᵀ, transposed in registers for dQ's MMA, is exchanged through a ring of
// its own (the tile as the registers hold it, [128, 64] f16) that the consumer role fills for
// itself through a "store" channel (every warp of both warpgroups commits, both release), and the
// consumers stay cooperative; dQ's reduce-add stages through a ring of whole tiles.
TEST(Kernel, TransposedRegisterTileIsExchangedThroughAStoreChannel) {
  InRepo here;
  auto t = target();
  auto ks = sched::schedule_kernel(ttgir::parse_file("examples/case4_FA_bwd/pre_modulo.ttgir"), "x",
                                   t, {});
  const auto& f = ks.graph.ir.function(ks.graph.kernel.name);
  ASSERT_EQ(ks.graph.launch.roles.size(), 2u);
  const auto& consumer = ks.graph.launch.roles.at(1);
  EXPECT_FALSE(consumer.pingpong);
  int exchanges = 0, reduces = 0;
  for (const auto& b : ks.graph.buffers) {
    const auto& op = f.op(b.producer_op);
    if (op.name == "ttg.convert_layout") {
      ++exchanges;
      EXPECT_EQ(b.shape, (std::vector<int>{128, 64}));
      EXPECT_EQ(b.elem, "f16");
      ASSERT_GE(b.loop, 0);
      bool channel = false;
      for (const auto& ch : ks.graph.loops.at(static_cast<size_t>(b.loop)).channels)
        if (ch.ring == b.ring) {
          channel = true;
          EXPECT_EQ(ch.mechanism, "store");
          EXPECT_EQ(ch.producer_role, consumer.id);
          EXPECT_EQ(ch.consumer_role, consumer.id);
          EXPECT_EQ(ch.full_arrivals, 8);
          EXPECT_EQ(ch.empty_arrivals, 8);
          EXPECT_EQ(ch.expect_bytes, 0);
        }
      EXPECT_TRUE(channel);
      ASSERT_EQ(b.consumer_ops.size(), 1u);
      EXPECT_EQ(f.op(b.consumer_ops[0]).name, "ttng.warp_group_dot");
    }
    if (op.name == "tt.descriptor_reduce") {
      ++reduces;
      EXPECT_EQ(b.shape, (std::vector<int>{64, 64}));
      EXPECT_GE(b.depth, 2);
    }
  }
  EXPECT_EQ(exchanges, 1);
  EXPECT_EQ(reduces, 1);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());
}

// With 128-row Q tiles, P and dS are 128 columns wide (#mma, instrShape N 128) and feed 64-wide
// MMAs as dot operands of #mma1 (N 64): the same warps and registers, a free view. Only dSᵀ,
// transposed for dQ, is exchanged through shared memory.
TEST(Kernel, AccumulatorLayoutsDifferingInInstrNAreAFreeView) {
  InRepo here;
  auto t = target();
  auto ks =
      sched::schedule_kernel(ttgir::parse_file("tests/emit/fa_bwd_m128_input.ttgir"), "x", t, {});
  const auto& f = ks.graph.ir.function(ks.graph.kernel.name);
  int exchanges = 0;
  for (const auto& b : ks.graph.buffers)
    if (f.op(b.producer_op).name == "ttg.convert_layout") {
      ++exchanges;
      const auto* src = f.def_op(f.op(b.producer_op).operands.at(0));
      ASSERT_NE(src, nullptr);
      EXPECT_EQ(src->name, "tt.trans");
    }
  EXPECT_EQ(exchanges, 1);
  EXPECT_TRUE(sgraph::check(ks.graph).empty());
}
