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
