// The Triton column without a GPU: the argument mapping onto Triton's kernel parameters, the
// launch grid taken from the schedule graph, the launch plan, the real compile of corpus kernels
// (with the stage retry) where Triton 3.6 is importable, "(no triton)" from an interpreter
// without it, the cells, and when a failed measurement is run again without Triton.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "sched2cu/bench/triton_module.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/triton_build.h"
#include "sched2cu/harness/triton_launch.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::harness;
using nlohmann::json;
using sched2cu::bench::TritonKernelInfo;
using sched2cu::bench::TritonParams;

const fs::path kRoot = SOURCE_ROOT;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sched2cu::Error& e) {
    return e.what();
  }
  return "";
}

template <class T>
std::vector<unsigned char> bytes_of(T v) {
  std::vector<unsigned char> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

// case3_FA's signature as Triton 3.6 compiles it: five pointers, an f32, three i32, and the
// global and profile scratch pointers the PTX .entry ends with.
TritonKernelInfo fa_kernel() {
  TritonKernelInfo k;
  k.name = "attn_fwd_kernel";
  k.param_types = {"*bf16", "*bf16", "*bf16", "*bf16", "*fp32", "fp32", "i32", "i32", "i32"};
  k.entry_param_bytes = {8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8};
  return k;
}

TEST(TritonParams, PacksTheSignatureThenTwoScratchPointers) {
  int buf[5];
  sched2cu_arg a[9];
  for (int i = 0; i < 5; ++i) a[i].ptr = &buf[i];
  a[5].f = 0.08838834764831845;
  a[6].i = 2;
  a[7].i = 16;
  a[8].i = 4096;
  TritonParams p(fa_kernel(), a, 9);
  ASSERT_EQ(p.size(), 11u);
  EXPECT_EQ(p.bytes(0), bytes_of(static_cast<void*>(&buf[0])));
  EXPECT_EQ(p.bytes(4), bytes_of(static_cast<void*>(&buf[4])));
  EXPECT_EQ(p.bytes(5), bytes_of(0.08838834764831845f));  // fp32: a float, not the double
  EXPECT_EQ(p.bytes(8), bytes_of(int32_t{4096}));
  EXPECT_EQ(p.bytes(9), bytes_of(static_cast<void*>(nullptr)));
  int scratch = 0;
  p.set_scratch(&scratch, nullptr);
  EXPECT_EQ(p.bytes(9), bytes_of(static_cast<void*>(&scratch)));
  EXPECT_EQ(p.bytes(10), bytes_of(static_cast<void*>(nullptr)));
  // cuLaunchKernel's kernelParams: one pointer per parameter, at its bytes.
  EXPECT_EQ(std::memcmp(p.pointers()[8], bytes_of(int32_t{4096}).data(), 4), 0);
}

TEST(TritonParams, HalfScalarsAreTheBitsTritonsLauncherMakes) {
  TritonKernelInfo k;
  k.name = "k";
  k.param_types = {"fp16", "bf16", "bf16", "i8", "u32", "i64", "fp64"};
  k.entry_param_bytes = {2, 2, 2, 1, 4, 8, 8, 8, 8};
  sched2cu_arg a[7];
  a[0].f = 1.0;
  a[1].f = 1.0;
  a[2].f = 1.00390625;  // f32 0x3F808000: Triton's pack_bf16 truncates to 0x3F80
  a[3].i = -5;
  a[4].i = 4000000000LL;
  a[5].i = -(1LL << 40);
  a[6].f = 0.1;
  TritonParams p(k, a, 7);
  EXPECT_EQ(p.bytes(0), bytes_of(uint16_t{0x3C00}));
  EXPECT_EQ(p.bytes(1), bytes_of(uint16_t{0x3F80}));
  EXPECT_EQ(p.bytes(2), bytes_of(uint16_t{0x3F80}));
  EXPECT_EQ(p.bytes(3), bytes_of(int8_t{-5}));
  EXPECT_EQ(p.bytes(4), bytes_of(uint32_t{4000000000U}));
  EXPECT_EQ(p.bytes(5), bytes_of(int64_t{-(1LL << 40)}));
  EXPECT_EQ(p.bytes(6), bytes_of(0.1));
}

TEST(TritonParams, RefusesWhatItCannotPassFaithfully) {
  sched2cu_arg a[9] = {};
  a[8].i = 1LL << 31;  // N_CTX beyond i32
  EXPECT_EQ(error_of([&] { TritonParams p(fa_kernel(), a, 9); }),
            "argument 8 of Triton's attn_fwd_kernel = 2147483648 does not fit its type i32");
  a[8].i = 1;
  EXPECT_EQ(error_of([&] { TritonParams p(fa_kernel(), a, 8); }),
            "Triton's attn_fwd_kernel takes 9 arguments, the spec gave 8");
  TritonKernelInfo k = fa_kernel();
  k.param_types[0] = "fp8e4nv";  // an fp8 scalar: Triton's launcher packs no such argument
  EXPECT_NE(error_of([&] { TritonParams p(k, a, 9); }).find("has type 'fp8e4nv'"),
            std::string::npos);
  // A Triton whose kernels end with one scratch pointer (not 3.6's launcher convention).
  k = fa_kernel();
  k.entry_param_bytes.pop_back();
  EXPECT_EQ(error_of([&] { TritonParams p(k, a, 9); }),
            "Triton's attn_fwd_kernel takes parameters of [8,8,8,8,8,4,4,4,4,8] bytes (its PTX "
            ".entry), the harness packs [8,8,8,8,8,4,4,4,4,8,8] (signature less its constexpr 1s "
            "+ 2 scratch pointers): not the launcher of Triton 3.6?");
}

// An integer argument the JIT specialized to the constexpr 1 is no kernel parameter: it is not
// packed, and a launch whose argument is not 1 is refused (the kernel has 1 baked in).
TEST(TritonParams, ConstexprOnesAreNotPackedAndMustBeOne) {
  TritonKernelInfo k = fa_kernel();
  k.specialized = {6};  // Z
  k.entry_param_bytes = {8, 8, 8, 8, 8, 4, 4, 4, 8, 8};
  int buf[5];
  sched2cu_arg a[9];
  for (int i = 0; i < 5; ++i) a[i].ptr = &buf[i];
  a[5].f = 0.5;
  a[6].i = 1;
  a[7].i = 16;
  a[8].i = 4096;
  TritonParams p(k, a, 9);
  ASSERT_EQ(p.size(), 10u);
  EXPECT_EQ(p.bytes(6), bytes_of(int32_t{16}));
  EXPECT_EQ(p.bytes(7), bytes_of(int32_t{4096}));
  a[6].i = 2;
  EXPECT_EQ(error_of([&] { TritonParams q(k, a, 9); }),
            "argument 6 of Triton's attn_fwd_kernel = 2, but its kernel was compiled for 1");
}

// What the loader refuses is refused before the driver is asked anything (these hold with or
// without a GPU).
TEST(TritonModule, RefusesWhatItDoesNotLaunch) {
  TritonKernelInfo k = fa_kernel();
  k.num_ctas = 2;
  EXPECT_EQ(error_of([&] { sched2cu::bench::TritonModule m("/no/such.cubin", k); }),
            "Triton's attn_fwd_kernel is compiled for clusters of 2 CTAs; the harness launches "
            "num_ctas = 1 only");
  k.num_ctas = 1;
  k.launch_pdl = true;
  EXPECT_NE(error_of([&] {
              sched2cu::bench::TritonModule m("/no/such.cubin", k);
            }).find("asks for a cooperative or programmatic-dependent launch"),
            std::string::npos);
  k.launch_pdl = false;
  EXPECT_EQ(error_of([&] { sched2cu::bench::TritonModule m("/no/such.cubin", k); }),
            "cannot open Triton's cubin /no/such.cubin");
}

// What tools/triton_compile.py reports for case1 (the fields a plan needs).
json case1_compiled() {
  return json::parse(R"({
    "kernel": "gemm_kernel", "triton": "3.6.0", "num_warps": 8, "num_ctas": 1,
    "num_stages": 4, "dump_num_stages": 4, "refused": [], "shared": 196640,
    "global_scratch_size": 384, "global_scratch_align": 128, "profile_scratch_size": 0,
    "profile_scratch_align": 1, "launch_cooperative_grid": false, "launch_pdl": false,
    "params": [{"name": "a_ptr", "type": "*fp16"}, {"name": "b_ptr", "type": "*fp16"},
               {"name": "c_ptr", "type": "*fp16"}, {"name": "M", "type": "i32"},
               {"name": "N", "type": "i32"}, {"name": "K", "type": "i32"}],
    "entry_param_bytes": [8, 8, 8, 4, 4, 4, 8, 8], "cubin": "/cache/triton-x.cubin"})");
}

