// `sched2cu regen` against a real temporary corpus, its schedule and emit stages played by
// fake_sched2cu.sh (RegenOptions::sched2cu): what a failing stage reports (the whole error, every
// line of it) and when --check fails.
#include <gtest/gtest.h>

#include <fstream>

#include "sched2cu/harness/regen.h"
#include "sched2cu/harness/table.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

struct RegenCorpus : ::testing::Test {
  fs::path root;
  RegenOptions opt;

  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("regen_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "runtime");
    opt.root = root;
    opt.examples = root / "examples";
    opt.sched2cu = FAKE_SCHED2CU;
    opt.skip_ttgir = true;
    opt.check = true;
    opt.timeout_s = 60;
  }
  void TearDown() override { fs::remove_all(root); }

  // A case with pre_modulo.ttgir `ttgir` and, when `commit_graph`, the graph the fake scheduler
  // writes for it.
  void make_case(const std::string& name, const std::string& ttgir, bool commit_graph) {
    const fs::path d = opt.examples / name;
    put(d / "pre_modulo.ttgir", ttgir);
    put(d / "bench_spec.cpp", "// spec\n");
    if (commit_graph)
      put(d / "schedule_graph.json", "graph of examples/" + name + "/pre_modulo.ttgir\n" + ttgir);
  }

  const RegenStep* step(const RegenCase& c, const std::string& file) {
    for (const RegenStep& s : c.steps)
      if (s.file == file) return &s;
    return nullptr;
  }
};

}  // namespace

// The cell of a failing stage said "error (exited with status 1: <first 160 characters>...)"
// and the rest of the error was lost: now the detail holds the whole telling line, the step the
// stage's whole stderr, and the table lists it under itself.
TEST_F(RegenCorpus, FailingStageReportsTheWholeError) {
  make_case("c_emit", "EMIT_FAILS\n", true);
  put(opt.examples / "c_emit" / "generated.cu", "old kernel\n");
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  const RegenStep* g = step(cases[0], "generated.cu");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->status, "error");
  EXPECT_NE(g->detail.find("the end of the first line"), std::string::npos) << g->detail;
  EXPECT_NE(g->log.find("'math.exp' cannot be lowered either"), std::string::npos) << g->log;
  EXPECT_TRUE(cases[0].failed);  // a committed generated.cu that cannot be regenerated

  const std::string out = render_table(regen_table(cases), false);
  EXPECT_NE(out.find("… [1]"), std::string::npos) << out;
  EXPECT_NE(out.find("\n[1] c_emit, generated.cu: exited with status 1:\n    kernel.py:7:12: "
                     "error: emit: op 39 'arith.subf' cannot be lowered: xxx"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("x the end of the first line\n    kernel.py:9:3: error: emit: op 41 "
                     "'math.exp' cannot be lowered either\n"),
            std::string::npos)
      << out;
}

// A stage that fails for a fixture the case does not commit was "reported, not a failure": a case
// whose emit fails and that has no generated.cu passed `regen --check`. Now every stage that runs
// must succeed, with or without --check, and the report says why the case failed.
TEST_F(RegenCorpus, EmitFailingWithoutGeneratedCuFails) {
  make_case("c_new", "EMIT_FAILS\n", true);
  for (bool check : {true, false}) {
    opt.check = check;
    auto cases = regen_cases(opt);
    ASSERT_EQ(cases.size(), 1u);
    EXPECT_TRUE(cases[0].failed) << "check=" << check;
    const RegenStep* g = step(cases[0], "generated.cu");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->status, "error");
    EXPECT_NE(cases[0].hint.find("SCHEDULE_ONLY"), std::string::npos) << cases[0].hint;
    EXPECT_FALSE(fs::exists(opt.examples / "c_new" / "generated.cu"));
  }
}

TEST_F(RegenCorpus, ScheduleFailingWithoutAGraphFails) {
  make_case("c_sched", "SCHEDULE_FAILS\n", false);
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].failed);
  EXPECT_EQ(step(cases[0], "schedule_graph.json")->status, "error");
  EXPECT_EQ(step(cases[0], "generated.cu")->status, "skipped");
}

// A case declared schedule-only (a SCHEDULE_ONLY file, its text the reason) is not emitted: its
// generated.cu is "skipped (schedule-only: <reason>)" and is no failure; its schedule still
// must be reproducible.
TEST_F(RegenCorpus, ScheduleOnlyCaseIsNotEmitted) {
  make_case("c_so", "EMIT_FAILS\n", true);
  put(opt.examples / "c_so" / "SCHEDULE_ONLY", "emit cannot lower tt.reduce yet\n");
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_FALSE(cases[0].failed);
  EXPECT_EQ(step(cases[0], "schedule_graph.json")->status, "unchanged");
  const RegenStep* g = step(cases[0], "generated.cu");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->status, "skipped");
  EXPECT_EQ(g->detail, "schedule-only: emit cannot lower tt.reduce yet");

  // An empty marker is a reason of its own.
  put(opt.examples / "c_so" / "SCHEDULE_ONLY", "");
  EXPECT_EQ(step(regen_cases(opt)[0], "generated.cu")->detail, "schedule-only");

  // Its schedule must still succeed.
  put(opt.examples / "c_so" / "pre_modulo.ttgir", "SCHEDULE_FAILS\n");
  EXPECT_TRUE(regen_cases(opt)[0].failed);
}

// Schedule-only and a committed generated.cu contradict each other (compare would measure a
// kernel regen never checks): an error.
TEST_F(RegenCorpus, ScheduleOnlyCaseWithGeneratedCuIsAnError) {
  make_case("c_both", "fine\n", true);
  put(opt.examples / "c_both" / "SCHEDULE_ONLY", "why\n");
  put(opt.examples / "c_both" / "generated.cu", "kernel from\nfine\n");
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].failed);
  const RegenStep* g = step(cases[0], "generated.cu");
  EXPECT_EQ(g->status, "error");
  EXPECT_NE(g->detail.find("SCHEDULE_ONLY"), std::string::npos) << g->detail;
}

TEST_F(RegenCorpus, ReproducibleCasePasses) {
  make_case("c_ok", "fine\n", true);
  put(opt.examples / "c_ok" / "generated.cu", "kernel from\nfine\n");
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_FALSE(cases[0].failed);
  EXPECT_EQ(step(cases[0], "schedule_graph.json")->status, "unchanged");
  EXPECT_EQ(step(cases[0], "generated.cu")->status, "unchanged");
}

// A GRID file's text reaches `sched2cu schedule --grid` (a kernel whose grid the IR does not
// bound could not be regenerated: regen ran schedule without flags).
TEST_F(RegenCorpus, GridFileIsPassedToSchedule) {
  make_case("c_grid", "rows\n", false);
  put(opt.examples / "c_grid" / "GRID", "  n_rows, 1,\n 1\n");
  opt.check = false;
  auto cases = regen_cases(opt);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_FALSE(cases[0].failed);
  std::ifstream in(opt.examples / "c_grid" / "schedule_graph.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("grid n_rows, 1, 1\n"), std::string::npos) << text;
}
