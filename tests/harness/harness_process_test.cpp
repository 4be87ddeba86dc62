// The child protocol's failure paths with real processes (no GPU): a child that hangs (and
// leaves a grandchild), dies by a signal, writes nothing, writes truncated JSON, reports an
// error, or crashes after writing its result. Each must become one error cell, never a hang or
// a crash of the parent. Also the nvcc module cache (nvcc exists on development machines).
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "sched2cu/harness/build_cmd.h"
#include "sched2cu/harness/child.h"
#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/subprocess.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;

#ifndef FAKE_CHILD
#error "FAKE_CHILD must name the fake child binary"
#endif

namespace {
Measurement child(const std::string& mode, double timeout = 20) {
  return run_measure_child({FAKE_CHILD, mode}, timeout);
}
}  // namespace

TEST(Child, GoodResult) {
  auto m = child("ok");
  ASSERT_EQ(m.error, "");
  EXPECT_EQ(compare_cell(m), "0.50x");
}

TEST(Child, HangIsKilledAtTheTimeout) {
  auto t0 = std::chrono::steady_clock::now();
  auto m = child("hang", 1.0);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(compare_cell(m), "(error: measurement timed out after 1 s (hung kernel?))");
  EXPECT_LT(s, 10.0);
}

TEST(Child, DiesBySignal) {
  EXPECT_EQ(compare_cell(child("segv")),
            "(error: measurement child killed by signal SIGSEGV (11) without writing a result)");
}

TEST(Child, WritesNothing) {
  EXPECT_EQ(child("nothing").error, "measurement child succeeded without writing a result");
}

TEST(Child, TruncatedJson) {
  EXPECT_EQ(child("truncated").error, "measurement child succeeded and left a truncated result");
}

TEST(Child, ErrorIsOneLine) {
  EXPECT_EQ(compare_cell(child("error")), "(error: generated launch at 64 returned cudaErrorX)");
}

TEST(Child, CrashAfterResult) {
  EXPECT_EQ(child("abort_after_result").error,
            "measurement child killed by signal SIGABRT (6) after writing its result");
}

