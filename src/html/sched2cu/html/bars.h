// Horizontal grouped bar charts as inline SVG: one group of bars per shape, one bar per series
// (generated, hand-written, vendor, ...), each as long as its value relative to the largest of
// the chart and labelled with the caller's text for it. Pure layout of the numbers it is given:
// it never computes or rounds a figure of its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sched2cu::html {

struct Bar {
  double value = 0;     // > 0; the length scale
  std::string label;    // shown after the bar ("612 TFLOPS")
  bool failed = false;  // drawn outlined in red with "FAIL" after the label
};

struct Series {
  std::string name;                      // legend and tooltip ("generated", "main hand-written")
  std::string colour;                    // fill, "#rrggbb"
  std::vector<std::optional<Bar>> bars;  // per group; nullopt = no figure ("-")
};

struct BarChart {
  std::string title;                // the picture's accessible name
  std::vector<std::string> groups;  // group labels, top to bottom ("1024x1024x1024")
  std::vector<Series> series;       // in legend and bar order
};

// The chart as one <svg>: a legend, then per group its label and one bar per series. Every bar
// is a <g class="bar" data-series="NAME" data-group="LABEL"> holding its rect and a tooltip.
// A chart without groups or series is an empty string.
std::string render_bar_chart(const BarChart& c);

}  // namespace sched2cu::html
