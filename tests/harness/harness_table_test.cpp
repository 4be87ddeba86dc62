// Table rendering: exact golden output with and without bold, and the bold policy's environment
// variables.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

// ---- bold policy, as a user of `sched2cu compare` sees it -----------------------------------
//
// cmd compare prints render_compare(rows, rev, stdout_wants_bold()); these tests do the same
// with stdout pointed at a pipe or at a pseudo-terminal and FORCE_COLOR / NO_COLOR set, unset or
// empty, and assert which cells come out bold (docs/harness.md: re-measured branch cells are
// bold on a terminal or with FORCE_COLOR non-empty, never with NO_COLOR non-empty).

namespace {

// Restores FORCE_COLOR and NO_COLOR on scope exit so no case leaks into the next.
class EnvGuard {
 public:
  EnvGuard() {
    for (int i = 0; i < 2; ++i) {
      const char* v = std::getenv(kNames[i]);
      had_[i] = v != nullptr;
      if (v) old_[i] = v;
    }
  }
  ~EnvGuard() {
    for (int i = 0; i < 2; ++i) {
      if (had_[i])
        setenv(kNames[i], old_[i].c_str(), 1);
      else
        unsetenv(kNames[i]);
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  static constexpr const char* kNames[2] = {"FORCE_COLOR", "NO_COLOR"};
  bool had_[2] = {false, false};
  std::string old_[2];
};

// nullptr = unset, "" = set but empty (which the policy treats as unset).
void set_env(const char* name, const char* value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

// The cells of `compare`'s table (one bold row, one plain) that come out bold when stdout is
// `fd`: stdout_wants_bold() is evaluated with fd 1 temporarily redirected to `fd`.
std::vector<std::string> bold_cells_with_stdout(int fd, const char* force, const char* no) {
  set_env("FORCE_COLOR", force);
  set_env("NO_COLOR", no);
  std::fflush(stdout);
  const int saved = dup(1);
  EXPECT_GE(saved, 0);
  EXPECT_EQ(dup2(fd, 1), 1);
  const bool use_bold = stdout_wants_bold();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);

  CompareRow r;
  r.name = "case1_simple_gemm";
  r.left = "0.97x";
  r.right = "1.02x";
  r.improvement = "+5.2%";
  r.bold = true;
  CompareRow u;
  u.name = "case2";
  u.left = "0.90x";
  u.right = "unchanged";
  u.improvement = "-";
  const std::string out = render_compare({r, u}, "origin/main", use_bold);
  std::vector<std::string> cells;
  for (size_t at = out.find("\033[1m"); at != std::string::npos; at = out.find("\033[1m", at)) {
    at += 4;
    const size_t end = out.find("\033[0m", at);
    if (end == std::string::npos) {
      cells.emplace_back("(unterminated bold)");
      break;
    }
    std::string c = out.substr(at, end - at);
    c.erase(c.find_last_not_of(' ') + 1);  // bold wraps the padded cell
    cells.push_back(c);
  }
  // Escapes only ever come as a bold pair around a cell.
  size_t escapes = 0;
  for (char ch : out) escapes += ch == '\033';
  EXPECT_EQ(escapes, 2 * cells.size()) << out;
  return cells;
}

const std::vector<std::string> kBold = {"1.02x"};  // the re-measured branch cell of row r
const std::vector<std::string> kPlain = {};

}  // namespace

TEST(Table, BoldPolicyStdoutNotATerminal) {
  EnvGuard env;
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(isatty(p[1]), 0);
  EXPECT_EQ(bold_cells_with_stdout(p[1], nullptr, nullptr), kPlain);  // piped: plain
  EXPECT_EQ(bold_cells_with_stdout(p[1], "1", nullptr), kBold);       // FORCE_COLOR forces it
  EXPECT_EQ(bold_cells_with_stdout(p[1], "", nullptr), kPlain);       // empty FORCE_COLOR: unset
  EXPECT_EQ(bold_cells_with_stdout(p[1], "1", "1"), kPlain);          // NO_COLOR wins
  EXPECT_EQ(bold_cells_with_stdout(p[1], "1", ""), kBold);            // empty NO_COLOR: unset
  close(p[0]);
  close(p[1]);
}

TEST(Table, BoldPolicyStdoutTerminal) {
  EnvGuard env;
  // A pseudo-terminal stands in for the user's terminal (posix_openpt needs no extra library).
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 || ptsname(master) == nullptr)
    GTEST_SKIP() << "no pseudo-terminal available here";
  const int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  ASSERT_EQ(isatty(tty), 1);
  EXPECT_EQ(bold_cells_with_stdout(tty, nullptr, nullptr), kBold);  // terminal: bold
  EXPECT_EQ(bold_cells_with_stdout(tty, nullptr, "1"), kPlain);     // NO_COLOR turns it off
  EXPECT_EQ(bold_cells_with_stdout(tty, nullptr, ""), kBold);       // empty NO_COLOR: unset
  EXPECT_EQ(bold_cells_with_stdout(tty, "1", "1"), kPlain);         // NO_COLOR wins
  close(tty);
  close(master);
}

TEST(Table, WidthCountsCodePoints) { EXPECT_EQ(display_width("→x"), 2u); }

// A cell wider than kMaxCellWidth code points is cut with "…" and a footnote number; the whole
// text is listed under the table, keyed by the row's first cell and the column (the error of a
// failing stage or measurement was cut off with "..." and lost).
TEST(Table, LongCellsGoToFootnotesWhole) {
  Table t;
  t.header = {"case", "generated"};
  const std::string msg = "(error: " + std::string(120, 'x') + " the end)";
  t.rows = {{"case1", msg}, {"case2", "ok"}};
  const std::string shown = msg.substr(0, kMaxCellWidth - 1) + "… [1]";
  std::string rule;
  for (size_t i = 0; i < display_width(shown) + 2; ++i) rule += "─";
  const std::string want =
      "\n"
      "┌───────┬" +
      rule +
      "┐\n"
      "│ case  │ generated" +
      std::string(display_width(shown) - 9, ' ') +
      " │\n"
      "├───────┼" +
      rule +
      "┤\n"
      "│ case1 │ " +
      shown +
      " │\n"
      "│ case2 │ ok" +
      std::string(display_width(shown) - 2, ' ') +
      " │\n"
      "└───────┴" +
      rule +
      "┘\n"
      "\n"
      "[1] case1, generated: " +
      msg + "\n";
  EXPECT_EQ(render_table(t, false), want);
}

// A note (the whole text behind a cell, e.g. every line of a stage's stderr) gives the cell a
// footnote even when the cell itself is short; continuation lines are indented.
TEST(Table, NotesAndMultiLineCells) {
  Table t;
  t.header = {"case", "a", "b"};
  t.rows = {{"c1", "error (exited with status 1: first)", "two\nlines"}, {"c2", "x", "y"}};
  t.notes = {{"", "exited with status 1:\nfirst\nsecond"}};
  const std::string out = render_table(t, false);
  EXPECT_NE(out.find("│ error (exited with status 1: first) [1] │ two… [2] │"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\n[1] c1, a: exited with status 1:\n    first\n    second\n"
                     "[2] c1, b: two\n    lines\n"),
            std::string::npos)
      << out;
  // No cut, no note: no footnote at all.
  t.notes.clear();
  t.rows = {{"c1", "short"}};
  t.header = {"case", "a"};
  EXPECT_EQ(render_table(t, false).find("[1]"), std::string::npos);
}

// ---- Markdown (compare --markdown, bench --markdown) -----------------------------------------

TEST(Markdown, GoldenTable) {
  Table t;
  t.header = {"case", "main (gen/hw)", "branch (gen/hw)"};
  t.rows = {{"case1_simple_gemm", "0.97x", "1.02x"},
            {"case_x", "(error: a|b <T> *p _x_ \\n)", "-"},
            {"c", "x", ""}};
  t.bold = {{false, false, true}, {false, false, true}};
  const char* want =
      "| case              | main (gen/hw)                     | branch (gen/hw) |\n"
      "| ----------------- | --------------------------------- | --------------- |\n"
      "| case1_simple_gemm | 0.97x                             | **1.02x**       |\n"
      "| case_x            | (error: a\\|b \\<T\\> \\*p \\_x\\_ \\\\n) | **-**           |\n"
      "| c                 | x                                 |                 |\n";
  EXPECT_EQ(render_markdown(t), want);
}

TEST(Markdown, LongCellsAndNotesAreFootnotes) {
  Table t;
  t.header = {"case", "generated"};
  const std::string msg = "(error: " + std::string(120, 'x') + " the end)";
  t.rows = {{"case1", msg}, {"case_2", "error (exited with status 1: a)"}};
  t.notes = {{}, {"", "exited with status 1:\na\nb_c *d*"}};
  const std::string shown = msg.substr(0, kMaxCellWidth - 1) + "… [^1]";
  const size_t w = display_width(shown);
  const std::string want =
      "| case   | generated" + std::string(w - 9, ' ') + " |\n" +  //
      "| ------ | " + std::string(w, '-') + " |\n" +               //
      "| case1  | " + shown + " |\n" +                             //
      "| case_2 | error (exited with status 1: a) [^2]" + std::string(w - 36, ' ') + " |\n" +
      "\n"
      "[^1]: case1, generated: " +
      msg + "\n" + "[^2]: case_2, generated: exited with status 1:\\\n    a\\\n    b_c \\*d\\*\n";
  EXPECT_EQ(render_markdown(t), want);
}

namespace {

const char* kCompareNote =
    "\n"
    "cells: per-shape generated/handwritten throughput ratios (raw generated throughput\n"
    "when the case has no handwritten kernel), in shape order; both columns are built and\n"
    "run under the current tree (runtime headers, bench_spec.cpp, handwritten.cu); only\n"
    "generated.cu differs. improvement = branch generated throughput vs main, per shape,\n"
    "normalized by the handwritten kernel timed alongside each side (cancels drift between\n"
    "the two measurements); 'unchanged' = byte-identical generated.cu (measured once).\n";

std::vector<CompareRow> markdown_rows() {
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
  CompareRow e;
  e.name = "case3_FA";
  e.left = "0.99x";
  e.right =
      "(error: generated.cu does not build: examples/case3_FA/generated.cu(12): error: "
      "identifier \"__bar\" is undefined in <lambda>)";
  e.improvement = "-";
  e.bold = true;
  return {r, u, e};
}

}  // namespace

// What `sched2cu compare --markdown` prints, from fixed results.
TEST(Markdown, CompareGolden) {
  const std::string pad(64, ' '), rule(64, '-');
  const std::string want =
      "| case              | main (gen/hw) | branch (gen/hw)" + pad + std::string(32, ' ') +
      " | improvement  |\n"
      "| ----------------- | ------------- | " +
      rule + std::string(47, '-') +
      " | ------------ |\n"
      "| case1_simple_gemm | 0.97x, 1.01x  | **1.02x, 1.03x**" +
      pad + std::string(31, ' ') +
      " | +5.2%, +2.0% |\n"
      "| case2             | 0.90x         | unchanged" +
      pad + std::string(38, ' ') +
      " | -            |\n"
      "| case3_FA          | 0.99x         | **(error: generated.cu does not build: "
      "examples/case3_FA/generated.cu(12): error: identifier \"\\_\\_bar\" …** [^1] | -"
      "            |\n"
      "\n"
      "[^1]: case3_FA, branch (gen/hw): (error: generated.cu does not build: "
      "examples/case3_FA/generated.cu(12): error: identifier \"\\_\\_bar\" is undefined in "
      "\\<lambda\\>)\n" +
      std::string(kCompareNote);
  EXPECT_EQ(render_compare(markdown_rows(), "origin/main", false, TableFormat::Markdown), want);
}

// Markdown bold is markup, not colour: whatever NO_COLOR, FORCE_COLOR and the terminal say (the
// box table's bold follows them, BoldPolicy* above), the Markdown is the same bytes, with the
// re-measured cells in **...** and no ANSI escape.
TEST(Markdown, ColourEnvironmentChangesNothing) {
  EnvGuard env;
  const std::string want =
      render_compare(markdown_rows(), "origin/main", false, TableFormat::Markdown);
  EXPECT_NE(want.find("**1.02x, 1.03x**"), std::string::npos);
  EXPECT_EQ(want.find('\033'), std::string::npos);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::vector<int> fds = {p[1]};
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  int tty = -1;
  if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master)) {
    tty = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (tty >= 0) fds.push_back(tty);
  }
  const char* values[] = {nullptr, "", "1"};
  for (int fd : fds) {
    for (const char* force : values) {
      for (const char* no : values) {
        set_env("FORCE_COLOR", force);
        set_env("NO_COLOR", no);
        std::fflush(stdout);
        const int saved = dup(1);
        dup2(fd, 1);
        const bool use_bold = stdout_wants_bold();  // what cmd compare passes
        dup2(saved, 1);
        close(saved);
        EXPECT_EQ(render_compare(markdown_rows(), "origin/main", use_bold, TableFormat::Markdown),
                  want)
            << "FORCE_COLOR=" << (force ? force : "(unset)")
            << " NO_COLOR=" << (no ? no : "(unset)") << " tty=" << (fd == tty);
      }
    }
  }
  if (tty >= 0) close(tty);
  if (master >= 0) close(master);
  close(p[0]);
  close(p[1]);
}
