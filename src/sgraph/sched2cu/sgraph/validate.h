// Independent checks of a loaded schedule graph: every reference resolves, ids are dense, depths
// and budgets are sane, and every loop schedule satisfies every dependence
// (cycle[dst] + distance*II >= cycle[src] + latency) with consistent stages, the embedded IR is
// one `schedule` would accept, every string that reaches generated C++ is safe there, and the
// budgets it claims are the real target's. It trusts nothing the producer claims; it never
// modifies the graph.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::sgraph {

// One problem: the JSON path of the offending field and what is wrong with it.
struct Problem {
  std::string path;
  std::string message;
};

// All problems found (empty = valid).
std::vector<Problem> check(const ScheduleGraph& g);

// Throws sched2cu::Error listing every problem (prefixed by `file`) if check() finds any.
void validate(const ScheduleGraph& g, const std::string& file);

// Throws sched2cu::Error (prefixed by `file`) when the graph's target claims more than the
// target's table `real` (targets/<g.target.name>.json): shared memory, registers per SM and per
// thread, threads per block, a role's setmaxnreg, or the roles' registers of every resident CTA.
void check_target(const ScheduleGraph& g, const ddg::Budgets& real, const std::string& file);

}  // namespace sched2cu::sgraph
