// Independent validator (see the header). Counts column usage per stream with its own table
// rather than reusing Mrt, so a bug in the reservation table cannot hide itself.
#include "sched2cu/sched/validate.h"

#include <algorithm>
#include <map>

#include "sched2cu/common/diag.h"

namespace sched2cu::sched {

std::vector<std::string> check_schedule(const ddg::Ddg& g, const Schedule& s) {
  std::vector<std::string> out;
  auto label = [&](int n) { return "node " + std::to_string(n) + " (" + g.nodes[n].name + ")"; };
  if (s.ii <= 0) {
    out.push_back("II must be positive, got " + std::to_string(s.ii));
    return out;
  }
  if (s.cycle.size() != g.nodes.size()) {
    out.push_back("schedule has " + std::to_string(s.cycle.size()) + " cycles for " +
                  std::to_string(g.nodes.size()) + " nodes");
    return out;
  }
  for (size_t i = 0; i < s.cycle.size(); ++i)
    if (s.cycle[i] < 0) out.push_back(label((int)i) + " at negative cycle");
  for (const auto& e : g.edges) {
    int64_t lhs = s.cycle[e.dst] + e.distance * s.ii, rhs = s.cycle[e.src] + e.latency;
    if (lhs < rhs)
      out.push_back("dependence " + label(e.src) + " -> " + label(e.dst) + " (latency " +
                    std::to_string(e.latency) + ", distance " + std::to_string(e.distance) +
                    ") violated: " + std::to_string(lhs) + " < " + std::to_string(rhs));
  }
  std::map<std::string, std::vector<int>> used;  // stream -> column use count
  std::map<std::string, int64_t> occ;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    if (n.pipe != ddg::Pipe::NONE) occ[ddg::pipe_name(n.pipe)] += n.occupancy;
    if (n.stream == "none" || n.issue <= 0) continue;
    if (n.issue > s.ii) {
      out.push_back(label((int)i) + " issue cost " + std::to_string(n.issue) + " exceeds II");
      continue;
    }
    auto& cols = used[n.stream];
    if (cols.empty()) cols.assign(static_cast<size_t>(s.ii), 0);
    for (int64_t k = 0; k < n.issue; ++k) ++cols[((s.cycle[i] + k) % s.ii + s.ii) % s.ii];
  }
  // The tensor core executes MMAs in issue order: their holds must not overlap mod II (under
  // ping-pong each hold recurs once per turn, II / turns apart).
  std::vector<int> tc(static_cast<size_t>(s.ii), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    if (n.pipe != ddg::Pipe::TC) continue;
    const int64_t hold = std::min(n.tc_hold > 0 ? n.tc_hold : n.occupancy, s.ii);
    const int turns = std::max(1, n.tc_turns);
    for (int p = 0; p < turns; ++p)
      for (int64_t k = 0; k < hold; ++k)
        ++tc[((s.cycle[i] + p * (s.ii / turns) + k) % s.ii + s.ii) % s.ii];
  }
  for (size_t c = 0; c < tc.size(); ++c)
    if (tc[c] > 1) {
      out.push_back("tensor core overbooked at column " + std::to_string(c) + " (" +
                    std::to_string(tc[c]) + " MMAs in flight)");
      break;
    }
  for (const auto& [stream, cols] : used)
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c] > 1) {
        out.push_back("stream '" + stream + "' overbooked at column " + std::to_string(c) + " (" +
                      std::to_string(cols[c]) + " issues)");
        break;
      }
  for (const auto& [pipe, sum] : occ)
    if (sum > s.ii)
      out.push_back("pipeline " + pipe + " occupancy " + std::to_string(sum) + " exceeds II " +
                    std::to_string(s.ii));
  return out;
}

void validate_schedule(const ddg::Ddg& g, const Schedule& s, const std::string& what) {
  auto v = check_schedule(g, s);
  if (v.empty()) return;
  std::string msg = "invalid schedule for " + what + ":";
  for (const auto& l : v) msg += "\n  " + l;
  throw Error(msg);
}

}  // namespace sched2cu::sched