sched2cu::sgraph::Launch graph_launch(const char* c) {
  return sched2cu::sgraph::read_schedule_graph(kRoot / "examples" / c / "schedule_graph.json")
      .launch;
}

TEST(TritonPlan, TheGeneratedKernelsGridFromTheScheduleGraph) {
  json plan = triton_plan(case1_compiled(), graph_launch("case1_simple_gemm"));
  EXPECT_EQ(plan["grid"], json({"cdiv(M, 128)", "cdiv(N, 256)", "1"}));
  EXPECT_EQ(plan["ctas_per_sm"], 1);
  TritonPlan p = triton_plan_from_json(plan);
  EXPECT_EQ(p.cubin, "/cache/triton-x.cubin");
  EXPECT_EQ(p.kernel.shared, 196640);
  EXPECT_EQ(p.kernel.global_scratch_size, 384);
  EXPECT_EQ(p.param_names, (std::vector<std::string>{"a_ptr", "b_ptr", "c_ptr", "M", "N", "K"}));
  sched2cu_arg a[6] = {};
  a[3].i = 1000;  // M: 8 row tiles, the last one partial
  a[4].i = 512;
  a[5].i = 64;
  EXPECT_EQ(triton_grid(p, a, 6, 132), (std::array<long long, 3>{8, 2, 1}));

  // case6: a persistent grid of ctas_per_sm (2) programs per SM, as the generated launcher.
  json c6 = case1_compiled();
  c6["params"] = json::parse(R"([{"name": "X", "type": "*fp16"}, {"name": "W", "type": "*fp16"},
      {"name": "B", "type": "*fp16"}, {"name": "Y", "type": "*fp16"}, {"name": "M", "type": "i32"},
      {"name": "eps", "type": "fp32"}])");
  p = triton_plan_from_json(triton_plan(c6, graph_launch("case6_layernorm")));
  EXPECT_EQ(p.ctas_per_sm, 2);
  EXPECT_EQ(triton_grid(p, a, 6, 132), (std::array<long long, 3>{264, 1, 1}));
  // case6 strides by tl.num_programs: its grid is free, so Triton may run another count per
  // SM. case1's tile grid and case2's literal 132 (a NUM_SMS constexpr stride) are not.
  EXPECT_TRUE(triton_grid_is_free(p));
  EXPECT_FALSE(triton_grid_is_free(
      triton_plan_from_json(triton_plan(case1_compiled(), graph_launch("case1_simple_gemm")))));
  json c2 = case1_compiled();
  EXPECT_FALSE(triton_grid_is_free(
      triton_plan_from_json(triton_plan(c2, graph_launch("case2_persistent_gemm")))));
  p.ctas_per_sm = 16;
  EXPECT_EQ(triton_grid(p, a, 6, 132), (std::array<long long, 3>{2112, 1, 1}));
}

