// The pictures' model of a schedule graph (see view.h).
#include "sched2cu/show/view.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace sched2cu::show {

namespace {

using sgraph::Loop;
using sgraph::Node;
using sgraph::ScheduleGraph;

// [start, end) within the II; a lane holds intervals that do not overlap.
using Interval = std::pair<int64_t, int64_t>;

bool overlaps(const std::vector<Interval>& lane, const std::vector<Interval>& pieces) {
  for (const auto& [s, e] : pieces)
    for (const auto& [ls, le] : lane)
      if (s < le && ls < e) return true;
  return false;
}

// `len` columns from `cycle` modulo `ii`, as at most two pieces (a reservation longer than the
// II, which the validator allows only outside TMA and TC, is drawn as the whole row).
std::vector<Interval> columns(int64_t cycle, int64_t len, int64_t ii) {
  len = std::min(len, ii);
  const int64_t start = cycle % ii;
  if (start + len <= ii) return {{start, start + len}};
  return {{start, ii}, {0, start + len - ii}};
}

int top_level(const ScheduleGraph& g, int loop) {
  while (g.loops[static_cast<size_t>(loop)].parent_loop >= 0)
    loop = g.loops[static_cast<size_t>(loop)].parent_loop;
  return loop;
}

std::string shape_text(const sgraph::Buffer& b) {
  std::string s;
  for (size_t d = 0; d < b.shape.size(); ++d) s += (d ? "x" : "") + std::to_string(b.shape[d]);
  return s + " " + b.elem;
}

std::string buffer_part(const sgraph::Buffer& b, const std::string& what) {
  std::string s = "buffer " + std::to_string(b.id) + " " + what + " " + shape_text(b);
  if (b.depth > 1) s += ", " + std::to_string(b.depth) + " x " + std::to_string(b.bytes) + " B";
  return s;
}

// Whether a node holds its role's instruction stream in the scheduler's reservation table: a
// scalar op or view (pipeline NONE) is issued on no stream (the scheduler's ResMII skips it), even
// when the graph records an issue cost for it.
bool holds_issue(const Node& n) { return n.issue_cost > 0 && n.pipeline != "NONE"; }

}  // namespace

std::string role_name(const ScheduleGraph& g, int role) {
  if (role < 0 || static_cast<size_t>(role) >= g.launch.roles.size()) return "every role";
  return g.launch.roles[static_cast<size_t>(role)].name;
}

Mrt reservation_table(const ScheduleGraph& g, size_t loop) {
  const Loop& L = g.loops.at(loop);
  Mrt t;
  t.ii = std::max(L.ii, 1);
  for (const char* p : kPipelines) t.rows.emplace_back(p);
  // Issue rows: the roles that issue something, in role order, then role -1.
  std::set<int> issuing;
  for (const Node& n : L.nodes)
    if (holds_issue(n)) issuing.insert(n.role);
  std::map<int, size_t> issue_row;
  for (int r : issuing) {
    if (r < 0) continue;
    issue_row[r] = t.rows.size();
    t.rows.push_back("issue: " + role_name(g, r));
  }
  if (issuing.count(-1) != 0) {
    issue_row[-1] = t.rows.size();
    t.rows.emplace_back("issue: every role");
  }
  std::vector<std::vector<std::vector<Interval>>> lanes(t.rows.size());
  auto place = [&](const Node& n, size_t row, int64_t len) {
    const std::vector<Interval> pieces = columns(n.cycle, len, t.ii);
    auto& row_lanes = lanes[row];
    size_t k = 0;
    while (k < row_lanes.size() && overlaps(row_lanes[k], pieces)) ++k;
    if (k == row_lanes.size()) row_lanes.emplace_back();
    row_lanes[k].insert(row_lanes[k].end(), pieces.begin(), pieces.end());
    for (const auto& [s, e] : pieces) t.slots.push_back({n.id, row, static_cast<int>(k), s, e - s});
  };
  // Earlier columns first, so that the first lane reads left to right like the schedule.
  std::vector<const Node*> order;
  for (const Node& n : L.nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [&](const Node* a, const Node* b) { return a->cycle % t.ii < b->cycle % t.ii; });
  for (const Node* n : order) {
    for (size_t p = 0; p < std::size(kPipelines); ++p)
      if (n->pipeline == kPipelines[p] && n->occupancy > 0) place(*n, p, n->occupancy);
  }
  for (const Node* n : order)
    if (holds_issue(*n)) place(*n, issue_row.at(n->role), n->issue_cost);
  for (const auto& l : lanes) t.lanes.push_back(std::max<int>(1, static_cast<int>(l.size())));
  return t;
}