TEST(Subprocess, CapturesAndReportsExit) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(describe_exit(r), "exited with status 3");
  auto missing = run_process({"/no/such/binary"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(describe_exit(missing).find("could not start"), std::string::npos);
}

TEST(Subprocess, TimeoutKillsTheGroup) {
  ProcOptions o;
  o.timeout_s = 0.5;
  // The grandchild keeps stdout open; the group kill must end it so we return.
  auto r = run_process({"sh", "-c", "sleep 100 & sleep 100"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10.0);
}

// The same sources in two checkouts hash alike (a clone in another directory reuses the cache;
// the absolute -I paths used to make every module a miss there), and content still counts.
TEST(ModuleCache, HashIgnoresWhereTheCheckoutLives) {
  fs::path base = fs::path(::testing::TempDir()) / ("mcroot_" + std::to_string(::getpid()));
  fs::remove_all(base);
  std::string hashes[2][2];
  for (int k = 0; k < 2; ++k) {
    fs::path dir = base / (k ? "second/checkout" : "first");
    fs::create_directories(dir / "runtime");
    fs::create_directories(dir / "src" / "harness" / "sched2cu");
    std::ofstream(dir / "runtime" / "h.cuh") << "#define X 1\n";
    std::ofstream(dir / "src" / "harness" / "sched2cu" / "api.h") << "// api\n";
    std::ofstream(dir / "k.cu") << "#include \"h.cuh\"\nextern \"C\" int f() { return X; }\n";
    BuildConfig cfg;
    cfg.root = dir;
    cfg.cache_dir = dir / "cache";
    hashes[k][0] = build_hash(cfg, dir / "k.cu", false);
    hashes[k][1] = build_hash(cfg, dir / "k.cu", true);
    if (k == 1) {
      std::ofstream(dir / "runtime" / "h.cuh") << "#define X 2\n";
      EXPECT_NE(build_hash(cfg, dir / "k.cu", false), hashes[k][0]);
    }
  }
  EXPECT_EQ(hashes[0][0], hashes[1][0]);
  EXPECT_EQ(hashes[0][1], hashes[1][1]);
  fs::remove_all(base);
}

TEST(ModuleCache, BuildsOnceAndReportsErrorsOnOneLine) {
  fs::path dir = fs::path(::testing::TempDir()) / ("mc_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "runtime");
  std::ofstream(dir / "runtime" / "h.cuh") << "#define X 1\n";
  BuildConfig cfg;
  cfg.root = dir;
  cfg.cache_dir = dir / "cache";
  cfg.nvcc = default_nvcc();
  if (!run_process({cfg.nvcc, "--version"}).ok()) GTEST_SKIP() << "no nvcc";
  fs::path src = dir / "k.cu";
  std::ofstream(src) << "#include \"h.cuh\"\nextern \"C\" int f() { return X; }\n";
  auto h1 = build_hash(cfg, src, false);
  auto a = build_module(cfg, src, false, "k.cu");
  ASSERT_EQ(a.error, "");
  EXPECT_FALSE(a.cached);
  EXPECT_TRUE(fs::exists(a.so_path));
  auto b = build_module(cfg, src, false, "k.cu");
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(a.so_path, b.so_path);
  // A runtime header change is a new build.
  std::ofstream(dir / "runtime" / "h.cuh") << "#define X 2\n";
  EXPECT_NE(build_hash(cfg, src, false), h1);
  EXPECT_NE(build_hash(cfg, src, true), build_hash(cfg, src, false));
  // So is a change to a file the source includes relative to itself.
  std::ofstream(dir / "local.h") << "// a\n";
  std::ofstream(src) << "#include \"local.h\"\nextern \"C\" int f() { return 1; }\n";
  auto h2 = build_hash(cfg, src, false);
  std::ofstream(dir / "local.h") << "// b\n";
  EXPECT_NE(build_hash(cfg, src, false), h2);
  std::ofstream(src) << "int broken( {\n";
  auto c = build_module(cfg, src, false, "generated.cu");
  EXPECT_TRUE(c.so_path.empty());
  EXPECT_EQ(c.error.rfind("generated.cu does not build: ", 0), 0u) << c.error;
  EXPECT_EQ(c.error.find('\n'), std::string::npos);
  fs::remove_all(dir);
}

TEST(ModuleCache, AKernelThatSpillsSaysSoFreshAndCached) {
  fs::path dir = fs::path(::testing::TempDir()) / ("mcs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "runtime");
  BuildConfig cfg;
  cfg.root = dir;
  cfg.cache_dir = dir / "cache";
  cfg.nvcc = default_nvcc();
  if (!run_process({cfg.nvcc, "--version"}).ok()) GTEST_SKIP() << "no nvcc";
  // 96 floats indexed at run time under a 32-register bound (1024 threads, 2 blocks per SM).
  fs::path src = dir / "k.cu";
  std::ofstream(src) << "__global__ void __launch_bounds__(1024, 2) k(float* o, int n, int k) {\n"
                        "  float v[96];\n"
                        "#pragma unroll\n"
                        "  for (int i = 0; i < 96; ++i) v[i] = o[i * n + threadIdx.x];\n"
                        "  float s = 0;\n"
                        "  for (int j = 0; j < k; ++j)\n"
                        "#pragma unroll\n"
                        "    for (int i = 0; i < 96; ++i) s += v[i] * v[(i + j) % 96];\n"
                        "  o[threadIdx.x] = s;\n"
                        "}\n";
  auto a = build_module(cfg, src, false, "generated.cu");
  ASSERT_EQ(a.error, "");
  EXPECT_NE(a.ptxas.find("B spill stores"), std::string::npos) << a.ptxas;
  auto b = build_module(cfg, src, false, "generated.cu");
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(b.ptxas, a.ptxas);
  // A kernel that does not spill says nothing.
  std::ofstream(src) << "__global__ void k(float* o) { o[threadIdx.x] = 1.f; }\n";
  auto c = build_module(cfg, src, false, "generated.cu");
  ASSERT_EQ(c.error, "");
  EXPECT_EQ(c.ptxas, "");
  fs::remove_all(dir);
}

TEST(BuildCommand, EverySourceOfEveryCaseWithoutAGpu) {
  fs::path dir = fs::path(::testing::TempDir()) / ("bc_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "runtime");
  fs::create_directories(dir / "src" / "harness");
  // Every source distinct: equal bytes are one build (the cache's key), "ok (cached)" the second
  // time, in whichever order the jobs run.
  int n = 0;
  auto ok = [&n] { return "extern \"C\" int f() { return " + std::to_string(++n) + "; }\n"; };
  for (const char* c : {"good", "bad"}) {
    fs::create_directories(dir / "examples" / c);
    std::ofstream(dir / "examples" / c / "bench_spec.cpp") << ok();
    std::ofstream(dir / "examples" / c / "generated.cu") << ok();
  }
  std::ofstream(dir / "examples" / "good" / "handwritten.cu") << ok();
  std::ofstream(dir / "examples" / "bad" / "handwritten.cu") << "int broken( {\n";
  RunOptions o;
  o.root = dir;
  o.examples = dir / "examples";
  o.cases_arg = "good,bad,missing";
  o.build.root = dir;
  o.build.cache_dir = dir / "cache";
  o.build.nvcc = default_nvcc();
  if (!run_process({o.build.nvcc, "--version"}).ok()) GTEST_SKIP() << "no nvcc";
  auto rows = build_rows(o, 3);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{"good", "ok", "ok", "ok"}));
  EXPECT_FALSE(rows[0].failed);
  EXPECT_EQ(rows[1].cells[1], "ok");
  EXPECT_EQ(rows[1].cells[3].rfind("(error: handwritten.cu does not build: ", 0), 0u)
      << rows[1].cells[3];
  EXPECT_TRUE(rows[1].failed);
  EXPECT_EQ(rows[2].cells[1], "(no such case dir)");
  EXPECT_TRUE(rows[2].failed);
  // The second time every good build comes from the cache check and bench use.
  rows = build_rows(o, 1);
  EXPECT_EQ(rows[0].cells,
            (std::vector<std::string>{"good", "ok (cached)", "ok (cached)", "ok (cached)"}));
  fs::remove_all(dir);
}
