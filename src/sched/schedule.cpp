// Schedule helpers and the modulo reservation table. The table is the single definition of
// "overbooked" used by IMS and the exact method; the validator re-derives it independently.
#include "sched2cu/sched/schedule.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "sched2cu/sched/validate.h"

namespace sched2cu::sched {

int64_t Schedule::max_stage() const {
  int64_t m = 0;
  for (auto c : cycle) m = std::max(m, c / ii);
  return m;
}

std::vector<int> Schedule::order_in_stage() const {
  std::map<int64_t, std::set<int64_t>> per_stage;
  for (auto c : cycle) per_stage[c / ii].insert(c);
  std::vector<int> out(cycle.size());
  for (size_t i = 0; i < cycle.size(); ++i) {
    const auto& s = per_stage[cycle[i] / ii];
    out[i] = static_cast<int>(std::distance(s.begin(), s.find(cycle[i])));
  }
  return out;
}

void normalize(Schedule& s) {
  if (s.cycle.empty()) return;
  int64_t m = *std::min_element(s.cycle.begin(), s.cycle.end());
  for (auto& c : s.cycle) c -= m;
}

void compact(const ddg::Ddg& g, Schedule& s) {
  const size_t n = g.nodes.size();
  if (n == 0) return;
  std::vector<bool> pinned(n);
  std::vector<int64_t> c(n, 0);
  for (size_t i = 0; i < n; ++i) {
    pinned[i] = g.nodes[i].stream != "none" && g.nodes[i].issue > 0;
    if (pinned[i]) c[i] = s.cycle[i] % s.ii;
  }
  // Each round can only raise values towards the given schedule (which satisfies everything
  // and lies in the same columns), so this terminates; the bound is a guard.
  for (size_t round = 0; round < 4 * n + 8; ++round) {
    bool changed = false;
    for (const auto& e : g.edges) {
      int64_t need = c[e.src] + e.latency - e.distance * s.ii;
      if (c[e.dst] >= need) continue;
      int64_t v = need;
      if (pinned[e.dst]) v += ((c[e.dst] - need) % s.ii + s.ii) % s.ii;  // same column
      c[e.dst] = v;
      changed = true;
    }
    if (!changed) {
      for (size_t i = 0; i < n; ++i)
        if (c[i] > s.cycle[i]) return;  // cannot happen for a valid input; keep it unchanged
      s.cycle = c;
      normalize(s);
      return;
    }
  }
}

void sink_mma_feeders(const ddg::Ddg& g, Schedule& s) {
  const int n = static_cast<int>(g.nodes.size());
  auto succs = g.succ_edges();
  // feeds[v]: every distance-0 successor path from v ends in a TC node (views in between).
  std::vector<int> feeds(static_cast<size_t>(n), -1);  // -1 unknown, 0 no, 1 yes
  std::function<bool(int)> only_mmas = [&](int v) -> bool {
    int& f = feeds[static_cast<size_t>(v)];
    if (f >= 0) return f == 1;
    f = 0;
    bool any = false, ok = true;
    for (int ei : succs[static_cast<size_t>(v)]) {
      const auto& e = g.edges[static_cast<size_t>(ei)];
      if (e.distance != 0 || e.dst == v) continue;
      const auto& d = g.nodes[static_cast<size_t>(e.dst)];
      any = true;
      if (d.pipe == ddg::Pipe::TC) continue;
      ok = ok && d.pipe == ddg::Pipe::NONE && !d.super_node && only_mmas(e.dst);
    }
    f = any && ok ? 1 : 0;
    return f == 1;
  };
  // Register math (CUDA, SFU) feeding only MMAs, and the views between it and them.
  std::vector<int> cand;
  std::vector<char> in(static_cast<size_t>(n), 0);
  for (int v = 0; v < n; ++v) {
    const auto& x = g.nodes[static_cast<size_t>(v)];
    if ((x.pipe == ddg::Pipe::CUDA || x.pipe == ddg::Pipe::SFU) && !x.narrows && only_mmas(v)) {
      cand.push_back(v);
      in[static_cast<size_t>(v)] = 1;
    }
  }
  for (size_t i = 0; i < cand.size(); ++i)
    for (int ei : succs[static_cast<size_t>(cand[i])]) {
      const auto& e = g.edges[static_cast<size_t>(ei)];
      const auto& d = g.nodes[static_cast<size_t>(e.dst)];
      if (e.distance == 0 && d.pipe == ddg::Pipe::NONE && !in[static_cast<size_t>(e.dst)] &&
          only_mmas(e.dst)) {
        in[static_cast<size_t>(e.dst)] = 1;
        cand.push_back(e.dst);
      }
    }
  // Latest first, so that a view between a feeder and its MMA has moved before the feeder.
  std::sort(cand.begin(), cand.end(), [&](int a, int b) {
    return std::tie(s.cycle[static_cast<size_t>(b)], b) <
           std::tie(s.cycle[static_cast<size_t>(a)], a);
  });
  for (int v : cand) {
    int64_t latest = INT64_MAX;
    for (int ei : succs[static_cast<size_t>(v)]) {
      const auto& e = g.edges[static_cast<size_t>(ei)];
      if (e.dst == v) continue;
      latest =
          std::min(latest, s.cycle[static_cast<size_t>(e.dst)] + e.distance * s.ii - e.latency);
    }
    const int64_t cur = s.cycle[static_cast<size_t>(v)];
    if (latest == INT64_MAX || latest <= cur) continue;
    Mrt mrt(g, s.ii);
    for (int u = 0; u < n; ++u)
      if (u != v) mrt.place(u, s.cycle[static_cast<size_t>(u)]);
    for (int64_t t = latest; t > cur; --t) {
      if (!mrt.fits(v, t)) continue;
      Schedule trial = s;
      trial.cycle[static_cast<size_t>(v)] = t;
      if (check_schedule(g, trial).empty()) {  // else try the next earlier slot
        s = trial;
        break;
      }
    }
  }
}

std::vector<int> prefetch_vector_loads(const ddg::Ddg& g, Schedule& s) {
  const int n = static_cast<int>(g.nodes.size());
  std::vector<int> moved_loads;
  bool mma = false;
  for (const auto& x : g.nodes) mma |= x.pipe == ddg::Pipe::TC;
  if (!mma) return moved_loads;
  auto succs = g.succ_edges();
  auto at = [](auto& v, int i) -> decltype(auto) { return v[static_cast<size_t>(i)]; };
  for (int v = 0; v < n; ++v) {
    if (!at(g.nodes, v).vector_load) continue;
    int64_t first = INT64_MAX, last = INT64_MIN;  // the readers' cycles, in this iteration's terms
    for (int ei : at(succs, v)) {
      const auto& e = at(g.edges, ei);
      if (e.dst == v) continue;
      const int64_t c = at(s.cycle, e.dst) + e.distance * s.ii;
      first = std::min(first, c);
      last = std::max(last, c);
    }
    if (first == INT64_MAX || first - at(s.cycle, v) >= s.ii) continue;
    // The load and the address math that nothing else reads (views and scalar index math).
    std::vector<char> moved(static_cast<size_t>(n), 0);
    at(moved, v) = 1;
    for (bool grew = true; grew;) {
      grew = false;
      for (int p = 0; p < n; ++p) {
        const auto& x = at(g.nodes, p);
        if (at(moved, p) || x.super_node || x.pipe == ddg::Pipe::TC || x.pipe == ddg::Pipe::TMA)
          continue;
        bool feeds = false, only = true;
        for (int ei : at(succs, p)) {
          const auto& e = at(g.edges, ei);
          if (e.dst == p) continue;
          const bool in = e.distance == 0 && at(moved, e.dst);
          feeds |= in;
          only &= in;
        }
        if (feeds && only) at(moved, p) = grew = 1;
      }
    }
    // Where it goes: just after its last reader's slot, one II back (the value then lives less
    // than one II: no carried copy); else exactly one II earlier.
    std::vector<int64_t> shifts;
    for (int64_t t = last - s.ii + 1; t + at(g.nodes, v).latency <= first && t < at(s.cycle, v);
         ++t) {
      shifts.push_back(at(s.cycle, v) - t);
      if (shifts.size() >= 64) break;
    }
    shifts.push_back(s.ii);
    for (int64_t d : shifts) {
      Schedule trial = s;
      for (int u = 0; u < n; ++u)
        if (at(moved, u)) at(trial.cycle, u) -= d;
      Mrt mrt(g, s.ii);
      bool fits = true;
      for (int u = 0; u < n; ++u)
        if (!at(moved, u)) mrt.place(u, at(trial.cycle, u));
      for (int u = 0; u < n && fits; ++u)
        if (at(moved, u)) {
          fits = mrt.fits(u, at(trial.cycle, u));
          if (fits) mrt.place(u, at(trial.cycle, u));
        }
      if (!fits) continue;
      normalize(trial);
      if (check_schedule(g, trial).empty()) {
        s = trial;
        moved_loads.push_back(v);
        break;
      }
    }
  }
  return moved_loads;
}

Mrt::Mrt(const ddg::Ddg& g, int64_t ii) : ii_(ii) {
  auto streams = g.streams();
  const int tc_row = static_cast<int>(streams.size());
  for (const auto& n : g.nodes) {
    std::vector<Res> r;
    for (size_t i = 0; i < streams.size(); ++i)
      if (n.issue > 0 && n.stream == streams[i]) r.push_back({static_cast<int>(i), n.issue, 0});
    const int64_t hold = n.tc_hold > 0 ? n.tc_hold : n.occupancy;
    if (n.pipe == ddg::Pipe::TC && hold > 0)
      for (int p = 0; p < std::max(1, n.tc_turns); ++p)
        r.push_back({tc_row, hold, p * (ii / std::max(1, n.tc_turns))});
    res_.push_back(r);
  }
  table_.assign(streams.size() + 1, std::vector<int>(static_cast<size_t>(ii), -1));
}

static int64_t mod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

bool Mrt::fits(int n, int64_t t) const {
  for (const Res& r : res_[n]) {
    if (r.len > ii_) return false;
    const auto& row = table_[r.row];
    for (int64_t k = 0; k < r.len; ++k) {
      int o = row[mod(t + r.offset + k, ii_)];
      if (o != -1 && o != n) return false;
    }
  }
  return true;
}

std::vector<int> Mrt::conflicts(int n, int64_t t) const {
  std::vector<int> out;
  for (const Res& r : res_[n]) {
    const auto& row = table_[r.row];
    for (int64_t k = 0; k < std::min(r.len, ii_); ++k) {
      int o = row[mod(t + r.offset + k, ii_)];
      if (o != -1 && o != n && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Mrt::place(int n, int64_t t) {
  for (const Res& r : res_[n]) {
    auto& row = table_[r.row];
    for (int64_t k = 0; k < std::min(r.len, ii_); ++k) row[mod(t + r.offset + k, ii_)] = n;
  }
}

void Mrt::remove(int n, int64_t t) {
  for (const Res& r : res_[n]) {
    auto& row = table_[r.row];
    for (int64_t k = 0; k < std::min(r.len, ii_); ++k)
      if (row[mod(t + r.offset + k, ii_)] == n) row[mod(t + r.offset + k, ii_)] = -1;
  }
}

}  // namespace sched2cu::sched
