// Split loops (docs/scheduler.md, "Split loops"): which scheduled loop the CTAs of a cluster may
// share, each running a contiguous part of its iterations and summing the loop's results into
// the cluster's first CTA. Decides Loop::split only; never changes a schedule, a ring or a role.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched {

// The largest cluster a split loop may use (the launcher picks 1, 2 or 4 per launch).
inline constexpr int kMaxSplit = 4;

// Marks at most one loop of `g` with split = kMaxSplit: the first, in program order, whose
// iterations may be divided (see the definition for the conditions), and says why in `notes`
// when a tensor-core loop may not be.
void plan_split(const ttgir::Function& f, sgraph::ScheduleGraph& g,
                std::vector<std::string>& notes);

}  // namespace sched2cu::sched
