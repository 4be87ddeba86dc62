// Box-drawing table rendering (see table.h).
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
  std::vector<size_t> w(t.header.size(), 0);
  for (size_t i = 0; i < w.size(); ++i) w[i] = display_width(t.header[i]);
  for (auto& r : t.rows) {
    for (size_t i = 0; i < w.size() && i < r.size(); ++i)
      w[i] = std::max(w[i], display_width(r[i]));
  }
  std::string out =
      "\n" + rule(w, "┌", "┬", "┐") + line(t.header, w, nullptr, false) + rule(w, "├", "┼", "┤");
  for (size_t k = 0; k < t.rows.size(); ++k) {
    out += line(t.rows[k], w, k < t.bold.size() ? &t.bold[k] : nullptr, use_bold);
  }
  return out + rule(w, "└", "┴", "┘");
}

bool stdout_wants_bold() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* force = std::getenv("FORCE_COLOR");
  if (force && *force) return true;
  return isatty(1) != 0;
}

}  // namespace sched2cu::harness