// The counts per SM a free grid is timed at: limited by threads and shared memory per SM, the
// plan's own always among them.
TEST(TritonPlan, FreeGridCandidatesFitOnOneSm) {
  // 4 warps, no shared memory beyond the reserve: up to 16 blocks (2048 threads).
  EXPECT_EQ(triton_ctas_candidates(4, 0, 2), (std::vector<int>{1, 2, 4, 8, 16}));
  // 8 warps: 256 threads, at most 8 blocks.
  EXPECT_EQ(triton_ctas_candidates(8, 0, 1), (std::vector<int>{1, 2, 4, 8}));
  // 48 KB each: 4 blocks fit in 228 KB (4 x 49 KB), 8 do not.
  EXPECT_EQ(triton_ctas_candidates(4, 48 * 1024, 1), (std::vector<int>{1, 2, 4}));
  // A plan asking for more than fits is still timed, last.
  EXPECT_EQ(triton_ctas_candidates(4, 100 * 1024, 4), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(triton_ctas_candidates(4, 200 * 1024, 3), (std::vector<int>{1, 3}));
}

TEST(TritonPlan, GridParametersMustBeIntegerParametersOfTheSignature) {
  json c = case1_compiled();
  c["params"][3]["name"] = "ROWS";  // the graph's grid names M
  EXPECT_EQ(error_of([&] { triton_plan(c, graph_launch("case1_simple_gemm")); }),
            "the schedule graph's grid names M, which kernel.py's DUMP signature does not "
            "declare");
  c = case1_compiled();
  c["params"][3]["type"] = "fp32";
  EXPECT_EQ(error_of([&] { triton_plan(c, graph_launch("case1_simple_gemm")); }),
            "the schedule graph's grid names M, which kernel.py's DUMP declares fp32, not an "
            "integer");
}

TEST(TritonPlan, ExtentsBeyondCudaAndBrokenPlansAreErrors) {
  json plan = triton_plan(case1_compiled(), graph_launch("case1_simple_gemm"));
  plan["grid"] = json({"1", "cdiv(N, 1)", "1"});
  TritonPlan p = triton_plan_from_json(plan);
  sched2cu_arg a[6] = {};
  a[4].i = 70000;
  EXPECT_EQ(error_of([&] { triton_grid(p, a, 6, 132); }),
            "the launch grid's y extent cdiv(N, 1) = 70000 is more than CUDA launches (65535)");
  a[4].i = 0;  // no programs: nothing launched, no error (the generated launcher's rule)
  EXPECT_EQ(triton_grid(p, a, 6, 132)[1], 0);
  plan.erase("shared");
  EXPECT_EQ(error_of([&] { triton_plan_from_json(plan); }),
            "the Triton launch plan lacks \"shared\"");
  plan = triton_plan(case1_compiled(), graph_launch("case1_simple_gemm"));
  plan["grid"] = json({"1", "1"});
  EXPECT_EQ(error_of([&] { triton_plan_from_json(plan); }),
            "the Triton launch plan's \"grid\" is not three extents");
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "sched2cu-triton-test-XXXXXX").string();
    if (!mkdtemp(t.data())) throw sched2cu::Error("mkdtemp");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// An interpreter without Triton: python3 without its site-packages.
fs::path python_without_triton(const fs::path& dir) {
  fs::path p = dir / "python-without-triton";
  std::ofstream(p) << "#!/bin/sh\nexec python3 -S \"$@\"\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

TritonConfig config(const fs::path& cache) {
  TritonConfig c;
  c.root = kRoot;
  c.cache_dir = cache;
  c.timeout_s = 300;
  return c;
}

// Skips where Triton 3.6 is not importable by python3 (the compile needs no GPU).
#define REQUIRE_TRITON(build) \
  if (!(build).unavailable.empty()) GTEST_SKIP() << "python3: " << (build).unavailable

// case2's DUMP asks for 4 stages, whose kernel wants 262176 B of shared memory: more than a
// block may have, so it is compiled with 3. The cubin, its real PTX parameter list and the
// harness's argument mapping agree, and a second build comes from the cache.
TEST(TritonBuild, CompilesCorpusKernelsWithTheStageRetry) {
  TempDir tmp;
  TritonConfig cfg = config(tmp.path);
  TritonBuild b = build_triton(cfg, kRoot / "examples/case2_persistent_gemm/kernel.py");
  REQUIRE_TRITON(b);
  ASSERT_EQ(b.error, "");
  const json& r = b.result;
  EXPECT_EQ(r["kernel"], "gemm_kernel");
  EXPECT_EQ(r["num_stages"], 3);
  EXPECT_EQ(r["dump_num_stages"], 4);
  ASSERT_EQ(r["refused"].size(), 1u);
  EXPECT_EQ(r["refused"][0]["num_stages"], 4);
  EXPECT_GT(r["refused"][0]["shared"].get<long long>(), kSm90MaxSharedBytes);
  EXPECT_LE(r["shared"].get<long long>(), kSm90MaxSharedBytes);
  EXPECT_GT(r["global_scratch_size"].get<long long>(), 0);  // device-side tensor descriptors
  const std::string cubin = r["cubin"];
  EXPECT_EQ(sched2cu::read_file(cubin).substr(0, 4),
            "\x7f"
            "ELF");
  TritonPlan p = triton_plan_from_json(triton_plan(r, graph_launch("case2_persistent_gemm")));
  sched2cu_arg a[6] = {};
  a[3].i = a[4].i = a[5].i = 4096;
  TritonParams params(p.kernel, a, 6);  // throws unless the PTX .entry is what it packs
  EXPECT_EQ(params.size(), 8u);
  EXPECT_EQ(triton_grid(p, a, 6, 132), (std::array<long long, 3>{132, 1, 1}));

  TritonBuild again = build_triton(cfg, kRoot / "examples/case2_persistent_gemm/kernel.py");
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.result["cubin"], cubin);

  TritonBuild c1 = build_triton(cfg, kRoot / "examples/case1_simple_gemm/kernel.py");
  ASSERT_EQ(c1.error, "");
  EXPECT_FALSE(c1.cached);
  EXPECT_EQ(c1.result["num_stages"], 4);  // fits as DUMP declares it
  EXPECT_EQ(c1.result["refused"].size(), 0u);
}

TEST(TritonBuild, NothingThatFitsIsAnErrorAndIsNotCached) {
  TempDir tmp;
  TritonConfig cfg = config(tmp.path);
  cfg.max_shared = 1000;
  TritonBuild b = build_triton(cfg, kRoot / "examples/case6_layernorm/kernel.py");
  REQUIRE_TRITON(b);
  EXPECT_NE(b.error.find("does not fit in 1000 B of shared memory at any stage count "
                         "(num_stages 3: "),
            std::string::npos)
      << b.error;
  EXPECT_TRUE(fs::is_regular_file(b.log_path));
  for (const auto& e : fs::directory_iterator(tmp.path))
    EXPECT_EQ(e.path().extension(), ".log") << e.path();  // no cubin, no result, no temporary
}

TEST(TritonBuild, NoInterpreterOrNoTritonIsUnavailable) {
  TempDir tmp;
  TritonConfig cfg = config(tmp.path);
  cfg.python = python_without_triton(tmp.path).string();
  TritonBuild b = build_triton(cfg, kRoot / "examples/case1_simple_gemm/kernel.py");
  EXPECT_EQ(b.unavailable, "no triton");
  EXPECT_EQ(b.error, "");
  cfg.python = "/no/such/python3";
  b = build_triton(cfg, kRoot / "examples/case1_simple_gemm/kernel.py");
  EXPECT_EQ(b.unavailable, "no triton");
}

// A measurement's JSON as the child writes it: two timed shapes of a GEMM, Triton included.
json child_result(bool triton_ok_at_second) {
  auto t = [](double tp) { return json{{"median_ms", 1.0}, {"throughput", tp}}; };
  json shapes = json::array();
  shapes.push_back({{"shape", {1024, 1024, 1024}},
                    {"label", "1024x1024x1024"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"triton_ok", true},
                    {"gen", t(600)},
                    {"hw", t(600)},
                    {"triton", t(500)}});
  shapes.push_back({{"shape", {4096, 4096, 4096}},
                    {"label", "4096x4096x4096"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"triton_ok", triton_ok_at_second},
                    {"gen", t(650)},
                    {"hw", t(640)},
                    {"triton", t(620)}});
  shapes.push_back({{"shape", {5, 7, 9}},
                    {"label", "5x7x9"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"triton_ok", triton_ok_at_second},
                    {"timed", false}});
  return {{"has_generated", true},
          {"has_hw", true},
          {"has_triton", true},
          {"triton", {{"num_stages", 3}, {"dump_num_stages", 4}}},
          {"shapes", shapes}};
}

TEST(TritonCells, FiguresStagesAndFailures) {
  Measurement m = parse_measurement(child_result(true));
  EXPECT_EQ(bench_cell(m, "triton"), "500 TFLOPS, 620 TFLOPS (stages 3)");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "triton"), "1.20x, 1.05x");
  m = parse_measurement(child_result(false));
  EXPECT_EQ(bench_cell(m, "triton"), "500 TFLOPS, 620 TFLOPS FAIL, FAIL (5x7x9) (stages 3)");
  json j = child_result(true);
  j["triton"]["num_stages"] = 4;  // ran as DUMP declares: nothing to say
  EXPECT_EQ(bench_cell(parse_measurement(j), "triton"), "500 TFLOPS, 620 TFLOPS");
  j = child_result(true);
  j["shapes"][0]["triton_ctas_per_sm"] = 16;  // a free grid: the count per SM it ran with
  j["shapes"][1]["triton_ctas_per_sm"] = 8;
  EXPECT_EQ(bench_cell(parse_measurement(j), "triton"),
            "500 TFLOPS (16/SM), 620 TFLOPS (8/SM) (stages 3)");
  j = child_result(true);
  j["has_triton"] = false;  // no kernel.py, or not asked for
  EXPECT_EQ(bench_cell(parse_measurement(j), "triton"), "-");
}

