// The load-path choice (sched/load_path.h) on real kernels: which descriptor loads may skip
// shared memory, the schedule each path gives (a producer and rings, or plain loads in a
// consumer-only kernel), the predicted rates the choice compares, and the refusals.
#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sched/load_path.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

namespace {

ddg::TargetModel target() { return ddg::TargetModel::load(ddg::TargetModel::default_path()); }

ttgir::Module example(const std::string& rel) {
  return ttgir::parse_file((fs::path(SCHED2CU_SOURCE_DIR) / rel).string());
}

sched::KernelSchedule schedule(const ttgir::Module& m, sched::LoadMode mode) {
  sched::KernelOptions o;
  o.loads = mode;
  return sched::schedule_kernel(m, "x", target(), o);
}

int descriptor_load(const ttgir::Function& f) {
  for (const auto& op : f.ops)
    if (op.name == "tt.descriptor_load") return op.id;
  return -1;
}

bool has_note(const sched::KernelSchedule& ks, const std::string& what) {
  for (const auto& n : ks.notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(LoadPath, CandidatesAreRegisterOnlyTileLoadsInLoops) {
  const auto ln = example("examples/case6_layernorm/pre_modulo.ttgir");
  const auto c = sched::load_candidates(ln, ln.functions.at(0));
  EXPECT_EQ(c.ops, (std::set<int>{descriptor_load(ln.functions.at(0))}));
  EXPECT_EQ(c.needs_tma, ttgir::kNoId);
  EXPECT_FALSE(c.tensor_core);
  // A GEMM's tiles feed MMAs through shared memory: no candidate, TMA needed.
  const auto gemm = example("examples/case1_simple_gemm/pre_modulo.ttgir");
  const auto g = sched::load_candidates(gemm, gemm.functions.at(0));
  EXPECT_TRUE(g.ops.empty());
  EXPECT_NE(g.needs_tma, ttgir::kNoId);
  EXPECT_TRUE(g.tensor_core);
}

TEST(LoadPath, PlainLoadsGiveAConsumerOnlyKernelWithoutLoadRings) {
  const auto m = example("examples/case6_layernorm/pre_modulo.ttgir");
  const auto& f = m.functions.at(0);
  const int load = descriptor_load(f);
  const auto ks = schedule(m, sched::LoadMode::Global);
  const auto& g = ks.graph;
  EXPECT_EQ(g.launch.load_path, "global");
  ASSERT_EQ(g.launch.roles.size(), 1u);
  EXPECT_EQ(g.launch.roles[0].kind, "consumer");
  EXPECT_EQ(g.launch.roles[0].warpgroups, std::vector<int>{0});
  EXPECT_EQ(g.launch.warpgroups, 1);
  for (const auto& b : g.buffers) EXPECT_NE(b.producer_op, load);  // only the y staging
  for (const auto& L : g.loops) {
    EXPECT_TRUE(L.channels.empty());
    for (const auto& n : L.nodes) {
      EXPECT_TRUE(n.role == 0 || n.role == -1);
      if (n.op == load) {
        EXPECT_EQ(n.pipeline, "CUDA");
      }
    }
  }
  EXPECT_TRUE(ddg::is_register_load(m, f, f.op(load), {load}));
  EXPECT_FALSE(ddg::is_register_load(m, f, f.op(load)));
  EXPECT_NO_THROW(sgraph::validate(g, "x"));
  EXPECT_TRUE(has_note(ks, "plain global loads in the consumer warpgroups (--loads)"));
}

TEST(LoadPath, TmaKeepsTheProducerAndItsRing) {
  const auto m = example("examples/case6_layernorm/pre_modulo.ttgir");
  const auto ks = schedule(m, sched::LoadMode::Tma);
  EXPECT_EQ(ks.graph.launch.load_path, "tma");
  ASSERT_EQ(ks.graph.launch.roles.size(), 2u);
  EXPECT_EQ(ks.graph.launch.roles[0].kind, "producer");
  ASSERT_EQ(ks.graph.loops.size(), 1u);
  EXPECT_EQ(ks.graph.loops[0].channels.size(), 1u);
  EXPECT_EQ(ks.graph.loops[0].channels[0].consumer_role, 1);
}

// The automatic choice compares the two schedules' predicted rates and says so; whichever it
// takes, its graph is one of the two forced ones.
TEST(LoadPath, AutoReportsBothRatesAndTakesTheFasterSchedule) {
  const auto m = example("examples/case6_layernorm/pre_modulo.ttgir");
  const auto a = schedule(m, sched::LoadMode::Auto);
  ASSERT_FALSE(a.graph.launch.load_path.empty());
  EXPECT_TRUE(has_note(a, "predicted plain loads"));
  EXPECT_TRUE(has_note(a, "; TMA "));
  const auto forced = schedule(
      m, a.graph.launch.load_path == "tma" ? sched::LoadMode::Tma : sched::LoadMode::Global);
  EXPECT_EQ(forced.graph.launch.roles.size(), a.graph.launch.roles.size());
  EXPECT_EQ(forced.graph.launch.ctas_per_sm, a.graph.launch.ctas_per_sm);
  EXPECT_EQ(forced.graph.buffers.size(), a.graph.buffers.size());
}

TEST(LoadPath, PredictedRateIsBoundedByHbmAndBytesInFlight) {
  const auto m = example("examples/case6_layernorm/pre_modulo.ttgir");
  const auto t = target();
  const auto tma = schedule(m, sched::LoadMode::Tma);
  const sched::LoadRate r = sched::predict_load_rate(tma.graph, 0, t, 8192);
  EXPECT_LE(r.bytes_per_clk, t.budgets.hbm_bytes_per_clk_sm + 1e-9);
  EXPECT_GT(r.bytes_per_clk, 0);
  // Half the HBM rate as the ceiling: the bound moves to it.
  auto half = t;
  half.budgets.hbm_bytes_per_clk_sm = t.budgets.hbm_bytes_per_clk_sm / 2;
  const sched::LoadRate h = sched::predict_load_rate(tma.graph, 0, half, 8192);
  EXPECT_EQ(h.bound, "HBM");
  EXPECT_DOUBLE_EQ(h.bytes_per_clk, half.budgets.hbm_bytes_per_clk_sm);
  // One CTA and one slot: Little's law over the loaded latency is the bound.
  auto g = tma.graph;
  g.launch.ctas_per_sm = 1;
  for (auto& b : g.buffers)
    if (b.loop == 0) b.depth = 1;
  const sched::LoadRate one = sched::predict_load_rate(g, 0, t, 8192);
  EXPECT_EQ(one.bound, "bytes in flight");
  EXPECT_LT(one.bytes_per_clk, r.bytes_per_clk);
}

// A pointer-load kernel has nothing for a producer warpgroup to do: by default it has none, and
// its loops with run-time trip counts run one stage (occupancy hides the loads' latency, see
// docs/scheduler.md "Pointer-load kernels"); --loads tma keeps the idle producer, --max-stages
// still sets the stages. Before 2026-12-07 the idle producer was the default, at 4 CTAs per SM.
TEST(LoadPath, PointerLoadKernelsHaveNoProducerAndOneStageLoops) {
  const auto m = example("tests/harness/gpu_cases/row_softmax/pre_modulo.ttgir");
  for (auto mode : {sched::LoadMode::Auto, sched::LoadMode::Global}) {
    const auto g = schedule(m, mode);
    ASSERT_EQ(g.graph.launch.roles.size(), 1u);
    EXPECT_EQ(g.graph.launch.roles[0].kind, "consumer");
    EXPECT_EQ(g.graph.launch.warpgroups, 1);
    EXPECT_EQ(g.graph.launch.load_path, "global");
    ASSERT_EQ(g.graph.loops.size(), 3u);
    EXPECT_EQ(g.graph.loops[1].stages, 1);  // the two chunk loops (n_cols is a run-time value)
    EXPECT_EQ(g.graph.loops[2].stages, 1);
    // The row loop runs its two passes over the same row back to back (it was two stages: pass
    // 1 of row k beside pass 2 of row k - 1, when only the longest inner loop bounded its II).
    const auto& rows = g.graph.loops[0];
    EXPECT_EQ(rows.stages, 1);
    int64_t inner = 0;
    for (const auto& n : rows.nodes)
      if (n.child_loop >= 0) inner += n.latency;
    EXPECT_GE(rows.ii, inner);
    for (const auto& L : g.graph.loops)
      for (const auto& n : L.nodes) EXPECT_TRUE(n.role == 0 || n.role == -1);
    EXPECT_NO_THROW(sgraph::validate(g.graph, "x"));
    EXPECT_TRUE(has_note(g, "no producer warpgroup (pointer loads only"));
    // No setmaxnreg in a one-role kernel: the report calls its registers the launch cap.
    const std::string report = sched::render_report(g);
    EXPECT_EQ(report.find("setmaxnreg"), std::string::npos) << report;
    EXPECT_NE(report.find("consumer warpgroups 0..0  launch cap"), std::string::npos) << report;
    // Without setmaxnreg the launch bounds cap the registers at 65536 / (CTAs x threads), at
    // least the estimate (the emitter's launch then takes every CTA the compiled kernel allows).
    const int k = g.graph.launch.ctas_per_sm;
    EXPECT_GE(k, 4);
    EXPECT_EQ(g.graph.launch.roles[0].regs, 65536 / (k * 128) / 8 * 8);
    EXPECT_GE(g.graph.launch.roles[0].regs, g.partition.roles.at(0).est_regs);
  }
  const auto t = schedule(m, sched::LoadMode::Tma);
  ASSERT_EQ(t.graph.launch.roles.size(), 2u);
  EXPECT_EQ(t.graph.launch.roles[0].kind, "producer");
  EXPECT_GT(t.graph.loops[1].stages, 1);  // no cap asked: the pipeline as modelled
  sched::KernelOptions two;
  two.sched.max_stages = 2;
  const auto s2 = sched::schedule_kernel(m, "x", target(), two);
  EXPECT_EQ(s2.graph.launch.roles.size(), 1u);
  EXPECT_EQ(s2.graph.loops[2].stages, 2);
}

// A pointer-load kernel whose programs update shared addresses by atomics (col_atomic) keeps at
// most 4 CTAs per SM (the launcher caps its occupancy grid there: BlockedEmit tests): at the
// occupancy grid's 12 CTAs it ran 48 GB/s on an H100, at 4 59 (2026-12-08).
TEST(LoadPath, AtomicKernelsKeepFewCtasPerSm) {
  const auto a = schedule(example("tests/harness/gpu_cases/col_atomic/pre_modulo.ttgir"),
                          sched::LoadMode::Auto);
  EXPECT_EQ(a.graph.launch.ctas_per_sm, 4);
  EXPECT_TRUE(has_note(a, "at most 4: its atomics contend at shared addresses"));
  const auto r = schedule(example("tests/harness/gpu_cases/row_softmax/pre_modulo.ttgir"),
                          sched::LoadMode::Auto);
  EXPECT_GT(r.graph.launch.ctas_per_sm, 4);
}

TEST(LoadPath, RefusalsNameTheReason) {
  EXPECT_THROW(sched::parse_load_mode("smem"), Error);
  const auto gemm = example("examples/case1_simple_gemm/pre_modulo.ttgir");
  try {
    (void)schedule(gemm, sched::LoadMode::Global);
    FAIL() << "a GEMM cannot drop its TMA loads";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--loads global"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("needs TMA into shared memory"), std::string::npos)
        << e.what();
  }
}

namespace {

// `golden` is what `sched2cu schedule <in> --loads <mode> -o <golden>` writes from the repository
// root, byte for byte.
void expect_reproduces(const std::string& in, sched::LoadMode mode, const char* flag,
                       const std::string& golden) {
  const fs::path old = fs::current_path();
  fs::current_path(SCHED2CU_SOURCE_DIR);
  const fs::path tmp = fs::temp_directory_path() / ("sched2cu_loads_" + std::to_string(::getpid()) +
                                                    "_" + fs::path(golden).filename().string());
  sched::KernelOptions o;
  o.loads = mode;
  sched::schedule_file(in, tmp.string(), o);
  EXPECT_EQ(read_file(tmp), read_file(golden))
      << "regenerate with: sched2cu schedule " << in << " --loads " << flag << " -o " << golden;
  fs::remove(tmp);
  fs::current_path(old);
}

}  // namespace

// The emitter's golden of the plain-load path (tests/emit/layernorm_plain.*).
TEST(LoadPath, PlainLoadFixtureReproduces) {
  expect_reproduces("examples/case6_layernorm/pre_modulo.ttgir", sched::LoadMode::Global, "global",
                    "tests/emit/layernorm_plain.schedule_graph.json");
}

// The emitter tests' pipelined row kernels (tests/emit/*_tma.schedule_graph.json): the
// gpu_cases' pointer-load kernels with the idle producer and the uncapped stages (the committed
// kernels' form before 2026-12-07).
TEST(LoadPath, PipelinedRowFixturesReproduce) {
  for (const std::string k : {"row_softmax", "cumsum_rows"})
    expect_reproduces("tests/harness/gpu_cases/" + k + "/pre_modulo.ttgir", sched::LoadMode::Tma,
                      "tma", "tests/emit/" + k + "_tma.schedule_graph.json");
}

// With a producer warpgroup the CTA choice's register estimate leaves out the plain loads the
// consumers keep in flight (docs/scheduler.md, "CTAs per SM"). Triton's softmax tutorial then
// got 4 CTAs per SM and spilled 36 B with no word from schedule; now the count with those loads,
// over the consumers' threads, is a warning when it exceeds the allotment. Pointer-load kernels
// have no producer by default now; --loads tma keeps the idle one these figures are about.
TEST(LoadPath, ProducerKernelsWarnWhenTheirLoadsInFlightExceedTheAllotment) {
  // Triton's softmax tutorial: 9 stages keep 60 registers of loads in flight per thread against
  // the 48 of 4 CTAs per SM. With its stages pinned (--max-stages 9: no cap applies) that is
  // said; by default the stages are capped until the loads fit (7; ptxas then spills nothing,
  // sched2cu_emit_softmax_tutorial_compiles), with a note instead of the warning.
  const auto m = example("tests/sched/softmax_tutorial_input.ttgir");
  sched::KernelOptions pinned;
  pinned.loads = sched::LoadMode::Tma;  // the idle producer kept: by default it has none
  pinned.sched.max_stages = 9;
  const auto tut = sched::schedule_kernel(m, "x", target(), pinned);
  ASSERT_EQ(tut.graph.launch.roles.size(), 2u);
  EXPECT_EQ(tut.graph.launch.ctas_per_sm, 4);
  EXPECT_EQ(tut.graph.loops.at(0).stages, 9);
  EXPECT_EQ(tut.loads_over_allotment, 60);
  bool warned = false;
  for (const auto& w : tut.warnings)
    warned |= w.find("60 per thread against the 48 of 4 CTAs per SM (spills possible") !=
              std::string::npos;
  EXPECT_TRUE(warned);
  const auto fit = schedule(m, sched::LoadMode::Tma);
  EXPECT_EQ(fit.graph.launch.ctas_per_sm, 4);
  EXPECT_EQ(fit.graph.loops.at(0).stages, 7);
  EXPECT_EQ(fit.loads_over_allotment, 0);
  EXPECT_TRUE(fit.warnings.empty());
  EXPECT_TRUE(has_note(fit,
                       "stages capped at 7 (loops with run-time trip counts) so that the "
                       "plain loads the consumers keep in flight fit their registers"));
  EXPECT_NO_THROW(sgraph::validate(fit.graph, "x"));
  // A kernel whose loads in flight fit says nothing; nor do kernels within 10% of their
  // allotment (rmsnorm 105 and cumsum_rows 112 against 104), which ptxas compiles with no spill.
  for (const char* k : {"row_softmax", "rmsnorm", "cumsum_rows"}) {
    const auto ok =
        schedule(example(std::string("tests/harness/gpu_cases/") + k + "/pre_modulo.ttgir"),
                 sched::LoadMode::Tma);
    EXPECT_EQ(ok.graph.launch.ctas_per_sm, 4) << k;
    for (const auto& w : ok.warnings)
      EXPECT_EQ(w.find("spills possible"), std::string::npos) << k << ": " << w;
  }
}
