// Table rendering: exact golden output with and without bold, and the bold policy's environment
// variables.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/table.h"

using namespace sched2cu::harness;

TEST(Table, GoldenPlain) {
  Table t;
  t.header = {"case", "main (gen/hw)"};
  t.rows = {{"case7_wgrad_bias", "0.83x, 0.71x"}, {"c", "(no bench_spec)"}};
  t.bold = {{false, true}};
  const char* want =
      "\n"
      "┌──────────────────┬─────────────────┐\n"
      "│ case             │ main (gen/hw)   │\n"
      "├──────────────────┼─────────────────┤\n"
      "│ case7_wgrad_bias │ 0.83x, 0.71x    │\n"
      "│ c                │ (no bench_spec) │\n"
      "└──────────────────┴─────────────────┘\n";
  EXPECT_EQ(render_table(t, false), want);
}

TEST(Table, GoldenBoldWrapsAfterPadding) {
  Table t;
  t.header = {"a", "b"};
  t.rows = {{"x", "1.00x"}};
  t.bold = {{false, true}};
  const char* want =
      "\n"
      "┌───┬───────┐\n"
      "│ a │ b     │\n"
      "├───┼───────┤\n"
      "│ x │ \033[1m1.00x\033[0m │\n"
      "└───┴───────┘\n";
  EXPECT_EQ(render_table(t, true), want);
}

TEST(Table, CompareGolden) {
  CompareRow r;
  r.name = "case1_simple_gemm";
  r.left = "0.97x, 1.01x";
  r.right = "1.02x, 1.03x";
  r.improvement = "+5.2%, +2.0%";
  r.bold = true;
  CompareRow u;
  u.name = "case2";
  u.left = "0.90x";
  u.right = "unchanged";
  u.improvement = "-";
  std::string out = render_compare({r, u}, "origin/main", true);
  std::string want_head =
      "\n"
      "┌───────────────────┬───────────────┬─────────────────┬──────────────┐\n"
      "│ case              │ main (gen/hw) │ branch (gen/hw) │ improvement  │\n"
      "├───────────────────┼───────────────┼─────────────────┼──────────────┤\n"
      "│ case1_simple_gemm │ 0.97x, 1.01x  │ \033[1m1.02x, 1.03x   \033[0m │ +5.2%, +2.0% │\n"
      "│ case2             │ 0.90x         │ unchanged       │ -            │\n"
      "└───────────────────┴───────────────┴─────────────────┴──────────────┘\n";
  EXPECT_EQ(out.substr(0, want_head.size()), want_head);
  EXPECT_NE(out.find("improvement = branch generated throughput vs main"), std::string::npos);
  EXPECT_EQ(render_compare({r}, "abc123", false).find("\033["), std::string::npos);
  EXPECT_NE(render_compare({r}, "abc123", false).find("abc123 (gen/hw)"), std::string::npos);
}

TEST(Table, BoldPolicy) {
  setenv("FORCE_COLOR", "1", 1);
  unsetenv("NO_COLOR");
  EXPECT_TRUE(stdout_wants_bold());
  setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(stdout_wants_bold());  // NO_COLOR wins over FORCE_COLOR
  unsetenv("NO_COLOR");
  unsetenv("FORCE_COLOR");
  EXPECT_EQ(stdout_wants_bold(), isatty(1) != 0);
}

TEST(Table, WidthCountsCodePoints) { EXPECT_EQ(display_width("→x"), 2u); }
