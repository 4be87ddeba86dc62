// Small helpers of the abstract DDG (adjacency lists, stream list). Never reorders nodes or edges:
// ids are program order and the output must be byte-stable.
#include "sched2cu/ddg/ddg.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace sched2cu::ddg {

int Ddg::add_node(Node n) {
  n.id = static_cast<int>(nodes.size());
  nodes.push_back(std::move(n));
  return nodes.back().id;
}

void Ddg::add_edge(int src, int dst, int64_t latency, int distance) {
  assert(src >= 0 && dst >= 0 && src < (int)nodes.size() && dst < (int)nodes.size());
  for (auto& e : edges)
    if (e.src == src && e.dst == dst && e.distance == distance) {
      e.latency = std::max(e.latency, latency);
      return;
    }
  edges.push_back({src, dst, latency, distance});
}

std::vector<std::vector<int>> Ddg::succ_edges() const {
  std::vector<std::vector<int>> s(nodes.size());
  for (size_t i = 0; i < edges.size(); ++i) s[edges[i].src].push_back((int)i);
  return s;
}

std::vector<std::vector<int>> Ddg::pred_edges() const {
  std::vector<std::vector<int>> p(nodes.size());
  for (size_t i = 0; i < edges.size(); ++i) p[edges[i].dst].push_back((int)i);
  return p;
}

std::vector<std::string> Ddg::streams() const {
  std::set<std::string> s;
  for (const auto& n : nodes)
    if (n.stream != "none" && n.issue > 0) s.insert(n.stream);
  return {s.begin(), s.end()};
}

}  // namespace sched2cu::ddg
