// The schedule page: HTML around the pictures of draw.cpp, the tables, the Python source lines
// and the index page (see page.h).
#include "sched2cu/show/page.h"

#include <map>

#include "draw.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/html/html.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/show/view.h"

namespace sched2cu::show {

namespace fs = std::filesystem;
using html::element;
using html::escape;

namespace {

std::string n(int64_t v) { return std::to_string(v); }

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Python lines by file, each file read once.
class Lines {
 public:
  explicit Lines(SourceReader r) : read_(std::move(r)) {}
  std::string at(const std::string& file, int line) {
    if (!read_ || line <= 0) return "";
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      if (auto text = read_(file)) {
        size_t at = 0;
        while (at <= text->size()) {
          const size_t nl = text->find('\n', at);
          lines.push_back(text->substr(at, nl == std::string::npos ? std::string::npos : nl - at));
          if (nl == std::string::npos) break;
          at = nl + 1;
        }
      }
      it = files_.emplace(file, std::move(lines)).first;
    }
    const auto k = static_cast<size_t>(line - 1);
    return k < it->second.size() ? trim(it->second[k]) : "";
  }

 private:
  SourceReader read_;
  std::map<std::string, std::vector<std::string>> files_;
};

NodeText text_of(const ttgir::Op& op, Lines& lines) {
  NodeText t;
  t.op = op.name;
  t.name = op.loc.name;
  const SourceLoc& at = op.loc.src.known() ? op.loc.src : op.loc.ir;
  if (at.known()) {
    t.where = at.str();
    t.line = at.file + ":" + n(at.line);
  }
  if (op.loc.src.known()) t.python = lines.at(op.loc.src.file, op.loc.src.line);
  return t;
}

std::string cell(const std::string& s, bool number = false) {
  return number ? element("td", s, {{"class", "num"}}) : element("td", s);
}

std::string row(const std::vector<std::string>& cells) {
  std::string s = "<tr>";
  for (const auto& c : cells) s += c;
  return s + "</tr>\n";
}

std::string header(const std::vector<std::string>& names) {
  std::string s = "<tr>";
  for (const auto& h : names) s += element("th", h);
  return s + "</tr>\n";
}

std::string shape_of(const std::vector<int>& shape) {
  std::string s;
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? "x" : "") + n(shape[d]);
  return s;
}

std::string ids(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + n(v[i]);
  return s;
}

std::string kernel_section(const sgraph::ScheduleGraph& g) {
  const auto& L = g.launch;
  std::string grid;
  for (size_t i = 0; i < L.grid.size(); ++i) grid += (i ? ", " : "") + sgraph::to_text(L.grid[i]);
  std::string s = element("h1", "kernel " + g.kernel.name);
  std::string facts = "scheduled from " + g.kernel.source + " · target " + g.target.name + " · " +
                      n(L.warpgroups) + " warpgroups (" + n(int64_t{128} * L.warpgroups) +
                      " threads) · grid (" + grid + ")";
  if (L.raster_group > 0) facts += " · raster groups of " + n(L.raster_group);
  if (L.ctas_per_sm > 1) facts += " · " + n(L.ctas_per_sm) + " CTAs per SM";
  if (!L.load_path.empty())
    facts += std::string(" · tile loads: ") +
             (L.load_path == "global" ? "plain loads, no producer" : "TMA rings");
  s += element("p", facts, {{"class", "muted"}}) + "\n";
  s += "<table>\n" +
       header({"role", "name", "kind", "warpgroups", "registers", "split", "ping-pong"});
  // One role runs no setmaxnreg: its registers are the launch bounds'.
  const std::string how = L.roles.size() > 1 ? " (setmaxnreg)" : " (launch bounds)";
  for (const auto& r : L.roles)
    s += row({cell(n(r.id), true), cell(r.name), cell(r.kind), cell(ids(r.warpgroups)),
              cell(n(r.regs) + " of " + n(g.target.max_regs_per_thread) + how, true),
              cell(r.split_parts > 1 ? "dim " + n(r.split_dim) + " into " + n(r.split_parts) : "-"),
              cell(r.pingpong ? "yes" : "no")});
  s += "</table>\n";
  s += element("h2", "Budgets", {{"id", "budgets"}}) + "\n";
  s +=
      element("h3", "Registers per SM") + "\n" + draw_budget(register_budget(g), "register budget");
  s += element("h3", "Shared memory per block, by when it is live") + "\n" +
       draw_budget(smem_budget(g), "shared-memory budget");
  s += element("p",
               "Buffers at bytes x depth; alignment padding and mbarriers are not drawn. The "
               "emitter may overlay function-scope staging on the rings once the loops are done, "
               "and stores of one shape share their staging (docs/emitter.md).",
               {{"class", "muted"}}) +
       "\n";
  return s;
}

