// Schedule helpers and the modulo reservation table. The table is the single definition of
// "overbooked" used by IMS and the exact method; the validator re-derives it independently.
#include "sched2cu/sched/schedule.h"

#include <algorithm>
#include <map>
#include <set>

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
