// Branch and bound for modulo schedules. Nodes are placed in a fixed order (topological over
// distance-0 edges, height as tie break). A node's candidate start cycles are the event points
// of a left-justified schedule inside one II window above its dependence bound: the bound
// itself and the ends (and, for packing before them, the starts) of reservations already made on
// its stream. Placed back-edge successors give upper bounds that prune. Results are validated.
#include "sched2cu/sched/exact.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "sched2cu/sched/ims.h"
#include "sched2cu/sched/validate.h"

namespace sched2cu::sched {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Search {
  const ddg::Ddg& g;
  int64_t ii;
  int64_t deadline;
  std::vector<int> order;
  std::vector<std::vector<int>> preds, succs;
  std::vector<int64_t> cyc;
  std::vector<bool> placed;
  Mrt mrt;
  int64_t expanded = 0;
  int64_t node_limit = INT64_MAX;
  bool timed_out = false;
  bool complete = true;  // every candidate set was exhaustive
  static constexpr int64_t kStages = 4;
  static constexpr int64_t kDenseWindow = 256;

  Search(const ddg::Ddg& graph, int64_t i, int64_t dl)
      : g(graph), ii(i), deadline(dl), mrt(graph, i) {
    preds = g.pred_edges();
    succs = g.succ_edges();
    const int n = static_cast<int>(g.nodes.size());
    cyc.assign(n, 0);
    placed.assign(n, false);
    auto h = heights(g, ii);
    std::vector<int> indeg(n, 0);
    for (const auto& e : g.edges)
      if (e.distance == 0 && e.src != e.dst) ++indeg[e.dst];
    std::vector<bool> done(n, false);
    for (int k = 0; k < n; ++k) {
      int best = -1;
      for (int v = 0; v < n; ++v)
        if (!done[v] && indeg[v] == 0 && (best < 0 || h[v] > h[best])) best = v;
      if (best < 0) break;  // distance-0 cycle: compute_mii rejects these earlier
      done[best] = true;
      order.push_back(best);
      for (int ei : succs[best])
        if (g.edges[ei].distance == 0 && g.edges[ei].dst != best) --indeg[g.edges[ei].dst];
    }
  }

  bool dfs(size_t k) {
    if (k == order.size()) return true;
    if (++expanded > node_limit || ((expanded & 1023) == 0 && now_ns() > deadline)) {
      timed_out = true;
      return false;
    }
    if (timed_out) return false;
    int v = order[k];
    const auto& node = g.nodes[v];
    int64_t lo = 0, hi = INT64_MAX / 4;  // NOLINT: bounds from placed neighbours
    for (int ei : preds[v]) {
      const auto& e = g.edges[ei];
      if (e.src == v) {
        if (e.latency > e.distance * ii) return false;
      } else if (placed[e.src]) {
        lo = std::max(lo, cyc[e.src] + e.latency - e.distance * ii);
      }
    }
    for (int ei : succs[v]) {
      const auto& e = g.edges[ei];
      if (e.dst != v && placed[e.dst]) hi = std::min(hi, cyc[e.dst] + e.distance * ii - e.latency);
    }
    if (lo > hi) return false;
    // Window: one II above the bound suffices when every predecessor is placed (moving a node
    // down by II keeps its column and only helps its successors); otherwise later starts can
    // help predecessors still to come, so the window spans up to kStages IIs.
    bool all_preds = true;
    for (int ei : preds[v]) all_preds &= g.edges[ei].src == v || placed[g.edges[ei].src];
    int64_t wlen = all_preds ? ii : std::min(hi - lo + 1, kStages * ii);
    if (!all_preds && hi - lo + 1 > kStages * ii) complete = false;
    std::set<int64_t> cand;
    if (!mrt.reserves(v) && all_preds) {
      cand.insert(lo);  // no column to find: the earliest start dominates
    } else if (wlen <= kDenseWindow) {
      for (int64_t t = lo; t < lo + wlen; ++t) cand.insert(t);
    } else if (!mrt.reserves(v)) {
      complete = false;
      for (int64_t m = 0; m * ii < wlen; ++m) cand.insert(lo + m * ii);
    } else {
      complete = false;  // event points: left-justified placements only
      auto add = [&](int64_t t) {
        int64_t r = ((t - lo) % ii + ii) % ii;
        for (int64_t base = lo + r; base < lo + wlen; base += ii) cand.insert(base);
      };
      add(lo);
      for (size_t j = 0; j < k; ++j) {
        int u = order[j];
        if (g.nodes[u].stream != node.stream || !mrt.reserves(u)) continue;
        add(cyc[u] + g.nodes[u].issue);
        add(cyc[u] - node.issue);
      }
    }
    for (int64_t t : cand) {
      if (t > hi) break;
      if (!mrt.fits(v, t)) continue;
      cyc[v] = t;
      placed[v] = true;
      mrt.place(v, t);
      if (dfs(k + 1)) return true;
      mrt.remove(v, t);
      placed[v] = false;
      if (timed_out) return false;
    }
    return false;
  }
};

}  // namespace

std::optional<Schedule> exact_at(const ddg::Ddg& g, int64_t ii, int64_t deadline_ns,
                                 bool& timed_out, int64_t& expanded, bool* complete,
                                 int64_t node_limit) {
  Search s(g, ii, deadline_ns);
  s.node_limit = node_limit;
  timed_out = false;
  if (complete) *complete = true;
  if (s.order.size() != g.nodes.size()) return std::nullopt;
  bool ok = s.dfs(0);
  expanded += s.expanded;
  timed_out = s.timed_out;
  if (complete) *complete = s.complete;
  if (!ok) return std::nullopt;
  Schedule out{ii, s.cyc};
  normalize(out);
  if (!check_schedule(g, out).empty()) return std::nullopt;  // never trust the search
  return out;
}

ExactResult exact_improve(const ddg::Ddg& g, int64_t mii, const Schedule& heuristic,
                          int64_t budget_ms, int64_t budget_nodes) {
  ExactResult r;
  r.searched_below = heuristic.ii;
  if (heuristic.ii <= mii) {
    r.status = "mii";
    return r;
  }
  if (budget_ms <= 0 || budget_nodes <= 0) {
    r.status = "off";
    return r;
  }
  int64_t deadline = now_ns() + budget_ms * 1000000;
  bool all_complete = true;
  // Downward from just below the heuristic's II: the nearest IIs are the likeliest to be
  // feasible and the cheapest to decide, and each success only raises the bar below it.
  for (int64_t ii = heuristic.ii - 1; ii >= mii; --ii) {
    bool timed_out = false, complete = true;
    auto s = exact_at(g, ii, deadline, timed_out, r.nodes_expanded, &complete,
                      budget_nodes - r.nodes_expanded);
    if (s) {
      r.better = s;
      continue;
    }
    if (timed_out) {
      r.wall_clock_hit = now_ns() > deadline;
      r.status = r.better ? "improved" : "budget";
      return r;
    }
    all_complete &= complete;
    if (!r.better) r.searched_below = ii;  // every II in [ii, heuristic) is infeasible
  }
  if (r.better) {
    r.status = "improved";
    return r;
  }
  r.status = all_complete ? "exhausted" : "searched";
  return r;
}

}  // namespace sched2cu::sched
