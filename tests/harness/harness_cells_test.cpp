// Cells, improvement, one-line errors and the interpretation of finished children (pure
// functions; no GPU, no processes).
#include <gtest/gtest.h>

#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/results.h"

using namespace sched2cu::harness;

namespace {

KernelTiming tp(double v) {
  KernelTiming k;
  k.throughput = v;
  k.median_ms = 1;
  return k;
}

ShapeResult shape(long long n, std::optional<double> gen, std::optional<double> hw, bool ok = true,
                  const char* unit = "TFLOPS") {
  ShapeResult s;
  s.shape = {n, n, n};
  s.label = std::to_string(n);
  s.unit = unit;
  s.ok = ok;
  if (gen) s.gen = tp(*gen);
  if (hw) s.hw = tp(*hw);
  return s;
}

Measurement m(std::vector<ShapeResult> shapes) {
  Measurement r;
  r.has_generated = true;
  r.shapes = std::move(shapes);
  return r;
}

}  // namespace

TEST(CompareCell, RatiosInShapeOrder) {
  EXPECT_EQ(compare_cell(m({shape(1, 97, 100), shape(2, 120, 100)})), "0.97x, 1.20x");
}

TEST(CompareCell, RawThroughputWithoutHandwritten) {
  EXPECT_EQ(compare_cell(m({shape(1, 612.4, {}), shape(2, 2874, {}, true, "GB/s")})),
            "612 TFLOPS, 2874 GB/s");
}

TEST(CompareCell, OneTrailingFail) {
  EXPECT_EQ(compare_cell(m({shape(1, 50, 100, false), shape(2, 100, 100, false)})),
            "0.50x, 1.00x, FAIL");
}

TEST(CompareCell, ErrorAndEmpty) {
  Measurement e;
  e.error = "boom";
  EXPECT_EQ(compare_cell(e), "(error: boom)");
  EXPECT_EQ(compare_cell(m({})), "-");
}

TEST(Improvement, PerShapeNormalizedByTheHandwrittenKernel) {
  auto left = m({shape(1, 100, 100), shape(2, 100, 50), shape(3, 100, 100), shape(4, 100, 100)});
  auto right = m({shape(1, 120.5, 100), shape(2, 97, 50), shape(3, 100, 100, false),
                  // the GPU ran 5% slower for the second side: both kernels moved alike
                  shape(4, 95, 95)});
  EXPECT_EQ(improvement_cell(left, right), "+20.5%, -3.0%, FAIL, +0.0%");
  auto left_fail = m({shape(1, 100, 100, false)});
  EXPECT_EQ(improvement_cell(left_fail, m({shape(1, 120, 100)})), "FAIL");
  Measurement err;
  err.error = "x";
  EXPECT_EQ(improvement_cell(err, right), "-");
  EXPECT_EQ(improvement_cell(left, err), "-");
  EXPECT_EQ(improvement_cell(m({shape(9, 1, 1)}), m({shape(1, 1, 1)})), "-");
}

TEST(Improvement, RawGeneratedThroughputWithoutAHandwrittenKernel) {
  EXPECT_EQ(improvement_cell(m({shape(1, 100, {})}), m({shape(1, 110, {})})), "+10.0%");
  EXPECT_EQ(improvement_cell(m({shape(1, 100, 100)}), m({shape(1, 110, {})})), "+10.0%");
}

TEST(Spills, PtxasWarningsOnOneLine) {
  const std::string log =
      "nvcc -O3 ...\n"
      "ptxas warning : Local memory used for function '_Z1kv', size of stack frame: 112 bytes\n"
      "ptxas warning : Registers are spilled to local memory in function '_Z1kv', 116 bytes "
      "spill stores, 204 bytes spill loads\n"
      "ptxas warning : Local memory used for function '_Z1gv', size of stack frame: 8 bytes\n"
      "ptxas warning : Registers are spilled to local memory in function '_Z1gv', 4 bytes spill "
      "stores, 4 bytes spill loads\n";
  EXPECT_EQ(ptxas_warnings(log), "120 B spill stores, 208 B spill loads, 112 B stack frame");
  EXPECT_EQ(ptxas_warnings("nvcc -O3 ...\n"), "");
  EXPECT_EQ(ptxas_warnings("ptxas warning : (C7515) Potential Performance Loss: wgmma.mma_async "
                           "instructions are serialized due to ...\n"),
            "wgmma serialized");
  // A stack frame without spills (a local array) is said too.
  EXPECT_EQ(ptxas_warnings("ptxas warning : Local memory used for function 'f', size of stack "
                           "frame: 64 bytes\n"),
            "64 B stack frame");
}

