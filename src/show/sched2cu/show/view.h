// What `sched2cu show` draws, as data derived from a schedule graph alone: the modulo
// reservation table of a loop, its nodes packed into role lanes, its ring lifetimes, the bounds
// on its II, and the kernel's register and shared-memory budgets. Kept apart from the SVG so
// that tests can check the pictures' content without parsing them. It never re-schedules: every
// cycle, depth and bound is the graph's, and the only sums it forms are the ones
// docs/scheduler.md defines (ResMII's engine and issue parts). Expects a graph that passed
// sgraph::validate (every id resolves).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::show {

// The pipelines of the reservation table's rows, in order (docs/schedule_graph.md, `pipeline`).
inline constexpr const char* kPipelines[] = {"TMA", "TC", "CUDA", "SFU"};

// Node `node` holds row `row` for the columns [start, start + len) of the II (0 <= start, and
// start + len <= II: a reservation that wraps past the II is two slots).
struct Slot {
  int node = 0;
  size_t row = 0;
  int lane = 0;  // sub-row of the row: reservations that overlap in a row are stacked
  int64_t start = 0, len = 0;
};

// Rows: the four pipelines (a node holds its pipeline for its `occupancy` from its cycle), then
// one issue row per role that issues anything (a node holds its role's instruction stream for
// its `issue_cost`), then "issue: every role" for role -1 nodes with an issue cost.
struct Mrt {
  int64_t ii = 0;
  std::vector<std::string> rows;
  std::vector<int> lanes;  // per row, at least 1
  std::vector<Slot> slots;
};
Mrt reservation_table(const sgraph::ScheduleGraph& g, size_t loop);

struct Load {
  std::string what;  // a pipeline ("TC") or a role's name
  int64_t cycles = 0;
};

// The II and its lower bounds. engine: summed occupancy per pipeline; issue: summed issue cost
// per role (the issue streams), and "one op" where a single op's cost exceeds them; their maximum
// is ResMII as the scheduler computes it, and MII = max(ResMII, RecMII, the summed super-node
// latency) (docs/scheduler.md, "MII").
struct Bounds {
  int64_t ii = 0, res_mii = 0, rec_mii = 0, super = 0, mii = 0;
  bool optimal = false;  // the graph's ii_optimal
  std::vector<Load> engine, issue;
};
Bounds bounds(const sgraph::ScheduleGraph& g, size_t loop);

// One node box of the role-lane picture: in lane `lane`, sub-row `row`, at the node's cycle.
struct Box {
  int node = 0;
  size_t lane = 0;
  int row = 0;
};

// Lanes: one per role that owns a node of the loop, in role order, then "every role" for the
// role -1 views every role rematerializes. Boxes in one sub-row of a lane start at least
// `box_cycles` apart (a box is drawn that wide), so their labels never overlap. span = stages * II.
struct Lanes {
  std::vector<std::string> names;
  std::vector<int> roles;  // per lane: role id, -1 for "every role"
  std::vector<int> rows;   // per lane: sub-rows used (at least 1)
  std::vector<Box> boxes;  // one per node, in node id order
  int64_t span = 0;
};
Lanes role_lanes(const sgraph::ScheduleGraph& g, size_t loop, double box_cycles);

// A loop buffer's slot lifetime: from the producer's issue (live_start) to its last consumer's
// completion (live_end), against the depth of its ring (depth slots, one II each).
struct Lifetime {
  int ring = 0, buffer = 0, depth = 0;
  int64_t start = 0, end = 0;
};
std::vector<Lifetime> ring_lifetimes(const sgraph::ScheduleGraph& g, size_t loop);

struct Segment {
  std::string what;
  int64_t amount = 0;
};
struct BudgetRow {
  std::string what;
  std::vector<Segment> parts;
  int64_t total() const;
};
// `rows` against `limit` (both in `unit`).
struct Budget {
  std::string unit;
  int64_t limit = 0;
  std::vector<BudgetRow> rows;
};

// The register file of one SM: every role's warpgroups x 128 threads x setmaxnreg, times the
// CTAs per SM, against target.regs_per_sm.
Budget register_budget(const sgraph::ScheduleGraph& g);

// Shared memory by when it is live, against target.smem_bytes: one row per top-level loop nest
// (the resident buffers and that nest's ring buffers, bytes x depth: the nests run one after
// the other), then one row for the function-scope staging of stores (with the resident buffers
// read outside every loop). Alignment padding and mbarriers (16 B a ring slot) are not drawn,
// and the emitter may overlay staging on the rings and let stores of one shape share a region
// (docs/emitter.md), so a staging row is what the stores need, not an extra.
Budget smem_budget(const sgraph::ScheduleGraph& g);

// "role 1 consumer", or "every role" for -1.
std::string role_name(const sgraph::ScheduleGraph& g, int role);

}  // namespace sched2cu::show
