// The SVG pictures of a schedule page (see draw.h). Geometry: a label column on the left and a
// cycle axis of fixed width; every box, slot and bar is placed by the graph's own numbers.
#include "draw.h"

#include <algorithm>
#include <cmath>

#include "sched2cu/html/html.h"

namespace sched2cu::show {

namespace {

using html::Svg;

constexpr double kLabelW = 150;  // label column
constexpr double kAxisW = 960;   // the cycle axis
constexpr double kBoxW = 124;    // a node box in the role lanes, with its gap
constexpr double kBoxH = 27, kRowH = 31;
constexpr double kCharW = 6.1;  // DejaVu Sans Mono at 10 px

std::string n(int64_t v) { return std::to_string(v); }

// A tick step of about `span` / 8: 1, 2 or 5 times a power of ten.
int64_t tick_step(int64_t span) {
  const double raw = std::max(1.0, static_cast<double>(span) / 8.0);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return std::max<int64_t>(1, static_cast<int64_t>(m * p));
  return static_cast<int64_t>(10 * p);
}

// Tick marks and cycle numbers along the top of a picture, and faint lines down to `bottom`.
void axis(Svg& s, int64_t span, double top, double bottom) {
  const int64_t step = tick_step(span);
  for (int64_t c = 0; c <= span; c += step) {
    const double x = kLabelW + static_cast<double>(c) / static_cast<double>(span) * kAxisW;
    s.line(x, top + 14, x, bottom, {{"stroke", "#e4e4e4"}});
    s.text(x, top + 10, n(c), {{"class", "small"}, {"text-anchor", "middle"}});
  }
}

double x_of(int64_t cycle, int64_t span) {
  return kLabelW +
         static_cast<double>(cycle) / static_cast<double>(std::max<int64_t>(span, 1)) * kAxisW;
}

std::string node_title(const sgraph::Node& nd, const NodeText& t, const std::string& role) {
  std::string s = "node " + n(nd.id) + ": " + t.op;
  if (!t.name.empty()) s += " (" + t.name + ")";
  s += "\n" + (t.where.empty() ? std::string("no source location") : t.where);
  if (!t.python.empty()) s += ": " + t.python;
  s += "\nrole " + role + ", pipeline " + nd.pipeline + ", cycle " + n(nd.cycle) + ", stage " +
       n(nd.stage) + ", order " + n(nd.order);
  s += "\nlatency " + n(nd.latency) + ", issue " + n(nd.issue_cost) + ", occupancy " +
       n(nd.occupancy);
  if (nd.child_loop >= 0) s += "\nsuper-node of loop " + n(nd.child_loop);
  return s;
}

const char* kSegmentColours[] = {"#9ecae1", "#fdd0a2", "#a1d99b", "#dadaeb",
                                 "#fcbba1", "#c7e9c0", "#d9d9d9", "#bcbddc"};

}  // namespace

std::string stage_colour(int stage) {
  // Okabe-Ito, lightened enough for black text.
  static const char* kStages[] = {"#56b4e9", "#e69f00", "#40c09a", "#e08fc0",
                                  "#f0e442", "#7fa9d9", "#e6825a", "#b3b3b3"};
  return kStages[static_cast<size_t>(std::max(stage, 0)) % std::size(kStages)];
}

std::string draw_bounds(const Bounds& b) {
  struct Row {
    std::string what;
    int64_t cycles;
  };
  std::vector<Row> rows;
  for (const auto& l : b.engine) rows.push_back({"engine " + l.what, l.cycles});
  for (const auto& l : b.issue) rows.push_back({"issue " + l.what, l.cycles});
  rows.push_back({"RecMII", b.rec_mii});
  if (b.super > 0) rows.push_back({"super-node latency", b.super});
  int64_t top = b.ii;
  for (const auto& r : rows) top = std::max(top, r.cycles);
  const double h = 16 + static_cast<double>(rows.size()) * 16;
  Svg s(kLabelW + kAxisW + 80, h + 4, "II and its bounds");
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = 14 + static_cast<double>(i) * 16;
    const bool binding = rows[i].cycles == b.mii;
    s.text(kLabelW - 8, y + 10, rows[i].what, {{"text-anchor", "end"}});
    const double w = static_cast<double>(rows[i].cycles) / static_cast<double>(top) * kAxisW;
    s.open("g", {{"class", "bound"}});
    s.rect(kLabelW, y, std::max(w, 1.0), 12, {{"fill", binding ? "#e69f00" : "#9ecae1"}});
    s.title(rows[i].what + ": " + n(rows[i].cycles) + " cycles per iteration" +
            (binding ? " (sets the MII)" : ""));
    s.close();
    s.text(kLabelW + w + 6, y + 10, n(rows[i].cycles));
  }
  const double xi = kLabelW + static_cast<double>(b.ii) / static_cast<double>(top) * kAxisW;
  s.line(xi, 10, xi, h, {{"stroke", "#b00020"}, {"stroke-dasharray", "4 3"}});
  s.text(xi, 9, "II " + n(b.ii), {{"text-anchor", "middle"}, {"class", "fail"}});
  return s.str();
}

