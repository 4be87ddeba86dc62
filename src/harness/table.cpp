// Table rendering: footnotes for long cells, box drawing (see table.h).
#include "sched2cu/harness/table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace sched2cu::harness {

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

namespace {

// The first `n` code points of `s`.
std::string prefix_code_points(const std::string& s, size_t n) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n) break;
  }
  return s.substr(0, i);
}

// What the renderers draw: every cell as shown (without its footnote mark), the footnote number
// of each cell (0 = none) and the footnotes' texts ("<row>, <column>: <whole text>").
struct Layout {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::vector<size_t>> mark;
  std::vector<std::string> footnotes;
};

Layout lay_out(const Table& t) {
  Layout l;
  for (size_t k = 0; k < t.rows.size(); ++k) {
    std::vector<std::string> cells = t.rows[k];
    cells.resize(std::max(cells.size(), t.header.size()));
    std::vector<size_t> mark(cells.size(), 0);
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string whole = cells[i];
      std::string note = k < t.notes.size() && i < t.notes[k].size() ? t.notes[k][i] : "";
      std::string& c = cells[i];
      const size_t nl = c.find('\n');
      bool cut = nl != std::string::npos;
      if (cut) c = c.substr(0, nl);
      if (display_width(c) > kMaxCellWidth) {
        c = prefix_code_points(c, kMaxCellWidth - 1);
        cut = true;
      }
      if (cut) c += "…";
      if (cut && note.empty()) note = whole;
      if (note.empty()) continue;
      std::string text = (i ? cells[0] + ", " : std::string()) +
                         (i < t.header.size() ? t.header[i] : std::to_string(i)) + ": ";
      for (char ch : note) text += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
      l.footnotes.push_back(text);
      mark[i] = l.footnotes.size();
    }
    l.cells.push_back(std::move(cells));
    l.mark.push_back(std::move(mark));
  }
  return l;
}

std::string repeat(const std::string& unit, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += unit;
  return s;
}

std::string rule(const std::vector<size_t>& w, const char* l, const char* m, const char* r) {
  std::string s = l;
  for (size_t i = 0; i < w.size(); ++i) s += (i ? m : "") + repeat("─", w[i] + 2);
  return s + r + "\n";
}

std::string line(const std::vector<std::string>& cells, const std::vector<size_t>& w,
                 const std::vector<bool>* bold, bool use_bold) {
  std::string s = "│ ";
  for (size_t i = 0; i < w.size(); ++i) {
    std::string c = i < cells.size() ? cells[i] : "";
    c += std::string(w[i] - display_width(c), ' ');
    const bool b = use_bold && bold && i < bold->size() && (*bold)[i];
    if (i) s += " │ ";
    if (b) s += "\033[1m";
    s += c;
    if (b) s += "\033[0m";
  }
  return s + " │\n";
}

}  // namespace

std::string render_table(const Table& t, bool use_bold) {
  Layout l = lay_out(t);
  for (size_t k = 0; k < l.cells.size(); ++k) {
    for (size_t i = 0; i < l.cells[k].size(); ++i) {
      if (l.mark[k][i]) l.cells[k][i] += " [" + std::to_string(l.mark[k][i]) + "]";
    }
  }
  std::vector<size_t> w(t.header.size(), 0);
  for (size_t i = 0; i < w.size(); ++i) w[i] = display_width(t.header[i]);
  for (auto& r : l.cells) {
    for (size_t i = 0; i < w.size() && i < r.size(); ++i)
      w[i] = std::max(w[i], display_width(r[i]));
  }
  std::string out =
      "\n" + rule(w, "┌", "┬", "┐") + line(t.header, w, nullptr, false) + rule(w, "├", "┼", "┤");
  for (size_t k = 0; k < l.cells.size(); ++k) {
    out += line(l.cells[k], w, k < t.bold.size() ? &t.bold[k] : nullptr, use_bold);
  }
  out += rule(w, "└", "┴", "┘");
  if (!l.footnotes.empty()) out += "\n";
  for (size_t n = 0; n < l.footnotes.size(); ++n)
    out += "[" + std::to_string(n + 1) + "] " + l.footnotes[n] + "\n";
  return out;
}

bool stdout_wants_bold() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* force = std::getenv("FORCE_COLOR");
  if (force && *force) return true;
  return isatty(1) != 0;
}

}  // namespace sched2cu::harness
