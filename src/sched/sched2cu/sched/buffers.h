// Ring depth from lifetimes. A slot is busy from the TMA issue that fills it to the completion of
// its last reader, so depth = floor(span / II) + 1. Two spans are computed: `nominal` with mean
// latencies (fewer slots stall the loop: II must grow) and `tail` with the producer's loaded tail
// latency (slack that absorbs memory-latency variance, granted when the budget allows). Rings read
// by the same consumer share a depth. Must never give a ring depth 0 or exceed the SMEM budget
// silently: a cut is recorded and re-derives II.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/sched/schedule.h"

namespace sched2cu::sched {

struct RingDepth {
  int req = 0;                // index into Ddg::rings
  int64_t live_start = 0;     // producer issue cycle
  int64_t live_end = 0;       // last consumer completion (mean latencies)
  int64_t live_end_tail = 0;  // same with the producer's tail latency
  int nominal = 1;            // floor((end - start) / II) + 1
  int tail = 1;               // floor((end_tail - start) / II) + 1
  int depth = 1;              // chosen (group-equalized, capped, budget-fitted)
};

int64_t ring_depth_for(int64_t span, int64_t ii);  // floor(span / ii) + 1, >= 1

// Lifetimes and wanted depths at schedule `s` (no budget applied yet).
std::vector<RingDepth> ring_depths(const ddg::Ddg& g, const Schedule& s, bool use_tail,
                                   int max_depth);

// Bytes the rings need: slots plus a full and an empty mbarrier per slot per group.
int64_t ring_bytes(const ddg::Ddg& g, const std::vector<RingDepth>& r, int64_t mbarrier_bytes);

// Cuts depths (tail slack first, then below nominal, largest slots first, among equal slots the
// ring nearest its tail depth, never below 2 unless 2 does not fit) until ring_bytes <= avail.
// Returns false if even depth 1 does not fit.
bool fit_budget(const ddg::Ddg& g, std::vector<RingDepth>& r, int64_t avail,
                int64_t mbarrier_bytes);

// The smallest II at which every ring's nominal span fits its chosen depth.
int64_t ii_for_depths(const std::vector<RingDepth>& r, int64_t ii);

}  // namespace sched2cu::sched
