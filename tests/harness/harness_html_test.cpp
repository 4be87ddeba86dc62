// compare --html and bench --html: the HTML table holds the box table's cells (escaped, bold
// where the box table is bold, long and multi-line cells as footnotes with their whole text),
// and the bars hold one series per kernel a result times, one bar per timed shape with a
// figure, failures marked, check-only shapes and errors without bars.
#include <gtest/gtest.h>

#include <string>

#include "sched2cu/harness/html_report.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/harness/table.h"

using namespace sched2cu::harness;
using nlohmann::json;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

json timing(double tp) { return {{"median_ms", 1.0}, {"throughput", tp}}; }

// A bench result: three timed GEMM shapes (the generated kernel fails at the third), one
// check-only shape, the vendor (cuBLAS) missing at the second shape.
Measurement gemm_result() {
  json shapes = json::array();
  shapes.push_back({{"shape", {1024}},
                    {"label", "1024"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"gen", timing(500)},
                    {"hw", timing(520)},
                    {"vendor", timing(510)}});
  shapes.push_back({{"shape", {2048}},
                    {"label", "2048"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"gen", timing(600)},
                    {"hw", timing(610)}});
  shapes.push_back({{"shape", {4096}},
                    {"label", "4096"},
                    {"unit", "TFLOPS"},
                    {"ok", false},
                    {"gen", timing(650)},
                    {"hw", timing(640)},
                    {"vendor", timing(660)}});
  shapes.push_back(
      {{"shape", {17}}, {"label", "17"}, {"unit", "TFLOPS"}, {"ok", true}, {"timed", false}});
  return parse_measurement(
      {{"has_generated", true}, {"has_hw", true}, {"vendor_name", "cuBLAS"}, {"shapes", shapes}});
}

}  // namespace

