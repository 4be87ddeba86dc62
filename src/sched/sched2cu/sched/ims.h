// Iterative modulo scheduling (Rau 1994), the production heuristic: for II = MII, MII+1, ...
// place nodes by decreasing height-based priority at the earliest conflict-free cycle in
// [Estart, Estart + II), evicting resource conflicts and violated successors when none is free,
// within a placement budget. Every result is run through the validator before it is returned.
#pragma once

#include <cstdint>
#include <optional>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/sched/schedule.h"

namespace sched2cu::sched {

// One attempt at a fixed II; nullopt when the budget runs out.
std::optional<Schedule> ims_at(const ddg::Ddg& g, int64_t ii, int budget_per_node);

// The first II in [min_ii, max_ii] that IMS schedules; throws sched2cu::Error if none.
Schedule ims(const ddg::Ddg& g, int64_t min_ii, int64_t max_ii, int budget_per_node);

// Heights: longest latency-weighted path to any sink at this II (used as priority).
std::vector<int64_t> heights(const ddg::Ddg& g, int64_t ii);

}  // namespace sched2cu::sched
