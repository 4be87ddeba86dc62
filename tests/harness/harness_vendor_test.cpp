// Vendor scripts (vendor_script.h) with real processes and no GPU: a fake script
// (fake_vendor.py, behaviour from $SCHED2CU_FAKE_VENDOR) stands in for case3's
// vendor_cudnn.py, and the parent code merges whatever it leaves into a case3-like bench
// measurement. A success fills the vendor column; a missing python3 or torch, an error, a crash,
// a hang, a truncated or incomplete result changes the vendor cell only, never the generated and
// hand-written figures. The real vendor scripts of case3_FA, case4_FA_bwd and case6_layernorm are
// run too, on a machine without torch.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/vendor_script.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;
using nlohmann::json;

#if !defined(FAKE_VENDOR) || !defined(CASE3_DIR) || !defined(CASE4_DIR) || !defined(CASE6_DIR)
#error "FAKE_VENDOR, CASE3_DIR, CASE4_DIR and CASE6_DIR must name the fake vendor script and cases"
#endif

namespace {

// A bench result as the measurement child writes it for case3 (two shapes, generated and
// hand-written timed, a vendor script named), with round throughputs: 2 ms of the vendor gives
// 500 and 1000 TFLOPS.
Measurement case3_like(const std::string& script = "fake_vendor.py") {
  auto shape = [](std::vector<long long> d, const char* label, double work, double gen_tp) {
    return json{{"shape", d},
                {"label", label},
                {"unit", "TFLOPS"},
                {"work", work},
                {"scale", 1e12},
                {"ok", true},
                {"hw_ok", true},
                {"vendor_ok", true},
                {"outputs",
                 {{{"name", "O"}, {"tol", 0.01}, {"rel_ref", 0.004}},
                  {{"name", "M"}, {"tol", 0.01}, {"rel_ref", 1e-6}}}},
                {"gen", {{"median_ms", 1.0}, {"throughput", gen_tp}}},
                {"hw", {{"median_ms", 1.0}, {"throughput", 400.0}}}};
  };
  json j = {
      {"mode", "bench"},
      {"has_generated", true},
      {"has_hw", true},
      {"vendor_name", "cuDNN"},
      {"vendor_script", script},
      {"tol", 0.01},
      {"shapes",
       {shape({1, 4, 512}, "1x4x512", 1e12, 200.0), shape({1, 8, 1024}, "1x8x1024", 2e12, 300.0)}}};
  return parse_measurement(j);
}

Measurement with_vendor(const std::string& mode, double timeout = 20,
                        const std::string& python = "python3", Measurement m = case3_like()) {
  setenv("SCHED2CU_FAKE_VENDOR", mode.c_str(), 1);
  VendorScriptRun run;
  run.python = python;
  run.timeout_s = timeout;
  run.label = "test";
  run_vendor_script(m, fs::path(FAKE_VENDOR).parent_path(), run);
  unsetenv("SCHED2CU_FAKE_VENDOR");
  return m;
}

bool have_python3() { return run_process({"python3", "-c", "pass"}).ok(); }

// The generated and hand-written cells of case3_like(), which no vendor outcome may change.
void expect_kernels_kept(const Measurement& m) {
  EXPECT_EQ(m.error, "");
  EXPECT_EQ(bench_cell(m, "gen"), "200 TFLOPS, 300 TFLOPS");
  EXPECT_EQ(bench_cell(m, "hw"), "400 TFLOPS, 400 TFLOPS");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "hw"), "0.50x, 0.75x");
}

}  // namespace

class VendorScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_python3()) GTEST_SKIP() << "no python3 on this machine";
  }
};

TEST(VendorScriptArgv, ShapesToleranceAndBudgets) {
  VendorScriptRun run;
  run.seed = 7;
  run.warmup_ms = 25;
  auto argv = vendor_script_argv(run, "/c/v.py", case3_like());
  std::vector<std::string> want = {"python3",     "/c/v.py", "--shapes", "1x4x512,1x8x1024",
                                   "--tol",       "0.01",    "--seed",   "7",
                                   "--warmup-ms", "25",      "--rep-ms", "200"};
  EXPECT_EQ(argv, want);
}