TEST(HtmlTable, CellsEscapedBoldAndFootnotes) {
  Table t;
  t.header = {"case", "branch (gen/hw)"};
  const std::string long_error = "(error: " + std::string(120, 'x') + " <tail>)";
  t.rows = {{"case<1>", "1.02x & more"}, {"case2", long_error}, {"case3", "line one\nline two"}};
  t.bold = {{false, true}};
  const std::string h = render_html(t);
  EXPECT_NE(h.find("<tr><th>case</th><th>branch (gen/hw)</th></tr>"), std::string::npos) << h;
  EXPECT_NE(h.find("<tr><td>case&lt;1&gt;</td><td><b>1.02x &amp; more</b></td></tr>"),
            std::string::npos)
      << h;
  // The long cell is cut as in the box table and its whole text is footnote 1.
  EXPECT_NE(h.find("… <a href=\"#note-1\">[1]</a></td>"), std::string::npos) << h;
  EXPECT_NE(h.find("<li id=\"note-1\">case2, branch (gen/hw): <span class=\"pre\">" +
                   std::string("(error: ") + std::string(120, 'x') + " &lt;tail&gt;)</span></li>"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("<td>line one… <a href=\"#note-2\">[2]</a></td>"), std::string::npos) << h;
  EXPECT_NE(h.find("<span class=\"pre\">line one\nline two</span>"), std::string::npos) << h;
  EXPECT_EQ(h.find("<tail>"), std::string::npos);
}

TEST(HtmlTable, NoFootnotesNoList) {
  Table t;
  t.header = {"a"};
  t.rows = {{"x"}};
  EXPECT_EQ(render_html(t).find("<ol"), std::string::npos);
}

TEST(HtmlBench, SeriesPerKernelBarsPerTimedShape) {
  const Measurement m = gemm_result();
  const auto c = bench_chart("case1", m);
  EXPECT_EQ(c.groups, (std::vector<std::string>{"1024", "2048", "4096"}));  // no check-only
  ASSERT_EQ(c.series.size(), 3U);
  EXPECT_EQ(c.series[0].name, "generated");
  EXPECT_EQ(c.series[1].name, "hand-written");
  EXPECT_EQ(c.series[2].name, "cuBLAS");
  ASSERT_EQ(c.series[2].bars.size(), 3U);
  EXPECT_FALSE(c.series[2].bars[1].has_value());  // no vendor figure at 2048
  ASSERT_TRUE(c.series[0].bars[2].has_value());
  EXPECT_TRUE(c.series[0].bars[2]->failed);   // generated failed its check at 4096
  EXPECT_FALSE(c.series[1].bars[2]->failed);  // hand-written did not
  EXPECT_EQ(c.series[0].bars[0]->label, "500 TFLOPS");
  EXPECT_DOUBLE_EQ(c.series[0].bars[1]->value, 600);
}

// The Triton column (Triton's compile of kernel.py) is a series of its own where the result has
// its figures, between hand-written and the vendor as in the table; a Triton that failed gives
// none.
TEST(HtmlBench, TritonSeries) {
  json shapes = json::array();
  shapes.push_back({{"shape", {1024}},
                    {"label", "1024"},
                    {"unit", "TFLOPS"},
                    {"ok", true},
                    {"triton_ok", false},
                    {"gen", timing(500)},
                    {"hw", timing(520)},
                    {"triton", timing(450)},
                    {"vendor", timing(510)}});
  json j = {{"has_generated", true},
            {"has_hw", true},
            {"has_triton", true},
            {"vendor_name", "cuBLAS"},
            {"shapes", shapes}};
  auto c = bench_chart("case1", parse_measurement(j));
  ASSERT_EQ(c.series.size(), 4U);
  EXPECT_EQ(c.series[2].name, "Triton");
  ASSERT_TRUE(c.series[2].bars[0].has_value());
  EXPECT_EQ(c.series[2].bars[0]->label, "450 TFLOPS");
  EXPECT_TRUE(c.series[2].bars[0]->failed);
  EXPECT_EQ(c.series[3].name, "cuBLAS");
  j["triton_error"] = "Triton's compile failed";
  c = bench_chart("case1", parse_measurement(j));
  ASSERT_EQ(c.series.size(), 3U);
  EXPECT_EQ(c.series[2].name, "cuBLAS");
}

TEST(HtmlBench, ErrorOrNoFigureHasNoBars) {
  Measurement err;
  err.error = "generated.cu does not build";
  EXPECT_TRUE(bench_chart("x", err).groups.empty());
  Measurement none = parse_measurement(
      {{"has_generated", true},
       {"has_hw", false},
       {"shapes", json::array({{{"shape", {1}}, {"label", "1"}, {"ok", true}}})}});
  EXPECT_TRUE(bench_chart("x", none).series.empty());
}

TEST(HtmlBench, PageHoldsTableAndCharts) {
  CaseRow ok{"case<1>", {}, false, gemm_result()};
  ok.cells = {"case<1>", "1024, 2048, 4096 (+1 check-only)", "500 TFLOPS", "520 TFLOPS"};
  CaseRow bad{"case2", {"case2", "-", "(error: boom)"}, true, Measurement{}};
  bad.m->error = "boom";
  CaseRow nospec{"case3", {"case3", "-", "(no bench_spec)"}, false, std::nullopt};
  const std::string page =
      bench_html({ok, bad, nospec}, {{"name", "NVIDIA H200"}, {"cc", "9.0"}, {"sm_count", 132}});
  EXPECT_NE(page.find("measured on NVIDIA H200 (cc 9.0, 132 SMs)"), std::string::npos);
  EXPECT_EQ(count(page, "<tr>"), 4U);  // header + 3 cases
  EXPECT_NE(page.find("<td>case&lt;1&gt;</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>(error: boom)</td>"), std::string::npos);
  // Only the measured case has a chart: 3 + 3 + 2 bars.
  EXPECT_EQ(count(page, "<g class=\"bar\""), 8U);
  EXPECT_EQ(count(page, "<h3>"), 1U);
  EXPECT_NE(page.find("<h3>case&lt;1&gt;</h3>"), std::string::npos);
  EXPECT_NE(page.find("FAIL after a figure"), std::string::npos);  // the note
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // Nothing measured (no GPU): no device line, no chart section.
  const std::string empty = bench_html({nospec}, json::object());
  EXPECT_EQ(empty.find("measured on"), std::string::npos);
  EXPECT_EQ(empty.find("Throughput per shape"), std::string::npos);
}

TEST(HtmlCompare, SidesAsSeries) {
  CompareRow changed;
  changed.name = "case1";
  changed.status = "changed";
  changed.left_m = gemm_result();
  changed.right_m = gemm_result();
  auto c = compare_chart(changed, "origin/main");
  ASSERT_EQ(c.series.size(), 4U);  // compare times generated and hand-written only
  EXPECT_EQ(c.series[0].name, "main generated");
  EXPECT_EQ(c.series[1].name, "main hand-written");
  EXPECT_EQ(c.series[2].name, "branch generated");
  EXPECT_EQ(c.series[3].name, "branch hand-written");
  EXPECT_NE(c.series[0].colour, c.series[2].colour);

  CompareRow same = changed;
  same.status = "unchanged";
  same.right_m.reset();
  c = compare_chart(same, "HEAD~1");
  ASSERT_EQ(c.series.size(), 2U);
  EXPECT_EQ(c.series[0].name, "HEAD~1 = branch generated");

  // compare --triton: Triton's figures are the branch side's.
  CompareRow with_triton = changed;
  json shapes = json::array({{{"shape", {1024}},
                              {"label", "1024"},
                              {"unit", "TFLOPS"},
                              {"ok", true},
                              {"gen", timing(500)},
                              {"triton", timing(450)}}});
  with_triton.right_m = parse_measurement(
      {{"has_generated", true}, {"has_hw", false}, {"has_triton", true}, {"shapes", shapes}});
  c = compare_chart(with_triton, "main");
  ASSERT_EQ(c.series.size(), 4U);
  EXPECT_EQ(c.series[2].name, "branch generated");
  EXPECT_EQ(c.series[3].name, "branch Triton");

  CompareRow broken = changed;
  broken.right_m->error = "boom";
  EXPECT_EQ(compare_chart(broken, "main").series.size(), 2U);
}
