// The Triton column's JIT specialization: what Triton's JIT assumes of a call's arguments
// (divisible by 16, equal to 1), the spec's arguments listed per shape without a GPU, one compile
// per distinct specialization, and the plans that send each shape to its own. Without these a
// pointer-tile kernel is timed as Triton compiles it knowing nothing of its arguments, which no
// call of `kernel[grid](...)` ever runs (no vectorized loads, no cp.async pipeline).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/triton_build.h"
#include "sched2cu/harness/triton_launch.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::harness;
using nlohmann::json;
using Hints = std::vector<std::string>;

const fs::path kRoot = SOURCE_ROOT;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "sched2cu-triton-hints-XXXXXX").string();
    if (!mkdtemp(t.data())) throw sched2cu::Error("mkdtemp");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sched2cu::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TritonHints, WhatTheJitAssumesOfEachArgument) {
  alignas(16) static char buf[64];
  sched2cu_arg a[10];
  a[0].ptr = buf;      // 16-byte aligned
  a[1].ptr = buf + 8;  // not
  a[2].i = 1;          // the JIT's constexpr 1
  a[3].i = 4096;
  a[4].i = 0;  // 0 % 16 == 0: divisible, as the JIT says
  a[5].i = 1000;
  a[6].i = -32;
  a[7].f = 16.0;  // floats are never specialized
  a[8].i = 1;     // a bool-typed 1 neither
  a[9].i = 1LL << 40;
  const std::vector<std::string> types = {"*fp16", "*fp16", "i32",  "i32", "i32",
                                          "i32",   "i64",   "fp32", "i1",  "i64"};
  EXPECT_EQ(jit_hints(types, a, 10), (Hints{"D", "", "1", "D", "D", "", "D", "", "", "D"}));
  EXPECT_EQ(error_of([&] { jit_hints(types, a, 9); }),
            "kernel.py's DUMP signature has 10 parameters, the spec passed 9 arguments");
}

TEST(TritonHints, ListedArgumentsGiveEachShapeItsHints) {
  const json listed = json::parse(R"({"shapes": [
      {"label": "4096", "args": [1099511627776, 4096, 4096]},
      {"label": "1000", "args": [1099511627776, 1000, 1]}]})");
  EXPECT_EQ(shape_hints(listed, {"*fp16", "i32", "i32"}),
            (std::vector<Hints>{{"D", "D", "D"}, {"D", "", "1"}}));
  EXPECT_EQ(error_of([&] {
              shape_hints(listed, {"*fp16", "i32"});
            }),
            "at 4096: kernel.py's DUMP signature has 2 parameters, the spec passed 3 arguments");
  EXPECT_NE(error_of([&] {
              shape_hints(json{{"error", "shape 7: kernel_args failed"}}, {});
            }).find("kernel_args failed"),
            std::string::npos);
}

TEST(TritonHints, PlansSendEachShapeToItsVariant) {
  const json one = json::parse(R"({
    "kernel": "k", "num_warps": 4, "num_ctas": 1, "num_stages": 3, "dump_num_stages": 3,
    "shared": 0, "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
    "profile_scratch_align": 1, "launch_cooperative_grid": false, "launch_pdl": false,
    "params": [{"name": "x", "type": "*fp16"}, {"name": "n", "type": "i32"}],
    "entry_param_bytes": [8, 8, 8], "cubin": "/c/a.cubin", "grid": ["n", "1", "1"],
    "ctas_per_sm": 1, "hints": ["D", "1"], "specialized": [1]})");
  json two = one;
  two["hints"] = {"D", ""};
  two["specialized"] = json::array();
  two["entry_param_bytes"] = {8, 4, 8, 8};
  const TritonPlans ps =
      triton_plans_from_json(json{{"variants", {one, two}}, {"shape_variant", {1, 0, 1}}});
  ASSERT_EQ(ps.variants.size(), 2u);
  EXPECT_EQ(ps.shape_variant, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(ps.variants[0].kernel.specialized, std::vector<int>{1});
  EXPECT_EQ(ps.variants[1].hints, (Hints{"D", ""}));
  EXPECT_EQ(error_of([&] {
              triton_plans_from_json(json{{"variants", {one}}, {"shape_variant", {0, 1}}});
            }),
            "the Triton launch plans name variant 1 of 1");
  json bad = one;
  bad["specialized"] = {0};  // a pointer is never the constexpr 1
  EXPECT_EQ(error_of([&] { triton_plan_from_json(bad); }),
            "the Triton launch plan specializes 0, no integer parameter");
}

// The matmul tutorial as users write it: a, b, c through pointer tiles. Its shapes specialize
// three ways (everything a multiple of 16; 1000³ and 300×264×200, nothing but the pointers;
// 128×8×64, M, K and stride_am only), so it is compiled three times, and the kernel of the
// 16-divisible shapes is the one the JIT runs there: its loads pipelined through shared memory
// (more of it than the unhinted kernel's, which cannot vectorize a row it cannot prove aligned).
TEST(TritonHints, PointerKernelIsCompiledPerShapeSpecialization) {
  TempDir tmp;
  TritonConfig cfg;
  cfg.root = kRoot;
  cfg.cache_dir = tmp.path / "cache";
  cfg.timeout_s = 300;
  cfg.measure_exe = SCHED2CU_EXE;
  const TritonSignature sig =
      read_triton_signature(cfg, kRoot / "tests/harness/gpu_cases/matmul_tutorial/kernel.py");
  if (!sig.unavailable.empty()) GTEST_SKIP() << "python3: " << sig.unavailable;
  ASSERT_EQ(sig.error, "");
  BuildConfig bc;
  bc.root = kRoot;
  bc.cache_dir = cfg.cache_dir;
  bc.nvcc = default_nvcc();
  if (!run_process({bc.nvcc, "--version"}).ok()) GTEST_SKIP() << "no nvcc";
  const BuildResult spec = build_module(
      bc, kRoot / "tests/harness/gpu_cases/matmul_tutorial/bench_spec.cpp", true, "bench_spec");
  ASSERT_EQ(spec.error, "");
  std::string plan_path;
  {
    TritonPrep tp = prepare_triton(
        cfg, inspect_case(kRoot / "tests/harness/gpu_cases", "matmul_tutorial"), "t", spec.so_path);
    ASSERT_EQ(tp.error, "");
    ASSERT_EQ(tp.unavailable, "");
    plan_path = tp.plan_path;
    const TritonPlans ps = triton_plans_from_json(json::parse(sched2cu::read_file(plan_path)));
    EXPECT_EQ(ps.shape_variant, (std::vector<int>{0, 0, 1, 1, 2}));
    ASSERT_EQ(ps.variants.size(), 3u);
    EXPECT_EQ(ps.variants[0].hints, Hints(9, "D"));
    EXPECT_EQ(ps.variants[1].hints, (Hints{"D", "D", "D", "", "", "", "", "", ""}));
    EXPECT_EQ(ps.variants[2].hints, (Hints{"D", "D", "D", "D", "", "D", "D", "", ""}));
    EXPECT_EQ(ps.variants[0].num_stages, 3);
    EXPECT_GT(ps.variants[0].kernel.shared, ps.variants[1].kernel.shared);
  }
  EXPECT_FALSE(fs::exists(plan_path));
}

}  // namespace
