// sched2cu_html: every text a page shows is escaped (markup, quotes, bytes that are not UTF-8,
// control characters), numbers are byte-stable, the SVG builder nests and refuses to end
// unbalanced, the page forbids scripts and fetches, and bar charts draw one bar per figure.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sched2cu/html/bars.h"
#include "sched2cu/html/html.h"

using namespace sched2cu::html;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

const std::string kFffd = "\xEF\xBF\xBD";

}  // namespace

TEST(HtmlEscape, MarkupAndQuotes) {
  EXPECT_EQ(escape("<script>alert(\"x\")</script> & 'y'"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
  EXPECT_EQ(escape("a_b c.d"), "a_b c.d");
}

TEST(HtmlEscape, KeepsValidUtf8AndWhitespace) {
  EXPECT_EQ(escape("é “q” 😀 …\tx\ny"), "é “q” 😀 …\tx\ny");
}

TEST(HtmlEscape, ReplacesInvalidUtf8) {
  EXPECT_EQ(escape("a\xFF"
                   "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(escape("\xC0\xAF"), kFffd + kFffd);                          // overlong '/'
  EXPECT_EQ(escape("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // a surrogate
  EXPECT_EQ(escape("x\xE2\x82"), "x" + kFffd + kFffd);                   // cut short at the end
  EXPECT_EQ(escape("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
}

TEST(HtmlEscape, ReplacesControlCharacters) {
  EXPECT_EQ(escape(std::string("a\x01z\x7F\r", 5)), "a" + kFffd + "z" + kFffd + kFffd);
  EXPECT_EQ(escape(std::string("n\0n", 3)), "n" + kFffd + "n");
  EXPECT_EQ(escape("\xC2\x85"), kFffd);       // C1 control NEL
  EXPECT_EQ(escape("\xC2\xA0"), "\xC2\xA0");  // no-break space is text
}

TEST(HtmlNum, RoundsWithoutNoise) {
  EXPECT_EQ(num(3.0), "3");
  EXPECT_EQ(num(2.25), "2.3");
  EXPECT_EQ(num(-0.04), "0");
  EXPECT_EQ(num(1e6), "1000000");
  EXPECT_EQ(num(2.0 / 3.0, 2), "0.67");
  EXPECT_EQ(num(1.5, 2), "1.5");
  EXPECT_EQ(num(-12.34), "-12.3");
}

TEST(HtmlClip, CountsCodePoints) {
  EXPECT_EQ(clip("abcdef", 6), "abcdef");
  EXPECT_EQ(clip("abcdef", 4), "abc…");
  EXPECT_EQ(clip("ééééé", 3), "éé…");
  EXPECT_EQ(clip("abc", 0), "");
}

TEST(HtmlSvg, EscapesTextTitlesAndAttributes) {
  Svg s(100, 50, "a \"label\"");
  s.open("g", {{"class", "node"}, {"data-node", "x\"><script>"}});
  s.rect(1, 2, 3.25, 4, {{"fill", "#fff"}});
  s.title("op <b> & 'q'");
  s.text(5, 6, "</text><script>");
  s.close();
  const std::string out = s.str();
  EXPECT_EQ(out.find("<script"), std::string::npos) << out;
  EXPECT_NE(out.find("aria-label=\"a &quot;label&quot;\""), std::string::npos) << out;
  EXPECT_NE(out.find("data-node=\"x&quot;&gt;&lt;script&gt;\""), std::string::npos) << out;
  EXPECT_NE(out.find("<rect x=\"1\" y=\"2\" width=\"3.3\" height=\"4\" fill=\"#fff\"/>"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<title>op &lt;b&gt; &amp; &#39;q&#39;</title>"), std::string::npos) << out;
  EXPECT_EQ(out.substr(0, 4), "<svg");
  EXPECT_EQ(out.substr(out.size() - 7), "</svg>\n");
}

TEST(HtmlSvg, RefusesUnbalancedElements) {
  Svg s(10, 10, "x");
  EXPECT_THROW(s.close(), std::logic_error);
  s.open("g");
  EXPECT_THROW((void)s.str(), std::logic_error);
  s.close();
  EXPECT_NO_THROW((void)s.str());
}

TEST(HtmlPage, SelfContained) {
  const std::string p = page("t <x>", "<p>body</p>\n");
  EXPECT_EQ(p.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(p.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(p.find("Content-Security-Policy\" content=\"default-src 'none'; style-src "
                   "'unsafe-inline'\""),
            std::string::npos);
  EXPECT_NE(p.find("<title>t &lt;x&gt;</title>"), std::string::npos);
  EXPECT_NE(p.find("<p>body</p>"), std::string::npos);
  EXPECT_EQ(p.find("<script"), std::string::npos);
  EXPECT_EQ(p.find("http://"), std::string::npos);
  EXPECT_EQ(p.find("https://"), std::string::npos);
  EXPECT_EQ(p.find("url("), std::string::npos);
}

TEST(HtmlBars, OneBarPerFigure) {
  BarChart c;
  c.title = "case <1>";
  c.groups = {"1024", "2048", "4096"};
  c.series.push_back(
      {"generated",
       "#0072b2",
       {Bar{600, "600 TFLOPS"}, Bar{650, "650 TFLOPS"}, Bar{700, "700 TFLOPS", true}}});
  c.series.push_back({"hand-<written>", "#e69f00", {Bar{610, "610 TFLOPS"}, std::nullopt}});
  const std::string svg = render_bar_chart(c);
  EXPECT_EQ(count(svg, "<g class=\"bar\""), 4U) << svg;
  EXPECT_EQ(count(svg, "data-series=\"generated\""), 3U);
  EXPECT_EQ(count(svg, "data-series=\"hand-&lt;written&gt;\""), 1U);
  // The failed figure is outlined and says so.
  EXPECT_EQ(count(svg, "stroke=\"#b00020\""), 1U);
  EXPECT_NE(svg.find("generated, 4096: 700 TFLOPS FAIL</title>"), std::string::npos) << svg;
  // The longest bar is the largest value.
  EXPECT_NE(svg.find("width=\"320\" height=\"12\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("aria-label=\"case &lt;1&gt;\""), std::string::npos);
}

TEST(HtmlBars, EmptyChartIsNothing) {
  EXPECT_EQ(render_bar_chart({}), "");
  BarChart c;
  c.groups = {"1"};
  EXPECT_EQ(render_bar_chart(c), "");
}
