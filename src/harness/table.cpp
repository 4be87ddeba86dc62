// Table rendering: footnotes for long cells, box drawing (see table.h).
#include "sched2cu/harness/table.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "sched2cu/html/html.h"

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

// A footnote: which cell ("<row's first cell>, <column>") and its whole text (lines split by
// '\n').
struct Footnote {
  std::string key, text;
};

// What the renderers draw: every cell as shown (without its footnote mark), the footnote number
// of each cell (0 = none) and the footnotes in row order.
struct Layout {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::vector<size_t>> mark;
  std::vector<Footnote> footnotes;
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
      std::string column = i < t.header.size() ? t.header[i] : std::to_string(i);
      l.footnotes.push_back({i ? t.rows[k][0] + ", " + column : column, note});
      mark[i] = l.footnotes.size();
    }
    l.cells.push_back(std::move(cells));
    l.mark.push_back(std::move(mark));
  }
  return l;
}

// `s` with every '\n' replaced by `sep`.
std::string join_lines(const std::string& s, const std::string& sep) {
  std::string out;
  for (char ch : s) {
    if (ch == '\n')
      out += sep;
    else
      out += ch;
  }
  return out;
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
  for (size_t n = 0; n < l.footnotes.size(); ++n) {
    out += "[" + std::to_string(n + 1) + "] " + l.footnotes[n].key + ": " +
           join_lines(l.footnotes[n].text, "\n    ") + "\n";
  }
  return out;
}

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string markdown_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // '_' inside a word never emphasizes (case1_simple_gemm stays readable); elsewhere it may.
    const bool inner_underscore =
        c == '_' && i > 0 && i + 1 < s.size() && word_char(s[i - 1]) && word_char(s[i + 1]);
    if (std::string_view("\\`*_[]<>|~").find(c) != std::string_view::npos && !inner_underscore)
      out += '\\';
    out += c;
  }
  return out;
}

std::string render_markdown(const Table& t) {
  Layout l = lay_out(t);
  auto cell = [&](size_t k, size_t i) {
    std::string c = markdown_escape(l.cells[k][i]);
    const bool b = k < t.bold.size() && i < t.bold[k].size() && t.bold[k][i];
    if (b && !c.empty()) c = "**" + c + "**";
    if (l.mark[k][i]) c += " [^" + std::to_string(l.mark[k][i]) + "]";
    return c;
  };
  const size_t n = t.header.size();
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const auto& h : t.header) rows.back().push_back(markdown_escape(h));
  for (size_t k = 0; k < l.cells.size(); ++k) {
    rows.emplace_back();
    for (size_t i = 0; i < n; ++i) rows.back().push_back(cell(k, i));
  }
  std::vector<size_t> w(n, 3);  // a rule cell is at least "---"
  for (const auto& r : rows) {
    for (size_t i = 0; i < n; ++i) w[i] = std::max(w[i], display_width(r[i]));
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s = "|";
    for (size_t i = 0; i < n; ++i)
      s += " " + r[i] + std::string(w[i] - display_width(r[i]), ' ') + " |";
    return s + "\n";
  };
  std::string out = line(rows[0]) + "|";
  for (size_t i = 0; i < n; ++i) out += " " + std::string(w[i], '-') + " |";
  out += "\n";
  for (size_t k = 1; k < rows.size(); ++k) out += line(rows[k]);
  if (!l.footnotes.empty()) out += "\n";
  for (size_t f = 0; f < l.footnotes.size(); ++f) {
    // Continuation lines of a footnote are indented; a trailing backslash keeps each line break.
    out += "[^" + std::to_string(f + 1) + "]: " + markdown_escape(l.footnotes[f].key) + ": " +
           join_lines(markdown_escape(l.footnotes[f].text), "\\\n    ") + "\n";
  }
  return out;
}

std::string render_html(const Table& t) {
  using html::escape;
  Layout l = lay_out(t);
  std::string out = "<table class=\"results\">\n<tr>";
  for (const auto& h : t.header) out += "<th>" + escape(h) + "</th>";
  out += "</tr>\n";
  for (size_t k = 0; k < l.cells.size(); ++k) {
    out += "<tr>";
    for (size_t i = 0; i < t.header.size(); ++i) {
      std::string c = escape(l.cells[k][i]);
      if (k < t.bold.size() && i < t.bold[k].size() && t.bold[k][i] && !c.empty())
        c.insert(0, "<b>").append("</b>");
      if (const size_t m = l.mark[k][i])
        c += " <a href=\"#note-" + std::to_string(m) + "\">[" + std::to_string(m) + "]</a>";
      out += "<td>" + c + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (l.footnotes.empty()) return out;
  out += "<ol class=\"notes\">\n";
  for (size_t f = 0; f < l.footnotes.size(); ++f)
    out += "<li id=\"note-" + std::to_string(f + 1) + "\">" + escape(l.footnotes[f].key) +
           ": <span class=\"pre\">" + escape(l.footnotes[f].text) + "</span></li>\n";
  return out + "</ol>\n";
}

bool stdout_wants_bold() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* force = std::getenv("FORCE_COLOR");
  if (force && *force) return true;
  return isatty(1) != 0;
}

}  // namespace sched2cu::harness