std::string draw_mrt(const Mrt& t, const sgraph::Loop& loop, const std::vector<NodeText>& texts) {
  constexpr double kLaneH = 18;
  std::vector<double> row_y;
  double y = 18;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    row_y.push_back(y);
    y += static_cast<double>(t.lanes[r]) * kLaneH + 6;
  }
  Svg s(kLabelW + kAxisW + 20, y + 4, "modulo reservation table");
  axis(s, t.ii, 0, y);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const double h = static_cast<double>(t.lanes[r]) * kLaneH;
    s.rect(kLabelW, row_y[r], kAxisW, h, {{"fill", "none"}, {"stroke", "#bbb"}});
    s.text(kLabelW - 8, row_y[r] + h / 2 + 4, t.rows[r], {{"text-anchor", "end"}});
  }
  for (const Slot& sl : t.slots) {
    const auto& nd = loop.nodes[static_cast<size_t>(sl.node)];
    const double x = x_of(sl.start, t.ii);
    const double w = std::max(1.0, x_of(sl.start + sl.len, t.ii) - x);
    const double top = row_y[sl.row] + static_cast<double>(sl.lane) * kLaneH + 2;
    s.open("g", {{"class", "slot"}, {"data-node", n(sl.node)}});
    s.rect(x, top, w, kLaneH - 4,
           {{"fill", stage_colour(nd.stage)}, {"stroke", "#333"}, {"stroke-width", "0.5"}});
    const bool issue = sl.row >= std::size(kPipelines);
    s.title("node " + n(sl.node) + " " + texts[static_cast<size_t>(sl.node)].op + ": " +
            (issue ? "issue " + n(nd.issue_cost) : nd.pipeline + " occupancy " + n(nd.occupancy)) +
            " from cycle " + n(nd.cycle) + " = column " + n(nd.cycle % t.ii) + " of II " + n(t.ii) +
            ", stage " + n(nd.stage));
    if (w >= 22) s.text(x + 3, top + 11, "n" + n(sl.node), {{"class", "mono"}});
    s.close();
  }
  return s.str();
}

