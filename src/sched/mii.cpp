// ResMII / RecMII / MII. RecMII uses a binary search over II with a positive-circuit test
// (Floyd-Warshall longest paths), which finds circuits with any number of back edges, unlike the
// single-back-edge formula of the prior art. A circuit of distance 0 and positive latency can
// never be scheduled: it is reported as an error naming its nodes.
#include "sched2cu/sched/mii.h"

#include <algorithm>
#include <limits>
#include <map>

#include "sched2cu/common/diag.h"

namespace sched2cu::sched {

bool has_positive_circuit(const ddg::Ddg& g, int64_t ii) {
  const size_t n = g.nodes.size();
  constexpr int64_t kNeg = std::numeric_limits<int64_t>::min() / 4;
  std::vector<int64_t> d(n * n, kNeg);
  for (const auto& e : g.edges) {
    int64_t w = e.latency - static_cast<int64_t>(e.distance) * ii;
    auto& cell = d[e.src * n + e.dst];
    cell = std::max(cell, w);
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i) {
      int64_t ik = d[i * n + k];
      if (ik == kNeg) continue;
      for (size_t j = 0; j < n; ++j) {
        int64_t kj = d[k * n + j];
        if (kj == kNeg) continue;
        if (ik + kj > d[i * n + j]) d[i * n + j] = ik + kj;
      }
      if (d[i * n + i] > 0) return true;
    }
  for (size_t i = 0; i < n; ++i)
    if (d[i * n + i] > 0) return true;
  return false;
}

Mii compute_mii(const ddg::Ddg& g) {
  Mii m;
  std::map<std::string, int64_t> pipe_sum, stream_sum;
  int64_t max_issue = 0;
  for (const auto& n : g.nodes) {
    if (n.pipe != ddg::Pipe::NONE) pipe_sum[ddg::pipe_name(n.pipe)] += n.occupancy;
    if (n.stream != "none" && n.issue > 0) stream_sum[n.stream] += n.issue;
    max_issue = std::max(max_issue, n.issue);
    if (n.super_node) m.super = std::max(m.super, n.latency);
  }
  for (const auto& [p, s] : pipe_sum)
    if (s > m.engine) m.engine = s, m.engine_pipe = p;
  for (const auto& [p, s] : stream_sum)
    if (s > m.issue) m.issue = s, m.issue_stream = p;
  m.issue = std::max(m.issue, max_issue);
  m.res = std::max(m.engine, m.issue);

  // A zero-distance circuit makes every II infeasible.
  int64_t total = 1;
  for (const auto& e : g.edges) total += std::max<int64_t>(e.latency, 0);
  bool any_carried = false;
  for (const auto& e : g.edges) any_carried |= e.distance > 0;
  if (has_positive_circuit(g, total + 1))
    throw Error("dependence circuit with distance 0 in the loop body (the DDG is malformed)");
  if (any_carried && has_positive_circuit(g, 1)) {
    int64_t lo = 1, hi = total + 1;  // lo infeasible, hi feasible
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      (has_positive_circuit(g, mid) ? lo : hi) = mid;
    }
    m.rec = hi;
  } else if (any_carried) {
    m.rec = 1;
  }
  m.mii = std::max<int64_t>({1, m.res, m.rec, m.super});
  return m;
}

}  // namespace sched2cu::sched