Bounds bounds(const ScheduleGraph& g, size_t loop) {
  const Loop& L = g.loops.at(loop);
  Bounds b;
  b.ii = L.ii;
  b.res_mii = L.res_mii;
  b.rec_mii = L.rec_mii;
  b.optimal = L.ii_optimal;
  std::map<std::string, int64_t> engine;
  std::map<int, int64_t> issue;
  int64_t one_op = 0;  // the scheduler's floor: no II is below one op's own issue cost
  for (const Node& n : L.nodes) {
    if (n.pipeline != "NONE") engine[n.pipeline] += n.occupancy;
    if (holds_issue(n)) issue[n.role] += n.issue_cost;
    one_op = std::max<int64_t>(one_op, n.issue_cost);
    if (n.child_loop >= 0) b.super += n.latency;  // nested loops run one after another
  }
  for (const char* p : kPipelines)
    if (engine.count(p) != 0) b.engine.push_back({p, engine[p]});
  int64_t streams = 0;
  for (const auto& [r, c] : issue) {
    b.issue.push_back({role_name(g, r), c});
    streams = std::max(streams, c);
  }
  // An op issued on no stream (a scalar op of an outer loop) still bounds the II by its cost
  // when nothing else does (row_softmax's row loop: ResMII 1 from one such op).
  if (one_op > streams) b.issue.push_back({"one op", one_op});
  b.mii = std::max({b.res_mii, b.rec_mii, b.super});
  return b;
}

Lanes role_lanes(const ScheduleGraph& g, size_t loop, double box_cycles) {
  const Loop& L = g.loops.at(loop);
  Lanes out;
  out.span = static_cast<int64_t>(std::max(L.stages, 1)) * std::max(L.ii, 1);
  std::set<int> used;
  for (const Node& n : L.nodes) used.insert(n.role);
  std::map<int, size_t> lane_of;
  for (const auto& r : g.launch.roles)
    if (used.count(r.id) != 0) {
      lane_of[r.id] = out.names.size();
      out.names.push_back(r.name);
      out.roles.push_back(r.id);
    }
  if (used.count(-1) != 0) {
    lane_of[-1] = out.names.size();
    out.names.emplace_back("every role");
    out.roles.push_back(-1);
  }
  // Per lane, per sub-row: the cycle where its last box starts.
  std::vector<std::vector<double>> last(out.names.size());
  std::vector<const Node*> order;
  for (const Node& n : L.nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [](const Node* a, const Node* b) { return a->cycle < b->cycle; });
  out.boxes.resize(L.nodes.size());
  for (const Node* n : order) {
    const size_t lane = lane_of.at(n->role);
    auto& rows = last[lane];
    size_t r = 0;
    while (r < rows.size() && static_cast<double>(n->cycle) < rows[r] + box_cycles) ++r;
    if (r == rows.size()) rows.push_back(0);
    rows[r] = static_cast<double>(n->cycle);
    out.boxes[static_cast<size_t>(n->id)] = {n->id, lane, static_cast<int>(r)};
  }
  for (const auto& rows : last) out.rows.push_back(std::max<int>(1, static_cast<int>(rows.size())));
  return out;
}

