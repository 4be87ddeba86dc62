// Grouped horizontal bar charts (see bars.h).
#include "sched2cu/html/bars.h"

#include <algorithm>

#include "sched2cu/html/html.h"

namespace sched2cu::html {

namespace {

constexpr double kBarH = 12, kBarGap = 2, kGroupGap = 10, kLegendH = 22;
constexpr double kBarArea = 320, kValueW = 150, kCharW = 6.6;

}  // namespace

std::string render_bar_chart(const BarChart& c) {
  if (c.groups.empty() || c.series.empty()) return "";
  double max_value = 0;
  size_t longest = 0;
  for (const auto& g : c.groups) longest = std::max(longest, g.size());
  for (const auto& s : c.series)
    for (const auto& b : s.bars)
      if (b) max_value = std::max(max_value, b->value);
  const double label_w = std::clamp(static_cast<double>(longest) * kCharW + 12, 80.0, 220.0);
  const double group_h = static_cast<double>(c.series.size()) * (kBarH + kBarGap) + kGroupGap;
  double legend_w = 0;
  for (const auto& s : c.series) legend_w += 26 + static_cast<double>(s.name.size()) * kCharW;
  const double width = std::max(label_w + kBarArea + kValueW, legend_w + 8);
  const double height = kLegendH + static_cast<double>(c.groups.size()) * group_h;
  Svg svg(width, height, c.title);
  double lx = 0;
  for (const auto& s : c.series) {
    svg.rect(lx, 4, 11, 11, {{"fill", s.colour}});
    svg.text(lx + 15, 14, s.name);
    lx += 26 + static_cast<double>(s.name.size()) * kCharW;
  }
  for (size_t gi = 0; gi < c.groups.size(); ++gi) {
    const double top = kLegendH + static_cast<double>(gi) * group_h;
    const double mid = top + (group_h - kGroupGap) / 2;
    svg.text(label_w - 8, mid + 4, c.groups[gi], {{"text-anchor", "end"}, {"class", "mono"}});
    for (size_t si = 0; si < c.series.size(); ++si) {
      const Series& s = c.series[si];
      const double y = top + static_cast<double>(si) * (kBarH + kBarGap);
      const Bar* b = gi < s.bars.size() && s.bars[gi] ? &*s.bars[gi] : nullptr;
      if (!b) {
        svg.text(label_w + 2, y + kBarH - 2, "-", {{"class", "small"}});
        continue;
      }
      const double w = max_value > 0 ? std::max(1.0, b->value / max_value * kBarArea) : 1.0;
      svg.open("g", {{"class", "bar"}, {"data-series", s.name}, {"data-group", c.groups[gi]}});
      Attrs a = {{"fill", s.colour}};
      if (b->failed) a.insert(a.end(), {{"stroke", "#b00020"}, {"stroke-width", "2"}});
      svg.rect(label_w, y, w, kBarH, a);
      svg.title(s.name + ", " + c.groups[gi] + ": " + b->label + (b->failed ? " FAIL" : ""));
      svg.text(label_w + w + 5, y + kBarH - 2, b->label);
      if (b->failed)
        svg.text(label_w + w + 10 + static_cast<double>(b->label.size()) * kCharW, y + kBarH - 2,
                 "FAIL", {{"class", "fail"}});
      svg.close();
    }
  }
  return svg.str();
}

}  // namespace sched2cu::html
