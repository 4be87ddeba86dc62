// The HTML pages of compare and bench (see html_report.h).
#include "sched2cu/harness/html_report.h"

#include <algorithm>
#include <optional>

#include "sched2cu/harness/git.h"
#include "sched2cu/harness/table.h"
#include "sched2cu/html/html.h"

namespace sched2cu::harness {

namespace {

using html::escape;

struct Kind {
  const char* kind;
  const char* name;
  const char* colour;  // the measured side's; compare's revision side uses `light`
  const char* light;
};

// One entry per kTimedKinds, in its order.
const Kind kKinds[] = {{"gen", "generated", "#0072b2", "#7fb8d8"},
                       {"hw", "hand-written", "#e69f00", "#f2cf80"},
                       {"triton", "Triton", "#009e73", "#80cfb9"},
                       {"vendor", "vendor", "#cc79a7", "#e5bcd3"},
                       {"copy", "roofline copy", "#7f7f7f", "#bfbfbf"}};

const Kind& kind_info(const std::string& kind) {
  for (const Kind& k : kKinds)
    if (kind == k.kind) return k;
  return kKinds[0];
}

// The labels of the timed shapes of `ms`, in order of first appearance.
std::vector<std::string> timed_shapes(const std::vector<const Measurement*>& ms) {
  std::vector<std::string> out;
  for (const Measurement* m : ms)
    for (const ShapeResult& s : m->shapes)
      if (s.timed && std::find(out.begin(), out.end(), s.label) == out.end())
        out.push_back(s.label);
  return out;
}

// The series of `kind` in `m` over `groups`, or nullopt when no shape has a figure for it.
std::optional<html::Series> series_of(const Measurement& m, const std::string& kind,
                                      const std::vector<std::string>& groups, std::string name,
                                      std::string colour) {
  html::Series s{std::move(name), std::move(colour), {}};
  bool any = false;
  for (const std::string& g : groups) {
    std::optional<html::Bar> bar;
    for (const ShapeResult& r : m.shapes) {
      if (!r.timed || r.label != g) continue;
      if (const auto& t = timing_of(r, kind)) {
        bar = html::Bar{t->throughput, format_throughput(t->throughput, r.unit),
                        !passed_check(r, kind)};
        any = true;
      }
    }
    s.bars.push_back(bar);
  }
  if (!any) return std::nullopt;
  return s;
}

std::string device_line(const nlohmann::json& d) {
  if (!d.is_object() || !d.contains("name")) return "";
  return "<p class=\"muted\">" +
         escape("measured on " + d.value("name", std::string("?")) + " (cc " +
                d.value("cc", std::string("?")) + ", " + std::to_string(d.value("sm_count", 0)) +
                " SMs)") +
         "</p>\n";
}

std::string chart_section(const std::string& name, const html::BarChart& c) {
  if (c.groups.empty() || c.series.empty()) return "";
  return "<div>" + html::element("h3", name) + "\n" + html::render_bar_chart(c) + "</div>\n";
}

}  // namespace

html::BarChart bench_chart(const std::string& name, const Measurement& m) {
  html::BarChart c;
  c.title = name + ": throughput per shape";
  if (!m.error.empty()) return c;
  c.groups = timed_shapes({&m});
  for (const char* kind : kTimedKinds) {
    const Kind& k = kind_info(kind);
    std::string label = k.name;
    if (std::string(kind) == "vendor" && !m.vendor_name.empty()) label = m.vendor_name;
    if (auto s = series_of(m, kind, c.groups, label, k.colour)) c.series.push_back(std::move(*s));
  }
  return c;
}

html::BarChart compare_chart(const CompareRow& row, const std::string& rev) {
  html::BarChart c;
  c.title = row.name + ": throughput per shape";
  std::vector<const Measurement*> ms;
  if (row.left_m && row.left_m->error.empty()) ms.push_back(&*row.left_m);
  if (row.right_m && row.right_m->error.empty()) ms.push_back(&*row.right_m);
  c.groups = timed_shapes(ms);
  const std::string label = rev_label(rev);
  // compare times the generated and hand-written kernels, and with --triton Triton's beside
  // the working tree's generated one.
  auto add = [&](const std::optional<Measurement>& m, const std::string& side, bool light) {
    if (!m || !m->error.empty()) return;
    for (const char* kind : {"gen", "hw", "triton"}) {
      const Kind& k = kind_info(kind);
      if (auto s = series_of(*m, kind, c.groups, side + " " + k.name, light ? k.light : k.colour))
        c.series.push_back(std::move(*s));
    }
  };
  add(row.left_m, row.status == "unchanged" ? label + " = branch" : label, true);
  add(row.right_m, "branch", false);
  return c;
}

std::string compare_html(const std::vector<CompareRow>& rows, const std::string& rev,
                         const nlohmann::json& device, bool triton) {
  const std::string label = rev_label(rev);
  std::string body = html::element("h1", "sched2cu compare: " + label + " vs branch") + "\n";
  body += device_line(device);
  body += render_html(compare_table(rows, rev, triton));
  body += "<p class=\"pre muted\">" + escape(compare_note(rev, triton)) + "</p>\n";
  std::string charts;
  for (const CompareRow& r : rows) charts += chart_section(r.name, compare_chart(r, rev));
  if (!charts.empty())
    body += html::element("h2", "Throughput per shape") + "\n<div class=\"charts\">\n" + charts +
            "</div>\n";
  return html::page("sched2cu compare " + label, body);
}

std::string bench_html(const std::vector<CaseRow>& rows, const nlohmann::json& device) {
  std::string body = html::element("h1", "sched2cu bench") + "\n" + device_line(device);
  const Table t = bench_table(rows);
  body += render_html(t);
  body += "<p class=\"pre muted\">" + escape(bench_note(t)) + "</p>\n";
  std::string charts;
  for (const CaseRow& r : rows)
    if (r.m) charts += chart_section(r.name, bench_chart(r.name, *r.m));
  if (!charts.empty())
    body += html::element("h2", "Throughput per shape") + "\n<div class=\"charts\">\n" + charts +
            "</div>\n";
  return html::page("sched2cu bench", body);
}

}  // namespace sched2cu::harness