TEST(TritonCells, UnavailableOrFailingTritonCostsItsCellOnly) {
  Measurement m = parse_measurement(child_result(true));
  note_triton(m, "no triton", "");
  EXPECT_EQ(bench_cell(m, "triton"), "(no triton)");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "triton"), "-");
  EXPECT_EQ(bench_cell(m, "gen"), "600 TFLOPS, 650 TFLOPS");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "hw"), "1.00x, 1.02x");
  EXPECT_EQ(m.raw["triton_unavailable"], "no triton");

  // The child dropped Triton at the second shape: no figure of it anywhere, never a partial one.
  json j = child_result(true);
  j["triton_error"] = "Triton launch at 4096x4096x4096 returned CUDA_ERROR_INVALID_VALUE";
  m = parse_measurement(j);
  EXPECT_EQ(bench_cell(m, "triton"),
            "(error: Triton launch at 4096x4096x4096 returned CUDA_ERROR_INVALID_VALUE)");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "triton"), "-");
  EXPECT_EQ(bench_cell(m, "hw"), "600 TFLOPS, 640 TFLOPS");

  Measurement failed;
  failed.error = "generated.cu does not build";
  note_triton(failed, "", "compile failed");  // an error row keeps its own cell
  EXPECT_EQ(failed.raw, json());
  EXPECT_EQ(bench_cell(failed, "triton"), "(error: generated.cu does not build)");
}

