// Cells, improvement, one-line errors and the interpretation of finished children (pure
// functions; no GPU, no processes).
#include <gtest/gtest.h>

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

TEST(OneLine, SqueezesAndCuts) {
  EXPECT_EQ(one_line("a\n  b\tc\r\n"), "a b c");
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