std::string draw_lanes(const sgraph::ScheduleGraph& g, size_t loop,
                       const std::vector<NodeText>& texts) {
  const sgraph::Loop& L = g.loops[loop];
  const int64_t span0 = static_cast<int64_t>(std::max(L.stages, 1)) * std::max(L.ii, 1);
  const double box_cycles = kBoxW / kAxisW * static_cast<double>(span0);
  const Lanes lanes = role_lanes(g, loop, box_cycles);
  std::vector<double> lane_y;
  double y = 34;
  for (int rows : lanes.rows) {
    lane_y.push_back(y);
    y += static_cast<double>(rows) * kRowH + 10;
  }
  Svg s(kLabelW + kAxisW + kBoxW + 10, y + 4, "nodes by role and cycle");
  for (int st = 0; st < std::max(L.stages, 1); ++st) {
    const double x0 = x_of(int64_t{st} * L.ii, lanes.span);
    const double x1 = x_of(int64_t{st + 1} * L.ii, lanes.span);
    s.rect(x0, 16, x1 - x0, y - 16, {{"fill", st % 2 ? "#f4f4f4" : "#fafafa"}});
    s.text((x0 + x1) / 2, 30, "stage " + n(st), {{"text-anchor", "middle"}, {"class", "small"}});
  }
  axis(s, lanes.span, 0, y);
  for (size_t l = 0; l < lanes.names.size(); ++l) {
    const double h = static_cast<double>(lanes.rows[l]) * kRowH;
    s.line(0, lane_y[l] - 5, kLabelW + kAxisW, lane_y[l] - 5, {{"stroke", "#ccc"}});
    std::string what = lanes.names[l];
    if (lanes.roles[l] >= 0) {
      const auto& r = g.launch.roles[static_cast<size_t>(lanes.roles[l])];
      what += " (" + r.kind + ")";
    }
    s.text(kLabelW - 8, lane_y[l] + h / 2, what, {{"text-anchor", "end"}});
  }
  const auto chars = static_cast<size_t>((kBoxW - 12) / kCharW);
  for (const Box& b : lanes.boxes) {
    const auto& nd = L.nodes[static_cast<size_t>(b.node)];
    const NodeText& t = texts[static_cast<size_t>(b.node)];
    const double x = x_of(nd.cycle, lanes.span);
    const double top = lane_y[b.lane] + static_cast<double>(b.row) * kRowH;
    s.open("g", {{"class", "node"},
                 {"data-loop", n(static_cast<int64_t>(loop))},
                 {"data-node", n(nd.id)},
                 {"data-stage", n(nd.stage)}});
    s.title(node_title(nd, t, role_name(g, nd.role)));
    if (nd.child_loop >= 0) s.open("a", {{"href", "#loop-" + n(nd.child_loop)}});
    s.rect(x, top, kBoxW - 6, kBoxH,
           {{"rx", "3"},
            {"fill", stage_colour(nd.stage)},
            {"stroke", "#333"},
            {"stroke-width", "0.6"}});
    // The box drops the op's dialect ("tt.", "ttng."): the tooltip and the table keep it.
    const size_t dot = t.op.find('.');
    std::string first =
        "n" + n(nd.id) + " " + (dot == std::string::npos ? t.op : t.op.substr(dot + 1));
    if (nd.child_loop >= 0) first += " -> loop " + n(nd.child_loop);
    s.text(x + 4, top + 11, html::clip(first, chars), {{"class", "mono"}});
    const std::string second = (t.line.empty() ? "" : t.line + " ") + "@" + n(nd.cycle);
    s.text(x + 4, top + 23, html::clip(second, chars), {{"class", "mono"}});
    if (nd.child_loop >= 0) s.close();
    s.close();
  }
  return s.str();
}

