// Self-contained HTML pages with inline SVG: escaping of every text that reaches a page (op
// names, Python source lines, role and case names, error messages are all user input), a small
// SVG element builder, and the page shell (inline stylesheet, a Content-Security-Policy that
// forbids scripts and every fetch). It must never write JavaScript, a reference to anything
// outside the page, or a string from its callers unescaped; its output is byte-stable (no
// dates, no locale-dependent numbers).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sched2cu::html {

// `s` safe as HTML or SVG text and inside a double- or single-quoted attribute value: & < > " '
// as character references; every byte that is not part of valid UTF-8, and every control
// character but tab and newline (XML forbids them inside SVG), as U+FFFD.
std::string escape(std::string_view s);

// A coordinate or length: rounded to `decimals` decimals (one by default), trailing zeros and
// a trailing '.' dropped, never "-0", always with '.' (byte-stable whatever the locale).
std::string num(double v, int decimals = 1);

// `s` cut to at most `max` code points, its last one "…" when cut (labels in fixed-width boxes).
std::string clip(std::string_view s, size_t max);

// An element's attributes in the order written. Names are the caller's constants; values are
// escaped when written.
using Attrs = std::vector<std::pair<std::string, std::string>>;

// One inline <svg> element, built in document order. open()/close() nest groups, links and
// other containers; str() requires every one to be closed.
class Svg {
 public:
  // `label` is the picture's accessible name (aria-label).
  Svg(double width, double height, std::string_view label);

  void rect(double x, double y, double w, double h, const Attrs& a = {});
  void line(double x1, double y1, double x2, double y2, const Attrs& a = {});
  void text(double x, double y, std::string_view s, const Attrs& a = {});
  // The tooltip of the innermost open element (an SVG <title>: shown on hover, no script).
  void title(std::string_view s);
  void open(const std::string& tag, const Attrs& a = {});
  void close();
  std::string str() const;

 private:
  void start(const std::string& tag, const Attrs& a);
  std::string out_;
  std::vector<std::string> open_;
};

// A whole page: doctype, UTF-8, `title`, the shared stylesheet and `body` (HTML the caller has
// already escaped). The Content-Security-Policy allows inline styles and nothing else, so even
// a page edited by hand cannot run a script or reach the network.
std::string page(std::string_view title, std::string_view body);

// <tag attrs>escape(text)</tag>, for short elements of a page body.
std::string element(const std::string& tag, std::string_view text, const Attrs& a = {});

}  // namespace sched2cu::html