std::vector<Lifetime> ring_lifetimes(const ScheduleGraph& g, size_t loop) {
  std::vector<Lifetime> out;
  for (const auto& r : g.loops.at(loop).rings)
    for (int b : r.buffers) {
      const auto& buf = g.buffers.at(static_cast<size_t>(b));
      out.push_back({r.id, b, r.depth, buf.live_start, buf.live_end});
    }
  return out;
}

int64_t BudgetRow::total() const {
  int64_t t = 0;
  for (const auto& p : parts) t += p.amount;
  return t;
}

Budget register_budget(const ScheduleGraph& g) {
  Budget b;
  b.unit = "registers";
  b.limit = g.target.regs_per_sm;
  const int ctas = std::max(1, g.launch.ctas_per_sm);
  BudgetRow row;
  row.what = ctas > 1 ? "one SM, " + std::to_string(ctas) + " CTAs" : "one SM";
  for (const auto& r : g.launch.roles) {
    const auto wgs = static_cast<int64_t>(r.warpgroups.size());
    std::string what = r.name + ": " + std::to_string(wgs) + " warpgroup" + (wgs > 1 ? "s" : "") +
                       " x 128 threads x " + std::to_string(r.regs);
    if (ctas > 1) what += " x " + std::to_string(ctas) + " CTAs";
    row.parts.push_back({what, wgs * 128 * r.regs * ctas});
  }
  b.rows.push_back(std::move(row));
  return b;
}

Budget smem_budget(const ScheduleGraph& g) {
  Budget b;
  b.unit = "B";
  b.limit = g.target.smem_bytes;
  std::set<int> resident;
  for (const auto& c : g.channels) resident.insert(c.buffer);
  // Ops scheduled in some loop (its nodes, and ops nested in them), to tell whether a resident
  // buffer is also read after the loops.
  const ttgir::Function& f = g.ir.function(g.kernel.name);
  std::set<int> loop_ops;
  for (const auto& L : g.loops) loop_ops.insert(L.op);
  auto in_loop = [&](int op) {
    for (int o = op; o >= 0; o = f.op(o).parent_op)
      if (loop_ops.count(o) != 0) return true;
    return false;
  };
  std::vector<Segment> res_parts, after;
  for (const auto& buf : g.buffers) {
    if (buf.loop >= 0 || resident.count(buf.id) == 0) continue;
    const Segment s{buffer_part(buf, "resident"), int64_t{buf.bytes} * buf.depth};
    res_parts.push_back(s);
    for (int u : buf.consumer_ops)
      if (!in_loop(u)) {
        after.push_back(s);
        break;
      }
  }
  for (size_t li = 0; li < g.loops.size(); ++li) {
    if (g.loops[li].parent_loop >= 0) continue;
    BudgetRow row;
    std::string loops;
    for (size_t k = 0; k < g.loops.size(); ++k)
      if (top_level(g, static_cast<int>(k)) == static_cast<int>(li))
        loops += (loops.empty() ? "" : ", ") + std::to_string(k);
    row.what = (loops.find(',') == std::string::npos ? "loop " : "loops ") + loops;
    row.parts = res_parts;
    for (const auto& buf : g.buffers)
      if (buf.loop >= 0 && top_level(g, buf.loop) == static_cast<int>(li))
        row.parts.push_back({buffer_part(buf, "ring " + std::to_string(buf.ring) + " of loop " +
                                                  std::to_string(buf.loop)),
                             int64_t{buf.bytes} * buf.depth});
    b.rows.push_back(std::move(row));
  }
  BudgetRow staging{"function-scope staging", after};
  bool any = false;
  for (const auto& buf : g.buffers)
    if (buf.loop < 0 && resident.count(buf.id) == 0) {
      staging.parts.push_back({buffer_part(buf, "staging"), int64_t{buf.bytes} * buf.depth});
      any = true;
    }
  if (any) b.rows.push_back(std::move(staging));
  if (b.rows.empty() && !res_parts.empty()) b.rows.push_back({"function scope", res_parts});
  return b;
}

}  // namespace sched2cu::show
