// Scheduling one loop end to end on its DDG: MII, IMS, the exact method, ring depths under the
// SMEM available to the loop (a TMA store's staging narrowed to column subtiles when the whole
// tile would not fit or would cost another ring depth), and the re-derivation of II when a budget
// cut leaves a ring too shallow for its lifetime (fixed point: reschedule at the larger II,
// recompute lifetimes). Every schedule it keeps has passed the validator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/sched/buffers.h"
#include "sched2cu/sched/exact.h"
#include "sched2cu/sched/mii.h"
#include "sched2cu/sched/schedule.h"

namespace sched2cu::sched {

struct LoopPlan {
  Mii mii;
  Schedule sched;
  int64_t heuristic_ii = 0;  // what IMS found before the exact method and budget cuts
  ExactResult exact;
  std::vector<RingDepth> rings;
  int64_t ring_bytes = 0;       // slots + barriers
  bool budget_cut = false;      // some ring got less than it wanted
  int64_t ii_before_cut = 0;    // II before a cut forced it up (== sched.ii if none did)
  std::vector<int> prefetched;  // vector loads issued a step ahead (prefetch_vector_loads)
};

LoopPlan plan_loop(const ddg::Ddg& g, const Options& o, int64_t smem_avail, int64_t mbarrier_bytes);

// The stage cap (docs/scheduler.md, "Stage cap"): where `plan` (the plan of `g`) has more than
// o.max_stages stages, `g` is planned again with every edge latency above a bound lowered to it,
// the largest bound (at most max_stages * II) whose plan fits. A shortened latency is only a
// model choice: the reader then waits for the value in hardware (a scoreboard or barrier wait),
// so every schedule stays correct. On success `g` becomes the graph the plan was made on (its
// latencies are what the schedule graph records) and `plan` the capped plan. Returns the note
// that says what was done or that no bound fits (`plan` then unchanged), for `loop_name`;
// nullopt when the plan is within the cap or no cap is set.
std::optional<std::string> cap_loop_stages(ddg::Ddg& g, LoopPlan& plan, const Options& o,
                                           int64_t smem_avail, int64_t mbarrier_bytes,
                                           const std::string& loop_name);

}  // namespace sched2cu::sched