TEST(Spills, EveryCellOfTheKernelThatSpillsSaysSo) {
  auto r = m({shape(1, 97, 100), shape(2, 120, 100)});
  r.has_hw = true;
  EXPECT_EQ(compare_cell(r), "0.97x, 1.20x");
  EXPECT_EQ(check_cell(r), "ok");
  r.gen_ptxas = "4 B spill stores";
  EXPECT_EQ(compare_cell(r), "0.97x, 1.20x (ptxas: 4 B spill stores)");
  EXPECT_EQ(check_cell(r), "ok (ptxas: 4 B spill stores)");
  EXPECT_EQ(check_cell(r, "hw"), "ok");
  r.shapes[1].hw_ok = false;
  r.hw_ptxas = "8 B stack frame";
  EXPECT_EQ(check_cell(r, "hw"), "FAIL (2) (ptxas: 8 B stack frame)");
  r.shapes[1].hw_ok = true;
  r.hw_ptxas.clear();
  for (auto& s : r.shapes) s.timed = true;
  EXPECT_EQ(bench_cell(r, "gen"), "97 TFLOPS, 120 TFLOPS (ptxas: 4 B spill stores)");
  EXPECT_EQ(bench_cell(r, "hw"), "100 TFLOPS, 100 TFLOPS");
  r.hw_ptxas = "8 B stack frame";
  EXPECT_EQ(bench_cell(r, "hw"), "100 TFLOPS, 100 TFLOPS (ptxas: 8 B stack frame)");
}

TEST(OneLine, SqueezesAndCuts) {
  EXPECT_EQ(one_line("a\n  b\tc\r\n"), "a b c");
  EXPECT_EQ(one_line(std::string(300, 'x')), std::string(300, 'x'));  // no cut unless asked
  EXPECT_EQ(one_line(std::string(200, 'x'), 10), "xxxxxxx...");
}

TEST(InterpretChild, GoodResult) {
  ProcResult p;
  p.started = true;
  p.exit_code = 0;
  auto r = interpret_child(
      R"({"has_generated":true,"has_hw":false,"shapes":[{"shape":[8],"label":"8","unit":"GB/s",)"
      R"("ok":true,"gen":{"median_ms":2.0,"throughput":3.5}}]})",
      p);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.shapes.size(), 1u);
  EXPECT_EQ(compare_cell(r), "4 GB/s");
}

TEST(InterpretChild, ErrorJsonIsOneLine) {
  ProcResult p;
  p.started = true;
  p.exit_code = 1;
  auto r = interpret_child(R"({"error":"line one\nline two"})", p);
  EXPECT_EQ(compare_cell(r), "(error: line one line two)");
}

// The whole message reaches the cell (the table, not the measurement, shortens it for display:
// harness_table_test.cpp).
TEST(InterpretChild, LongErrorKeptWhole) {
  ProcResult p;
  p.started = true;
  p.exit_code = 1;
  const std::string msg = "spec: " + std::string(200, 'y') + " the end";
  auto r = interpret_child(R"({"error":")" + msg + R"("})", p);
  EXPECT_EQ(r.error, msg);
  EXPECT_EQ(check_cell(r), "(error: " + msg + ")");
}

TEST(InterpretChild, NothingWritten) {
  ProcResult p;
  p.started = true;
  p.term_signal = 11;
  EXPECT_EQ(interpret_child("", p).error,
            "measurement child killed by signal SIGSEGV (11) without writing a result");
  p.term_signal = 0;
  p.exit_code = 0;
  EXPECT_EQ(interpret_child("  \n", p).error,
            "measurement child succeeded without writing a result");
}

TEST(InterpretChild, TruncatedJson) {
  ProcResult p;
  p.started = true;
  p.term_signal = 9;
  EXPECT_EQ(interpret_child(R"({"has_generated":tr)", p).error,
            "measurement child killed by signal SIGKILL (9) and left a truncated result");
}

TEST(InterpretChild, Timeout) {
  ProcResult p;
  p.started = true;
  p.timed_out = true;
  p.term_signal = 15;
  p.seconds = 30.2;
  EXPECT_EQ(interpret_child("", p).error, "measurement timed out after 30 s (hung kernel?)");
}

TEST(InterpretChild, MalformedObject) {
  ProcResult p;
  p.started = true;
  p.exit_code = 0;
  auto r = interpret_child(R"({"shapes":"nope"})", p);
  EXPECT_NE(r.error.find("malformed measurement result"), std::string::npos);
}

TEST(CheckAndBenchCells, Forms) {
  auto r = m({shape(1, 100, 50), shape(2, 100, 200, false)});
  r.shapes[1].hw_ok = false;
  EXPECT_EQ(check_cell(r), "FAIL (2)");
  EXPECT_EQ(check_cell(m({shape(1, 1, 1)})), "ok");
  EXPECT_EQ(bench_cell(r, "gen"), "100 TFLOPS, 100 TFLOPS FAIL");
  EXPECT_EQ(bench_cell(r, "hw"), "50 TFLOPS, 200 TFLOPS FAIL");
  EXPECT_EQ(bench_cell(r, "vendor"), "-");
  EXPECT_EQ(bench_ratio_cell(r, "gen", "hw"), "2.00x, 0.50x");
  EXPECT_EQ(bench_ratio_cell(r, "gen", "vendor"), "-");
}

// ---- check-only shapes (BenchSpec::check_only) and the roofline copy --------------------------