std::string draw_rings(const sgraph::ScheduleGraph& g, size_t loop) {
  const sgraph::Loop& L = g.loops[loop];
  const std::vector<Lifetime> lives = ring_lifetimes(g, loop);
  if (lives.empty()) return "";
  int64_t span = 1;
  for (const auto& l : lives) span = std::max({span, l.end, l.start + int64_t{l.depth} * L.ii});
  constexpr double kH = 24;
  const double h = 18 + static_cast<double>(lives.size()) * kH;
  Svg s(kLabelW + kAxisW + 190, h + 4, "ring lifetimes against depth");
  axis(s, span, 0, h);
  for (size_t i = 0; i < lives.size(); ++i) {
    const Lifetime& l = lives[i];
    const double y = 20 + static_cast<double>(i) * kH;
    s.text(kLabelW - 8, y + 12, "ring " + n(l.ring) + ", buffer " + n(l.buffer),
           {{"text-anchor", "end"}});
    s.open("g", {{"class", "ring"}, {"data-ring", n(l.ring)}, {"data-buffer", n(l.buffer)}});
    for (int k = 0; k < l.depth; ++k) {
      const double x0 = x_of(l.start + int64_t{k} * L.ii, span);
      const double x1 = x_of(l.start + int64_t{k + 1} * L.ii, span);
      s.rect(x0, y, x1 - x0, 16, {{"fill", "#eef3f8"}, {"stroke", "#8aa"}});
    }
    const double xs = x_of(l.start, span), xe = x_of(l.end, span);
    s.rect(xs, y + 4, std::max(1.0, xe - xs), 8, {{"fill", "#0072b2"}});
    const double ratio = static_cast<double>(l.end - l.start) / static_cast<double>(L.ii);
    const std::string what =
        "span " + n(l.end - l.start) + " = " + html::num(ratio, 2) + " II, depth " + n(l.depth);
    s.title("buffer " + n(l.buffer) + " of ring " + n(l.ring) + ": live from cycle " + n(l.start) +
            " (producer issue) to " + n(l.end) + " (last consumer done): " + what + " (" +
            n(l.depth) + " slots of one II each from the issue)");
    s.close();
    s.text(std::max(xe, x_of(l.start + int64_t{l.depth} * L.ii, span)) + 6, y + 12, what);
  }
  return s.str();
}

std::string draw_budget(const Budget& b, std::string_view label) {
  int64_t top = std::max<int64_t>(b.limit, 1);
  for (const auto& r : b.rows) top = std::max(top, r.total());
  constexpr double kH = 26;
  const double h = 20 + static_cast<double>(b.rows.size()) * kH;
  Svg s(kLabelW + kAxisW + 210, h + 4, label);
  auto x = [&](int64_t v) { return x_of(v, top); };
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const BudgetRow& r = b.rows[i];
    const double y = 20 + static_cast<double>(i) * kH;
    s.text(kLabelW - 8, y + 13, html::clip(r.what, 26), {{"text-anchor", "end"}});
    int64_t at = 0;
    for (size_t k = 0; k < r.parts.size(); ++k) {
      const Segment& p = r.parts[k];
      const double x0 = x(at), x1 = x(at + p.amount);
      s.open("g", {{"class", "segment"}});
      s.rect(x0, y, std::max(1.0, x1 - x0), 18,
             {{"fill", kSegmentColours[k % std::size(kSegmentColours)]},
              {"stroke", "#555"},
              {"stroke-width", "0.5"}});
      s.title(p.what + ": " + n(p.amount) + " " + b.unit);
      const auto fit = static_cast<size_t>((x1 - x0 - 6) / 6.2);
      if (fit >= 6) s.text(x0 + 3, y + 13, html::clip(p.what, fit), {{"class", "small"}});
      s.close();
      at += p.amount;
    }
    const int64_t pct = b.limit > 0 ? (r.total() * 100 + b.limit / 2) / b.limit : 0;
    html::Attrs over;
    if (r.total() > b.limit) over.emplace_back("class", "fail");
    s.text(std::max(x(at), x(b.limit)) + 6, y + 13,
           n(r.total()) + " " + b.unit + " (" + n(pct) + "% of the limit)", over);
  }
  s.line(x(b.limit), 12, x(b.limit), h, {{"stroke", "#b00020"}, {"stroke-dasharray", "4 3"}});
  s.text(x(b.limit), 10, "limit " + n(b.limit) + " " + b.unit,
         {{"text-anchor", "middle"}, {"class", "fail"}});
  return s.str();
}

}  // namespace sched2cu::show
