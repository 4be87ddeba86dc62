// ResMII / RecMII / MII. RecMII uses a binary search over II with a positive-circuit test
// (longest-path relaxation per strongly connected component), which finds circuits with any number
// of back edges, unlike the single-back-edge formula of the prior art. A circuit of distance 0 and
// positive latency can never be scheduled: it is reported as an error naming its nodes.
#include "sched2cu/sched/mii.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "sched2cu/common/diag.h"

namespace sched2cu::sched {

namespace {

// Strongly connected components (iterative Tarjan): a circuit lies inside one component, so the
// positive-circuit test only ever looks at components with an edge inside them.
std::vector<int> components(const ddg::Ddg& g, int& count) {
  const int n = static_cast<int>(g.nodes.size());
  std::vector<std::vector<int>> succ(static_cast<size_t>(n));
  for (const auto& e : g.edges) succ[static_cast<size_t>(e.src)].push_back(e.dst);
  std::vector<int> index(static_cast<size_t>(n), -1), low(static_cast<size_t>(n), 0),
      comp(static_cast<size_t>(n), -1);
  std::vector<char> on(static_cast<size_t>(n), 0);
  std::vector<int> stack;
  int next = 0;
  count = 0;
  std::vector<std::pair<int, size_t>> call;  // (node, next successor position)
  for (int root = 0; root < n; ++root) {
    if (index[static_cast<size_t>(root)] >= 0) continue;
    call.emplace_back(root, 0);
    while (!call.empty()) {
      auto& [v, pos] = call.back();
      const auto uv = static_cast<size_t>(v);
      if (pos == 0 && index[uv] < 0) {
        index[uv] = low[uv] = next++;
        stack.push_back(v);
        on[uv] = 1;
      }
      if (pos < succ[uv].size()) {
        const int w = succ[uv][pos++];
        const auto uw = static_cast<size_t>(w);
        if (index[uw] < 0)
          call.emplace_back(w, 0);
        else if (on[uw])
          low[uv] = std::min(low[uv], index[uw]);
        continue;
      }
      if (low[uv] == index[uv]) {
        for (;;) {
          const int w = stack.back();
          stack.pop_back();
          on[static_cast<size_t>(w)] = 0;
          comp[static_cast<size_t>(w)] = count;
          if (w == v) break;
        }
        ++count;
      }
      const int done = v;
      call.pop_back();
      if (!call.empty()) {
        const auto up = static_cast<size_t>(call.back().first);
        low[up] = std::min(low[up], low[static_cast<size_t>(done)]);
      }
    }
  }
  return comp;
}

}  // namespace

// Longest-path relaxation (Bellman-Ford) inside each strongly connected component: a positive
// circuit keeps raising some node's distance, which after as many passes as the component has
// nodes can only come from a positive circuit. O(V * E) for a component, and components are
// usually small, where the Floyd-Warshall test this replaced was O(V^3) over the whole body (a
// straight chain of 10,000 ops took more than 280 s; docs/scheduler.md, "MII").
bool has_positive_circuit(const ddg::Ddg& g, int64_t ii) {
  int count = 0;
  const std::vector<int> comp = components(g, count);
  std::vector<std::vector<const ddg::Edge*>> inside(static_cast<size_t>(count));
  std::vector<int> size(static_cast<size_t>(count), 0);
  for (int c : comp) ++size[static_cast<size_t>(c)];
  for (const auto& e : g.edges) {
    const int c = comp[static_cast<size_t>(e.src)];
    if (c == comp[static_cast<size_t>(e.dst)]) inside[static_cast<size_t>(c)].push_back(&e);
  }
  std::vector<int64_t> d(g.nodes.size(), 0);
  for (int c = 0; c < count; ++c) {
    const auto& es = inside[static_cast<size_t>(c)];
    if (es.empty()) continue;
    // Every node starts at 0 (a virtual source to all): a positive circuit anywhere in the
    // component is found whatever its start.
    for (const ddg::Edge* e : es)
      d[static_cast<size_t>(e->src)] = d[static_cast<size_t>(e->dst)] = 0;
    for (int pass = 0; pass <= size[static_cast<size_t>(c)]; ++pass) {
      bool changed = false;
      for (const ddg::Edge* e : es) {
        const int64_t w = e->latency - static_cast<int64_t>(e->distance) * ii;
        const int64_t cand = d[static_cast<size_t>(e->src)] + w;
        if (cand > d[static_cast<size_t>(e->dst)]) {
          d[static_cast<size_t>(e->dst)] = cand;
          changed = true;
        }
      }
      if (!changed) break;
      if (pass == size[static_cast<size_t>(c)]) return true;
    }
  }
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
    // The inner loops of one body run one after another on the warps that run the body (a
    // nested loop's steady state holds them until it drains), so an iteration of the body takes
    // at least their summed latency. With only the longest as the bound, a row kernel's two
    // passes were planned in two stages (pass 1 of row k beside pass 2 of row k - 1), which
    // overlaps nothing and puts another row's reads between the two reads of each row.
    if (n.super_node) m.super += n.latency;  // each saturates near --max-ii: no overflow
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