// Every buffer and function-scope channel, after the loops: the details behind the budget bars.
std::string buffers_section(const sgraph::ScheduleGraph& g) {
  std::string s = element("h2", "Buffers", {{"id", "buffers"}}) + "\n";
  s += "<table>\n" + header({"buffer", "shape", "bytes per slot", "depth", "scope", "producer op",
                             "consumer ops", "live"});
  for (const auto& b : g.buffers)
    s += row({cell(n(b.id), true), cell(shape_of(b.shape) + " " + b.elem), cell(n(b.bytes), true),
              cell(n(b.depth), true),
              cell(b.loop < 0 ? "function" : "loop " + n(b.loop) + ", ring " + n(b.ring)),
              cell(n(b.producer_op), true), cell(ids(b.consumer_ops)),
              cell(b.loop < 0 ? "-" : n(b.live_start) + " .. " + n(b.live_end))});
  s += "</table>\n";
  if (!g.channels.empty()) {
    s += element("h3", "Function-scope channels") + "\n<table>\n" +
         header({"channel", "buffer", "producer -> consumer", "mechanism", "expect bytes"});
    for (const auto& c : g.channels)
      s += row(
          {cell(n(c.id), true), cell(n(c.buffer), true),
           cell(show::role_name(g, c.producer_role) + " -> " + show::role_name(g, c.consumer_role)),
           cell(c.mechanism), cell(n(c.expect_bytes), true)});
    s += "</table>\n";
  }
  return s;
}

std::string stage_legend(int stages) {
  std::string s = "<p>stages:";
  for (int st = 0; st < stages; ++st)
    s += "<span class=\"swatch\" style=\"background:" + stage_colour(st) + "\"></span>" +
         escape("stage " + n(st));
  return s + "</p>\n";
}

std::string loop_section(const sgraph::ScheduleGraph& g, size_t li, Lines& lines) {
  const ttgir::Function& f = g.ir.function(g.kernel.name);
  const sgraph::Loop& L = g.loops[li];
  std::vector<NodeText> texts;
  for (const auto& nd : L.nodes) texts.push_back(text_of(f.op(nd.op), lines));
  const NodeText loop_text = text_of(f.op(L.op), lines);
  std::string s = "<section id=\"loop-" + n(static_cast<int64_t>(li)) + "\">\n";
  s += element("h2", "loop " + n(static_cast<int64_t>(li)) + ": scf.for" +
                         (loop_text.where.empty() ? "" : " at " + loop_text.where) + " (op " +
                         n(L.op) + ")") +
       "\n";
  if (!loop_text.python.empty()) s += "<p><code>" + escape(loop_text.python) + "</code></p>\n";
  std::string nest;
  if (L.parent_loop >= 0)
    nest += "inside <a href=\"#loop-" + n(L.parent_loop) + "\">loop " + n(L.parent_loop) + "</a>";
  for (size_t k = 0; k < g.loops.size(); ++k)
    if (g.loops[k].parent_loop == static_cast<int>(li))
      nest += std::string(nest.empty() ? "" : "; ") + "holds <a href=\"#loop-" +
              n(static_cast<int64_t>(k)) + "\">loop " + n(static_cast<int64_t>(k)) + "</a>";
  if (!nest.empty()) s += "<p>" + nest + "</p>\n";
  const Bounds b = bounds(g, li);
  std::string mii = "MII " + n(b.mii) + " = max(ResMII " + n(b.res_mii) + ", RecMII " +
                    n(b.rec_mii) + (b.super > 0 ? ", super-nodes " + n(b.super) : "") + ")";
  s += "<p><b>" + escape("II " + n(b.ii)) + "</b> · " + escape(mii) + " · " +
       (b.optimal ? "<span class=\"ok\">proven optimal</span>"
                  : "<span class=\"fail\">not proven optimal</span>") +
       escape(" · " + n(L.stages) + " stage" + (L.stages == 1 ? "" : "s") + " · " +
              n(static_cast<int64_t>(L.nodes.size())) + " nodes, " +
              n(static_cast<int64_t>(L.edges.size())) + " edges") +
       "</p>\n";
  s += element("h3", "II against its bounds (cycles per iteration)") + "\n" + draw_bounds(b);
  s += element("h3", "Modulo reservation table (cycle within the II)") + "\n" +
       stage_legend(L.stages);
  s += draw_mrt(reservation_table(g, li), L, texts);
  for (const auto& r : g.launch.roles) {
    bool turns = false;
    for (const auto& nd : L.nodes) turns |= r.pingpong && nd.role == r.id && nd.pipeline == "TC";
    if (turns)
      s += element("p",
                   "Role " + r.name +
                       " takes ping-pong turns: its TC nodes are drawn with the "
                       "whole MMA's occupancy from their issue; each of its " +
                       n(static_cast<int64_t>(r.warpgroups.size())) +
                       " warpgroups holds the tensor core for its share of it, one turn apart "
                       "(docs/scheduler.md, \"Ping-pong consumers\").",
                   {{"class", "muted"}}) +
           "\n";
  }
  s += element("h3", "Nodes by role and cycle") + "\n" + draw_lanes(g, li, texts);
  const std::string rings = draw_rings(g, li);
  if (!rings.empty()) {
    s += element("h3", "Ring lifetimes: producer issue to last consumer, against depth x II") +
         "\n" + rings;
    s += "<table>\n" + header({"channel", "ring", "depth", "buffers", "producer -> consumer",
                               "mechanism", "expect bytes", "full / empty arrivals"});
    for (const auto& c : L.channels) {
      const auto& r = L.rings[static_cast<size_t>(c.ring)];
      s += row({cell(n(c.id), true), cell(n(c.ring), true), cell(n(r.depth), true),
                cell(ids(r.buffers)),
                cell(role_name(g, c.producer_role) + " -> " + role_name(g, c.consumer_role)),
                cell(c.mechanism), cell(n(c.expect_bytes), true),
                cell(n(c.full_arrivals) + " / " + n(c.empty_arrivals))});
    }
    s += "</table>\n";
  }
  s += element("h3", "Nodes") + "\n<table>\n" +
       header({"node", "op", "name", "pipeline", "role", "cycle", "stage", "latency", "issue",
               "occupancy", "source", "Python"});
  for (const auto& nd : L.nodes) {
    const NodeText& t = texts[static_cast<size_t>(nd.id)];
    s += row({cell(n(nd.id), true),
              "<td><code>" + escape(t.op) + "</code>" +
                  (nd.child_loop >= 0 ? " <a href=\"#loop-" + n(nd.child_loop) + "\">loop " +
                                            n(nd.child_loop) + "</a>"
                                      : "") +
                  "</td>",
              cell(t.name), cell(nd.pipeline), cell(role_name(g, nd.role)), cell(n(nd.cycle), true),
              cell(n(nd.stage), true), cell(n(nd.latency), true), cell(n(nd.issue_cost), true),
              cell(n(nd.occupancy), true), cell(t.where),
              "<td><code>" + escape(t.python) + "</code></td>"});
  }
  s += "</table>\n</section>\n";
  return s;
}

