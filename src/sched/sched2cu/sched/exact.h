// The exact method: depth-first branch and bound over the same DDG, costs and reservation table
// as IMS, for each II from MII up to (excluding) the heuristic's II. It either finds a schedule
// at a smaller II (validated before use) or reports how far it got within a wall-clock budget.
// What its verdicts prove is stated in docs/scheduler.md; never claim more than `status` says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/sched/schedule.h"

namespace sched2cu::sched {

struct ExactResult {
  // "mii": the heuristic's II equals MII, a proven lower bound: optimal.
  // "exhausted": every II in [MII, heuristic II) was searched to completion without a schedule
  //   and every candidate set was exhaustive: a proof that no smaller II exists.
  // "searched": the same, but some candidate sets were limited to left-justified event points or
  //   to a window of 4 IIs: strong evidence, not a proof (see docs/scheduler.md).
  // "improved": a schedule at a smaller II was found (and validated).
  // "budget": the budget ran out first; nothing proven.
  // "off": the exact method was disabled.
  std::string status;
  std::optional<Schedule> better;
  // Every II in [searched_below, heuristic II) was searched to the end without a schedule
  // (the search goes downward from the heuristic's II).
  int64_t searched_below = 0;
  int64_t nodes_expanded = 0;
  bool wall_clock_hit = false;
};

// Feasibility search at one II. Returns a schedule, nullopt when the search space is exhausted,
// and sets `timed_out` when the deadline hit first.
std::optional<Schedule> exact_at(const ddg::Ddg& g, int64_t ii, int64_t deadline_ns,
                                 bool& timed_out, int64_t& expanded, bool* complete = nullptr,
                                 int64_t node_limit = INT64_MAX);

// Two budgets: `budget_nodes` search nodes (deterministic: the same verdict on every machine)
// and `budget_ms` of wall clock (a safety cap; if it hits first the verdict may differ between
// machines, and `wall_clock_hit` says so).
ExactResult exact_improve(const ddg::Ddg& g, int64_t mii, const Schedule& heuristic,
                          int64_t budget_ms, int64_t budget_nodes = INT64_MAX);

}  // namespace sched2cu::sched
