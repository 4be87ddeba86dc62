// Rau's iterative modulo scheduling. Deterministic: ties break on the lower node id, so equal
// inputs give byte-identical schedules.
#include "sched2cu/sched/ims.h"

#include <algorithm>

#include "sched2cu/common/diag.h"
#include "sched2cu/sched/validate.h"

namespace sched2cu::sched {

std::vector<int64_t> heights(const ddg::Ddg& g, int64_t ii) {
  const size_t n = g.nodes.size();
  std::vector<int64_t> h(n, 0);
  // Bellman-Ford style relaxation; converges in n rounds when II >= RecMII.
  for (size_t round = 0; round <= n; ++round) {
    bool changed = false;
    for (const auto& e : g.edges) {
      int64_t v = h[e.dst] + e.latency - e.distance * ii;
      if (v > h[e.src]) h[e.src] = v, changed = true;
    }
    if (!changed) break;
  }
  return h;
}

std::optional<Schedule> ims_at(const ddg::Ddg& g, int64_t ii, int budget_per_node) {
  const int n = static_cast<int>(g.nodes.size());
  for (const auto& e : g.edges)
    if (e.src == e.dst && e.latency > e.distance * ii) return std::nullopt;
  auto h = heights(g, ii);
  auto preds = g.pred_edges(), succs = g.succ_edges();
  std::vector<int64_t> cyc(n, -1), prev(n, -1);
  std::vector<bool> placed(n, false);
  Mrt mrt(g, ii);
  for (int i = 0; i < n; ++i)
    if (g.nodes[i].issue > ii && mrt.reserves(i)) return std::nullopt;
  int64_t budget = static_cast<int64_t>(budget_per_node) * std::max(n, 1);
  int unplaced = n;
  auto pick = [&]() {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (!placed[i] && (best < 0 || h[i] > h[best])) best = i;
    return best;
  };
  auto unplace = [&](int v) {
    mrt.remove(v, cyc[v]);
    placed[v] = false;
    ++unplaced;
  };
  while (unplaced > 0) {
    if (budget-- <= 0) return std::nullopt;
    int v = pick();
    int64_t estart = 0;
    for (int ei : preds[v]) {
      const auto& e = g.edges[ei];
      if (e.src != v && placed[e.src])
        estart = std::max(estart, cyc[e.src] + e.latency - e.distance * ii);
    }
    int64_t t = -1;
    for (int64_t c = estart; c < estart + ii; ++c)
      if (mrt.fits(v, c)) {
        t = c;
        break;
      }
    if (t < 0) t = (prev[v] < 0 || estart > prev[v]) ? estart : prev[v] + 1;
    for (int o : mrt.conflicts(v, t)) unplace(o);
    for (int ei : succs[v]) {
      const auto& e = g.edges[ei];
      if (e.dst != v && placed[e.dst] && cyc[e.dst] + e.distance * ii < t + e.latency)
        unplace(e.dst);
    }
    // Predecessors scheduled through a back edge may now be violated as well.
    for (int ei : preds[v]) {
      const auto& e = g.edges[ei];
      if (e.src != v && placed[e.src] && t + e.distance * ii < cyc[e.src] + e.latency)
        unplace(e.src);
    }
    cyc[v] = t;
    prev[v] = t;
    placed[v] = true;
    --unplaced;
    mrt.place(v, t);
  }
  Schedule s{ii, cyc};
  normalize(s);
  if (!check_schedule(g, s).empty()) return std::nullopt;
  return s;
}

Schedule ims(const ddg::Ddg& g, int64_t min_ii, int64_t max_ii, int budget_per_node) {
  for (int64_t ii = std::max<int64_t>(1, min_ii); ii <= max_ii; ++ii)
    if (auto s = ims_at(g, ii, budget_per_node)) return *s;
  throw Error("modulo scheduling failed for every II in [" + std::to_string(min_ii) + ", " +
              std::to_string(max_ii) + "]");
}

}  // namespace sched2cu::sched