TEST(TritonCells, WhenAFailedMeasurementIsRunAgainWithoutTriton) {
  ProcResult died;
  died.started = true;
  died.term_signal = 11;
  EXPECT_TRUE(rerun_without_triton(interpret_child("", died)));  // nothing says who failed
  ProcResult exited1;
  exited1.started = true;
  exited1.exit_code = 1;
  EXPECT_TRUE(rerun_without_triton(interpret_child(
      R"({"error": "Triton at 1024x1024x1024: an illegal memory access", "triton_failed": true})",
      exited1)));
  EXPECT_FALSE(rerun_without_triton(
      interpret_child(R"({"error": "generated at 1024x1024x1024: launch failed"})", exited1)));
  ProcResult ok;
  ok.started = true;
  ok.exit_code = 0;
  EXPECT_FALSE(rerun_without_triton(interpret_child(child_result(true).dump(), ok)));
}

// bench's rows when --python has no Triton: the Triton cell says so and nothing else changes;
// a case without kernel.py has no Triton cell to speak of.
TEST(TritonCells, BenchRowsWithAnInterpreterWithoutTriton) {
  TempDir tmp;
  const fs::path ex = tmp.path / "examples";
  for (const char* c : {"case_a", "case_b"}) {
    fs::create_directories(ex / c);
    for (const char* f : {"bench_spec.cpp", "generated.cu", "handwritten.cu"})
      std::ofstream(ex / c / f) << "// test\n";
  }
  fs::copy_file(kRoot / "examples/case1_simple_gemm/kernel.py", ex / "case_a/kernel.py");
  fs::copy_file(kRoot / "examples/case1_simple_gemm/schedule_graph.json",
                ex / "case_a/schedule_graph.json");
  RunOptions opt;
  opt.examples = ex;
  TritonConfig cfg = config(tmp.path / "cache");
  cfg.python = python_without_triton(tmp.path).string();
  // What GpuMeasurer does around its child, with the child's result fixed.
  auto rows = bench_rows(opt, [&](const CaseFiles& c, const fs::path&, const std::string&,
                                  const std::string& label, bool triton) {
    json j = child_result(true);
    j["has_triton"] = false;
    j.erase("triton");
    for (json& s : j["shapes"]) s.erase("triton");
    Measurement m = parse_measurement(j);
    TritonPrep tp;
    if (triton) tp = prepare_triton(cfg, c, label, "");
    EXPECT_EQ(tp.plan_path, "");
    note_triton(m, tp.unavailable, tp.error);
    return m;
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{
                               "case_a", "1024x1024x1024, 4096x4096x4096 (+1 check-only)",
                               "600 TFLOPS, 650 TFLOPS", "600 TFLOPS, 640 TFLOPS", "(no triton)",
                               "-", "1.00x, 1.02x", "-", "-", "-", "-", "-", "-"}));
  EXPECT_FALSE(rows[0].failed);
  EXPECT_EQ(rows[1].cells[4], "-");  // case_b has no kernel.py
  const std::string table = render_bench(rows);
  EXPECT_NE(table.find("│ (no triton) │"), std::string::npos) << table;
}

}  // namespace
