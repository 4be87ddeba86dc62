// Ring depth from lifetimes. A slot is busy from the TMA issue that fills it to the completion of
// its last reader, so depth = floor(span / II) + 1. Two spans are computed: `nominal` with mean
// latencies (fewer slots stall the loop: II must grow) and `tail` with the producer's loaded tail
// latency (slack that absorbs memory-latency variance, granted when the budget allows). Rings read
// by the same consumer share a depth. Must never give a ring depth 0 or exceed the SMEM budget
// silently: a cut is recorded and re-derives II. A TMA store's staging ring may instead be narrowed
// to a 2-slot ring of TMA-box-wide column subtiles (narrow_store_staging), never cut further.
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
  // TMA store staging narrowed to column subtiles one TMA box wide (docs/scheduler.md, "Epilogue
  // staging"): a slot is [rows, box_cols] and `depth` counts box slots (2), not iterations; the
  // cut never touches it. 0 = the whole stored tile per slot.
  int64_t box_cols = 0;
};

// The column-subtile width a staged 2-D tile can be narrowed to: one 128-byte swizzle span of
// elements (the TMA box width, 64 for f16) when the tile is wider than that and a multiple of it;
// 0 when it cannot be narrowed.
int64_t staging_box_cols(const std::vector<int64_t>& shape, int64_t elem_bytes);

// Bytes of one slot of a ring: the request's, or one column subtile once narrowed.
int64_t slot_bytes(const ddg::Ddg& g, const RingDepth& r);

// Narrows every TMA store staging ring that can be (staging_box_cols) to a 2-slot ring of column
// subtiles. Returns false when none can.
bool narrow_store_staging(const ddg::Ddg& g, std::vector<RingDepth>& r);

int64_t ring_depth_for(int64_t span, int64_t ii);  // floor(span / ii) + 1, >= 1

// Lifetimes and wanted depths at schedule `s` (no budget applied yet).
std::vector<RingDepth> ring_depths(const ddg::Ddg& g, const Schedule& s, bool use_tail,
                                   int max_depth);

// Bytes the rings need: slots plus a full and an empty mbarrier per slot per group.
int64_t ring_bytes(const ddg::Ddg& g, const std::vector<RingDepth>& r, int64_t mbarrier_bytes);

// The least bytes the rings can take: every ring at depth 1, store staging narrowed where that is
// smaller (a loop that cannot get this much cannot be planned at all).
int64_t min_ring_bytes(const ddg::Ddg& g, int64_t mbarrier_bytes);

// Cuts depths (tail slack first, then below nominal, largest slots first, among equal slots the
// ring nearest its tail depth, never below 2 unless 2 does not fit) until ring_bytes <= avail.
// Returns false if even depth 1 does not fit.
bool fit_budget(const ddg::Ddg& g, std::vector<RingDepth>& r, int64_t avail,
                int64_t mbarrier_bytes);

// The smallest II at which every ring's nominal span fits its chosen depth (a narrowed store
// staging ring counts as one iteration deep: the emitter drains an iteration's stores before the
// next iteration's first box reuses a slot).
int64_t ii_for_depths(const std::vector<RingDepth>& r, int64_t ii);

}  // namespace sched2cu::sched
