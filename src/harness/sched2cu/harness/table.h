// Table rendering for compare, check, bench, regen and list: box drawing for the terminal, GitHub
// Markdown for compare and bench --markdown, and HTML for their --html pages. Widths
// count code points, and bold (ESC[1m ... ESC[0m) wraps a cell after padding so alignment never
// depends on escapes. A cell wider than kMaxCellWidth, one holding a line break, or one with a
// note is shown shortened with a footnote number, and its whole text is listed under the table.
#pragma once

#include <string>
#include <vector>

namespace sched2cu::harness {

// Widest cell shown in full, in code points (an error message longer than this is cut in the
// cell with "…" and given whole in a footnote).
inline constexpr size_t kMaxCellWidth = 100;

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<bool>> bold;  // per row, per column; may be shorter (no bold)
  // Per row, per column; may be shorter; "" = none: the whole text behind a cell when it says
  // more than the cell (every line of a failing stage's stderr). A cell with a note gets a
  // footnote whose text is the note; other cells get one only when shortened.
  std::vector<std::vector<std::string>> notes;
};

// The table with a leading empty line, a top rule, the header, a rule, the rows and a bottom
// rule, each line ending in '\n'; then, when some cell was shortened or has a note, an empty
// line and one footnote per such cell in row order: "[n] <row's first cell>, <column>: <whole
// text>", continuation lines indented by four spaces. The shortened cell reads "<start>… [n]"
// (a cell with only a note: "<cell> [n]").
std::string render_table(const Table& t, bool use_bold);

// The same table as GitHub Markdown (for pull-request comments): a header row, a `| --- |` rule
// and the rows, columns padded to line up in the raw text; cells escaped for Markdown; bold
// cells as **cell**, always (Markdown markup, not a terminal colour: NO_COLOR, FORCE_COLOR and
// the terminal change nothing, and no ANSI escape is ever written); shortened cells and notes
// as GitHub footnotes: "<start>… [^n]" in the cell and "[^n]: <row>, <column>: <whole text>"
// under the table, a multi-line text's lines joined by hard breaks (a trailing backslash) and
// indented. No leading empty line.
std::string render_markdown(const Table& t);

// The same table as an HTML fragment (for compare and bench --html): a <table> with a header
// row and one row per case, every text escaped, bold cells in <b>, shortened cells and notes as
// footnote links "[n]" to an <ol class="notes"> under the table holding the whole text (line
// breaks kept). The cells are those of render_table, so the page says what the terminal says.
std::string render_html(const Table& t);

// `s` with the characters Markdown could take as markup backslash-escaped (a '_' inside a word
// is left alone: it never emphasizes).
std::string markdown_escape(const std::string& s);

// Bold policy for stdout: never with NO_COLOR set (non-empty); always with FORCE_COLOR set
// (non-empty); otherwise when stdout is a terminal.
bool stdout_wants_bold();

// Number of code points in a UTF-8 string.
size_t display_width(const std::string& s);

}  // namespace sched2cu::harness