// Whether `p` names a file below the directory it is read from.
bool inside(const fs::path& p) {
  if (p.empty() || p.is_absolute() || p.has_root_name()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

}  // namespace

std::string render_schedule_page(const sgraph::ScheduleGraph& g, const PageOptions& o) {
  Lines lines(o.sources);
  std::string body = kernel_section(g);
  if (!g.loops.empty()) {
    body += "<nav>sections:";
    for (size_t i = 0; i < g.loops.size(); ++i)
      body += " <a href=\"#loop-" + n(static_cast<int64_t>(i)) + "\">loop " +
              n(static_cast<int64_t>(i)) + "</a>";
    body += " <a href=\"#buffers\">buffers</a></nav>\n";
  } else {
    body += element("p", "The kernel has no scheduled loop.") + "\n";
  }
  for (size_t i = 0; i < g.loops.size(); ++i) body += loop_section(g, i, lines);
  body += buffers_section(g);
  return html::page(o.title.empty() ? g.kernel.name + " schedule" : o.title, body);
}

sgraph::ScheduleGraph read_graph(const fs::path& path) {
  sgraph::ScheduleGraph g = sgraph::read_schedule_graph(path);
  sgraph::validate(g, path.string());
  return g;
}

SourceReader sources_of(const fs::path& graph_path, const sgraph::ScheduleGraph& g) {
  const fs::path source(g.kernel.source);
  fs::path dir;
  if (source.is_absolute()) {
    dir = source.parent_path();
  } else if (auto root = repo_root_of(graph_path)) {
    dir = *root / source.parent_path();
  } else {
    dir = fs::absolute(graph_path).parent_path();
  }
  return [dir](const std::string& file) -> std::optional<std::string> {
    const fs::path p(file);
    if (!inside(p)) return std::nullopt;
    std::error_code ec;
    if (!fs::is_regular_file(dir / p, ec)) return std::nullopt;
    return read_file_if_exists(dir / p);
  };
}

std::string render_index_page(const std::string& title, const std::vector<IndexEntry>& entries) {
  std::string body = element("h1", title) + "\n<table>\n" + header({"case", "kernel"});
  for (const auto& e : entries)
    body += row(
        {"<td><a href=\"" + escape(e.href) + "\">" + escape(e.name) + "</a></td>", cell(e.kernel)});
  body += "</table>\n";
  return html::page(title, body);
}

}  // namespace sched2cu::show