TEST_F(VendorScript, SuccessFillsTheVendorColumn) {
  Measurement m = with_vendor("ok");
  expect_kernels_kept(m);
  EXPECT_EQ(m.vendor_error, "");
  EXPECT_EQ(bench_cell(m, "vendor"), "500 TFLOPS, 1000 TFLOPS");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "vendor"), "0.40x, 0.30x");
  EXPECT_EQ(bench_ratio_cell(m, "hw", "vendor"), "0.80x, 0.40x");
  ASSERT_TRUE(m.shapes[1].vendor);
  EXPECT_EQ(m.shapes[1].vendor->count, 100);
  EXPECT_DOUBLE_EQ(m.shapes[1].vendor->median_ms, 2.0);
  // The --json side: versions, per-output errors, and the vendor fields the C++ child uses.
  EXPECT_EQ(m.raw["vendor_info"]["torch"], "0.0-fake");
  EXPECT_FALSE(m.raw["vendor_info"].contains("shapes"));
  EXPECT_DOUBLE_EQ(m.raw["shapes"][0]["outputs"][1]["rel_vendor_vs_ref"].get<double>(), 0.001);
  EXPECT_EQ(m.raw["shapes"][0]["vendor"]["warmup"], 25);
  EXPECT_DOUBLE_EQ(m.raw["shapes"][1]["vendor"]["throughput"].get<double>(), 1000.0);
}

TEST_F(VendorScript, FailureIsJudgedAgainstTheSpecTolerance) {
  EXPECT_EQ(bench_cell(with_vendor("fail"), "vendor"), "500 TFLOPS, 1000 TFLOPS FAIL");
  // A NaN in the vendor's output fails even with no relative error to compare.
  Measurement m = with_vendor("nan");
  EXPECT_EQ(bench_cell(m, "vendor"), "500 TFLOPS FAIL, 1000 TFLOPS");
  EXPECT_TRUE(m.raw["shapes"][0]["outputs"][0]["rel_vendor_vs_ref"].is_null());
  // The spec's tolerance decides, not the script's: 0.001 fails a spec tolerance of 1e-4.
  Measurement strict = case3_like();
  for (json& s : strict.raw["shapes"])
    for (json& o : s["outputs"]) o["tol"] = 1e-4;
  EXPECT_EQ(bench_cell(with_vendor("ok", 20, "python3", parse_measurement(strict.raw)), "vendor"),
            "500 TFLOPS FAIL, 1000 TFLOPS FAIL");
}

TEST_F(VendorScript, MissingTorchOrPython) {
  Measurement m = with_vendor("no_torch");
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(no torch)");
  EXPECT_EQ(bench_ratio_cell(m, "gen", "vendor"), "-");
  m = with_vendor("ok", 20, "/no/such/dir/python3");
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(no python3)");
  EXPECT_EQ(m.raw["vendor_unavailable"], "no python3");
}

TEST_F(VendorScript, RealCudnnScriptWithoutTorch) {
  if (run_process({"python3", "-c", "import torch"}).ok())
    GTEST_SKIP() << "torch is installed here: vendor_cudnn.py would measure";
  Measurement m = case3_like("vendor_cudnn.py");
  VendorScriptRun run;
  run_vendor_script(m, CASE3_DIR, run);
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(no torch)");
}

TEST_F(VendorScript, RealCudnnBackwardScriptWithoutTorch) {
  if (run_process({"python3", "-c", "import torch"}).ok())
    GTEST_SKIP() << "torch is installed here: case4_FA_bwd's vendor_cudnn.py would measure";
  Measurement m = case3_like("vendor_cudnn.py");
  VendorScriptRun run;
  run_vendor_script(m, CASE4_DIR, run);
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(no torch)");
}

TEST_F(VendorScript, RealLayerNormScriptWithoutTorch) {
  if (run_process({"python3", "-c", "import torch"}).ok())
    GTEST_SKIP() << "torch is installed here: vendor_layernorm.py would measure";
  Measurement m = case3_like("vendor_layernorm.py");
  VendorScriptRun run;
  run_vendor_script(m, CASE6_DIR, run);
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(no torch)");
}

TEST_F(VendorScript, ErrorsCostTheVendorCellOnly) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"error", "(error: RuntimeError at 1x4x512: cuDNN said no)"},
      {"crash", "(error: vendor script exited with status 3 without writing a result)"},
      {"truncated", "(error: vendor script succeeded and left a truncated result)"},
      {"exit_after_result", "(error: vendor script exited with status 4 after writing its result)"},
      {"missing_shape", "(error: the vendor script reported no result for shape 1x8x1024)"},
      {"missing_output", "(error: the vendor script did not check output M at 1x4x512)"}};
  for (const auto& [mode, cell] : cases) {
    Measurement m = with_vendor(mode);
    expect_kernels_kept(m);
    EXPECT_EQ(bench_cell(m, "vendor"), cell) << mode;
    EXPECT_EQ(bench_ratio_cell(m, "gen", "vendor"), "-") << mode;  // never partial figures
    EXPECT_FALSE(m.shapes[0].vendor) << mode;
  }
}

TEST_F(VendorScript, HangIsKilledAtTheTimeout) {
  auto t0 = std::chrono::steady_clock::now();
  Measurement m = with_vendor("hang", 1.0);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(error: vendor script timed out after 1 s)");
  EXPECT_LT(s, 10.0);
}

