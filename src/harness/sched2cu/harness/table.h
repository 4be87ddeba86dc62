// Box-drawing table rendering for compare, check, bench and list. Widths count code points, and
// bold (ESC[1m ... ESC[0m) wraps a cell after padding so alignment never depends on escapes.
#pragma once

#include <string>
#include <vector>

namespace sched2cu::harness {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<bool>> bold;  // per row, per column; may be shorter (no bold)
};

// The table with a leading empty line, a top rule, the header, a rule, the rows and a bottom
// rule, each line ending in '\n'.
std::string render_table(const Table& t, bool use_bold);

// Bold policy for stdout: never with NO_COLOR set (non-empty); always with FORCE_COLOR set
// (non-empty); otherwise when stdout is a terminal.
bool stdout_wants_bold();

// Number of code points in a UTF-8 string.
size_t display_width(const std::string& s);

}  // namespace sched2cu::harness
