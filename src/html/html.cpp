// Escaping, numbers, the SVG builder and the page shell (see html.h).
#include "sched2cu/html/html.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace sched2cu::html {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool cont(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  const size_t left = s.size() - i;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && cont(b(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !cont(b(1)) || !cont(b(2))) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(1) > 0x9F) return 0;  // a surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !cont(b(1)) || !cont(b(2)) || !cont(b(3))) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && b(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    // C1 controls are the two-byte sequences C2 80 .. C2 9F.
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    if ((n == 1 && ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)) || c1) {
      out += kReplacement;
    } else if (n > 1) {
      out.append(s.substr(i, n));
    } else {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        default:
          out += static_cast<char>(c);
      }
    }
    i += n;
  }
  return out;
}

std::string num(double v, int decimals) {
  decimals = std::clamp(decimals, 0, 6);
  const double scale = std::pow(10.0, decimals);
  double r = std::round(v * scale) / scale;
  if (r == 0.0 || !std::isfinite(r)) r = 0.0;  // never "-0"; a NaN or infinity would be no length
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, r, std::chars_format::fixed, decimals);
  std::string s(buf, res.ptr);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string clip(std::string_view s, size_t max) {
  size_t points = 0;
  for (unsigned char c : s) points += !cont(c);
  if (points <= max) return std::string(s);
  if (max == 0) return "";
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if (!cont(static_cast<unsigned char>(s[i])) && seen++ == max - 1) break;
  }
  return std::string(s.substr(0, i)) + "…";
}

namespace {

std::string attrs_text(const Attrs& a) {
  std::string s;
  for (const auto& [k, v] : a) s += " " + k + "=\"" + escape(v) + "\"";
  return s;
}

}  // namespace

Svg::Svg(double width, double height, std::string_view label) {
  out_ = "<svg width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         num(width) + " " + num(height) + "\" role=\"img\" aria-label=\"" + escape(label) + "\">\n";
}

void Svg::start(const std::string& tag, const Attrs& a) { out_ += "<" + tag + attrs_text(a); }

void Svg::rect(double x, double y, double w, double h, const Attrs& a) {
  start("rect", {{"x", num(x)}, {"y", num(y)}, {"width", num(w)}, {"height", num(h)}});
  out_ += attrs_text(a) + "/>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, const Attrs& a) {
  start("line", {{"x1", num(x1)}, {"y1", num(y1)}, {"x2", num(x2)}, {"y2", num(y2)}});
  out_ += attrs_text(a) + "/>\n";
}

void Svg::text(double x, double y, std::string_view s, const Attrs& a) {
  start("text", {{"x", num(x)}, {"y", num(y)}});
  out_ += attrs_text(a) + ">" + escape(s) + "</text>\n";
}

void Svg::title(std::string_view s) { out_ += "<title>" + escape(s) + "</title>\n"; }

void Svg::open(const std::string& tag, const Attrs& a) {
  start(tag, a);
  out_ += ">\n";
  open_.push_back(tag);
}

void Svg::close() {
  if (open_.empty()) throw std::logic_error("Svg::close without an open element");
  out_ += "</" + open_.back() + ">\n";
  open_.pop_back();
}

std::string Svg::str() const {
  if (!open_.empty()) throw std::logic_error("Svg::str with <" + open_.back() + "> still open");
  return out_ + "</svg>\n";
}

std::string element(const std::string& tag, std::string_view text, const Attrs& a) {
  return "<" + tag + attrs_text(a) + ">" + escape(text) + "</" + tag + ">";
}

namespace {

// One stylesheet for every page: show's pictures and the harness reports look alike.
constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, "DejaVu Sans", sans-serif; margin: 24px; color: #1b1b1b;
       background: #fff; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 2px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 20px 0 4px; }
p { margin: 4px 0; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #c8c8c8; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 12px; }
svg { display: block; margin: 6px 0 14px; }
svg text { font: 11px "DejaVu Sans", sans-serif; fill: #1b1b1b; }
svg text.mono { font-family: "DejaVu Sans Mono", monospace; font-size: 10px; }
svg text.small { font-size: 9px; fill: #555; }
svg text.fail { fill: #b00020; font-weight: 600; }
.muted { color: #666; }
.fail { color: #b00020; font-weight: 600; }
.ok { color: #0a7d32; }
.swatch { display: inline-block; width: 11px; height: 11px; margin: 0 4px 0 12px;
          vertical-align: -1px; border: 1px solid rgba(0, 0, 0, 0.3); }
ol.notes { font-size: 13px; }
.pre { white-space: pre-wrap; font-family: "DejaVu Sans Mono", ui-monospace, monospace;
       font-size: 12px; }
nav a { margin-right: 12px; }
.charts { display: flex; flex-wrap: wrap; column-gap: 48px; }
)";

}  // namespace

std::string page(std::string_view title, std::string_view body) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'\">\n";
  s += "<title>" + escape(title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n";
  s += "</head>\n<body>\n";
  s += body;
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace sched2cu::html