TEST_F(VendorScript, ScriptPathIsChecked) {
  Measurement m = with_vendor("ok", 20, "python3", case3_like("nope.py"));
  expect_kernels_kept(m);
  EXPECT_EQ(bench_cell(m, "vendor"), "(error: vendor script nope.py not found)");
  m = with_vendor("ok", 20, "python3", case3_like("/abs/vendor.py"));
  EXPECT_EQ(bench_cell(m, "vendor"),
            "(error: vendor script /abs/vendor.py must be relative to the case directory)");
}

TEST_F(VendorScript, NoScriptOrAFailedMeasurementRunsNothing) {
  // No "vendor_script" (the child names it in bench mode only): the vendor column stays "-".
  Measurement m = case3_like("");
  Measurement before = m;
  m = with_vendor("crash", 20, "python3", m);
  EXPECT_EQ(m.raw, before.raw);
  EXPECT_EQ(bench_cell(m, "vendor"), "-");
  // A measurement that failed as a whole keeps its one error.
  Measurement bad;
  bad.error = "generated.cu does not build";
  bad = with_vendor("ok", 20, "python3", bad);
  EXPECT_EQ(bench_cell(bad, "vendor"), "(error: generated.cu does not build)");
}

TEST_F(VendorScript, BenchRowShowsTheMergedVendor) {
  // bench's row for a case whose measurement went through the vendor step, as GpuMeasurer does.
  fs::path ex = fs::temp_directory_path() / ("sched2cu-vendor-test-" + std::to_string(getpid()));
  fs::create_directories(ex / "case3_FA");
  for (const char* f : {"bench_spec.cpp", "generated.cu", "handwritten.cu"})
    std::ofstream(ex / "case3_FA" / f) << "// test\n";
  RunOptions opt;
  opt.examples = ex;
  setenv("SCHED2CU_FAKE_VENDOR", "error", 1);
  auto rows = bench_rows(
      opt, [](const CaseFiles&, const fs::path&, const std::string&, const std::string&, bool) {
        Measurement m = case3_like();
        run_vendor_script(m, fs::path(FAKE_VENDOR).parent_path(), {});
        return m;
      });
  unsetenv("SCHED2CU_FAKE_VENDOR");
  fs::remove_all(ex);
  ASSERT_EQ(rows.size(), 1u);
  std::vector<std::string> want = {"case3_FA",
                                   "1x4x512, 1x8x1024",
                                   "200 TFLOPS, 300 TFLOPS",
                                   "400 TFLOPS, 400 TFLOPS",
                                   "-",
                                   "(error: RuntimeError at 1x4x512: cuDNN said no)",
                                   "0.50x, 0.75x",
                                   "-",
                                   "-",
                                   "-",
                                   "-",
                                   "-",
                                   "-"};
  EXPECT_EQ(rows[0].cells, want);
  EXPECT_FALSE(rows[0].failed);  // the vendor's failure is not the case's
  // No roofline copy: the table keeps its 10 columns.
  EXPECT_EQ(bench_table(rows).header.size(), 10u);
}

// A check-only shape (BenchSpec::check_only) is the kernels' edge case: the script is not given
// it, its result need not cover it, and it gets no vendor figure; the timed shapes merge as usual.
TEST_F(VendorScript, CheckOnlyShapesAreNotTheScripts) {
  Measurement m = case3_like();
  json extra = m.raw["shapes"][0];
  extra["shape"] = {1, 1, 384};
  extra["label"] = "1x1x384";
  extra["timed"] = false;
  extra.erase("gen");
  extra.erase("hw");
  m.raw["shapes"].insert(m.raw["shapes"].begin() + 1, extra);
  m = parse_measurement(m.raw);
  ASSERT_EQ(m.shapes.size(), 3u);
  EXPECT_FALSE(m.shapes[1].timed);
  auto argv = vendor_script_argv({}, "/c/v.py", m);
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[3], "1x4x512,1x8x1024");
  m = with_vendor("ok", 20, "python3", m);  // fake_vendor.py answers exactly the shapes it got
  EXPECT_EQ(m.vendor_error, "");
  EXPECT_EQ(bench_cell(m, "vendor"), "500 TFLOPS, 1000 TFLOPS");
  EXPECT_FALSE(m.shapes[1].vendor);
  EXPECT_FALSE(m.raw["shapes"][1].contains("vendor"));
  EXPECT_EQ(bench_cell(m, "gen"), "200 TFLOPS, 300 TFLOPS");
}

TEST_F(VendorScript, OnlyCheckOnlyShapesRunNoScript) {
  Measurement m = case3_like();
  for (json& s : m.raw["shapes"]) s["timed"] = false;
  m = parse_measurement(m.raw);
  const json before = m.raw;
  m = with_vendor("crash", 20, "python3", m);  // would be an error cell if it ran
  EXPECT_EQ(m.raw, before);
  EXPECT_EQ(bench_cell(m, "vendor"), "-");
}