namespace {

ShapeResult check_only(long long n, bool ok = true) {
  ShapeResult s = shape(n, {}, {}, ok);
  s.timed = false;
  return s;
}

}  // namespace

TEST(CheckOnlyShapes, LeftOutOfThroughputCellsButTheirFailuresShow) {
  auto good = m({shape(1, 97, 100), check_only(7), shape(2, 120, 100)});
  good.has_hw = true;
  EXPECT_EQ(compare_cell(good), "0.97x, 1.20x");
  EXPECT_EQ(bench_cell(good, "gen"), "97 TFLOPS, 120 TFLOPS");
  EXPECT_EQ(bench_ratio_cell(good, "gen", "hw"), "0.97x, 1.20x");
  EXPECT_EQ(bench_shapes_cell(good), "1, 2 (+1 check-only)");
  EXPECT_EQ(check_cell(good), "ok");

  auto bad = m({shape(1, 97, 100), check_only(7, false), check_only(9, false), shape(2, 1, 1)});
  bad.has_hw = true;
  bad.shapes[2].hw_ok = false;
  EXPECT_EQ(compare_cell(bad), "0.97x, 1.00x, FAIL");
  EXPECT_EQ(check_cell(bad), "FAIL (7, 9)");
  EXPECT_EQ(bench_cell(bad, "gen"), "97 TFLOPS, 1 TFLOPS, FAIL (7, 9)");
  EXPECT_EQ(bench_cell(bad, "hw"), "100 TFLOPS, 1 TFLOPS, FAIL (9)");
  EXPECT_EQ(bench_cell(bad, "vendor"), "-");
  // A kernel the measurement does not have cannot fail anywhere.
  bad.has_hw = false;
  EXPECT_EQ(bench_cell(bad, "hw"), "100 TFLOPS, 1 TFLOPS");
  // Improvement: per timed shape only.
  EXPECT_EQ(improvement_cell(good, bad), "+0.0%, -16.7%");
}

TEST(CheckOnlyShapes, OnlyCheckOnly) {
  auto r = m({check_only(7), check_only(9, false)});
  EXPECT_EQ(compare_cell(r), "FAIL");
  EXPECT_EQ(bench_cell(r, "gen"), "FAIL (9)");
  EXPECT_EQ(bench_shapes_cell(r), "(+2 check-only)");
  EXPECT_EQ(bench_shapes_cell(m({})), "-");
}

TEST(RooflineCopy, CellsAndRatios) {
  auto r = m({shape(1, 3000, 3200, true, "GB/s"), shape(2, 4000, {}, true, "GB/s")});
  r.shapes[0].copy = tp(4000);
  r.shapes[1].copy = tp(4000);
  r.shapes[1].ok = false;  // a kernel's FAIL never touches the copy, which is not checked
  EXPECT_EQ(bench_cell(r, "copy"), "4000 GB/s, 4000 GB/s");
  EXPECT_EQ(bench_ratio_cell(r, "gen", "copy"), "0.75x, 1.00x");
  EXPECT_EQ(bench_ratio_cell(r, "hw", "copy"), "0.80x, -");
  EXPECT_EQ(bench_cell(m({shape(1, 1, 1)}), "copy"), "-");
}

TEST(RooflineCopy, ParsedFromTheChildJson) {
  ProcResult p;
  p.started = true;
  p.exit_code = 0;
  auto r = interpret_child(
      R"({"has_generated":false,"has_hw":true,"has_copy":true,"shapes":[)"
      R"({"shape":[16384,512],"label":"16384x512","unit":"GB/s","ok":true,"timed":true,)"
      R"("hw":{"median_ms":0.01,"throughput":3355.4},)"
      R"("copy":{"median_ms":0.008,"throughput":4194.3,"bytes":16777216}},)"
      R"({"shape":[5,512],"label":"5x512","unit":"GB/s","ok":true,"hw_ok":false,"timed":false}]})",
      p);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.has_copy);
  ASSERT_EQ(r.shapes.size(), 2u);
  EXPECT_TRUE(r.shapes[0].timed);
  EXPECT_FALSE(r.shapes[1].timed);
  ASSERT_TRUE(r.shapes[0].copy);
  EXPECT_DOUBLE_EQ(r.shapes[0].copy->median_ms, 0.008);
  EXPECT_EQ(bench_cell(r, "copy"), "4194 GB/s");
  EXPECT_EQ(bench_cell(r, "hw"), "3355 GB/s, FAIL (5x512)");
  EXPECT_EQ(bench_ratio_cell(r, "hw", "copy"), "0.80x");
  // An older child (no "timed", no "has_copy"): every shape timed, no copy.
  auto old = interpret_child(
      R"({"has_generated":true,"has_hw":false,"shapes":[{"shape":[8],"label":"8","unit":"GB/s",)"
      R"("ok":true,"gen":{"median_ms":2.0,"throughput":3.5}}]})",
      p);
  EXPECT_FALSE(old.has_copy);
  EXPECT_TRUE(old.shapes[0].timed);
  EXPECT_FALSE(old.shapes[0].copy);
}
