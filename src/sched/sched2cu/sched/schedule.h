// Core scheduling types shared by the heuristic, the exact method and the validator: the options
// struct (the only knobs; each is a named CLI flag of `sched2cu schedule`), a modulo schedule, and
// the modulo reservation table. Must never read environment variables or global state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/ddg/ddg.h"

namespace sched2cu::sched {

struct Options {
  std::string target_path;             // --target; empty = TargetModel::default_path()
  int64_t exact_budget_ms = 2000;      // --exact-budget-ms: wall-clock cap of the exact method per
                                       // loop (0 disables it)
  int64_t exact_budget_nodes = 40000;  // --exact-budget-nodes: search nodes per loop; this
                                       // deterministic budget normally ends the search first
  int ims_budget_per_node = 100;       // --ims-budget: IMS placement attempts per node and II
  int max_ii_factor = 4;               // --max-ii-factor: give up above factor * MII
  int max_ring_depth = 8;              // --max-ring-depth: cap of any ring's depth
  bool tail_depth = true;              // --no-tail-depth: size rings on mean latency only
  // --max-ii: the largest II (cycles) the scheduler works at. Its reservation tables and slot
  // searches grow with II, and nested loops multiply it (an outer loop's II is at least its inner
  // loop's latency): without a bound, eight nested loops asked for terabytes. 2^24 cycles is
  // about 10 ms per iteration; the corpus' largest II is about 33,000.
  int64_t max_ii = int64_t{1} << 24;
  // --max-stages: the most pipeline stages a loop whose trip count is a run-time value may take
  // (0 = no cap; docs/scheduler.md, "Stage cap"). The emitter runs such a loop pipelined only
  // when its trip count reaches stages - 1, in reference order otherwise.
  int max_stages = 0;
  // Who set max_stages, for the notes that report the cap ("--max-stages" or a default's name).
  std::string max_stages_from = "--max-stages";
};

struct Schedule {
  int64_t ii = 0;
  std::vector<int64_t> cycle;  // per node; >= 0
  int64_t stage(int n) const { return cycle[n] / ii; }
  int64_t max_stage() const;
  // Rank of each node's cycle within its stage (dense, ties share a rank).
  std::vector<int> order_in_stage() const;
};

// Modulo reservation table, II columns per row. One row per issue stream: a node with issue cost
// c at cycle t holds columns t..t+c-1 (mod II) of its stream's row (NONE / zero-issue nodes hold
// none). One row for the tensor core: a TC node holds it for `tc_hold` cycles (its occupancy, or
// its warpgroup's share under ping-pong) from its issue on, because
// wgmma groups execute in issue order on the SM's tensor cores, so a second MMA issued while the
// first still runs only starts when it ends, and its result arrives that much later than its
// latency says (an MMA whose result is awaited behind another one cannot overlap the register math
// that waits for it). Under ping-pong (tc_turns warpgroups taking turns) the hold recurs every
// II / tc_turns cycles: the other warpgroups' copies of the MMA, one turn apart. Other engines
// are bounded by II >= ResMII only.
class Mrt {
 public:
  Mrt(const ddg::Ddg& g, int64_t ii);
  bool reserves(int n) const { return !res_[n].empty(); }
  bool fits(int n, int64_t t) const;                   // every column free (or already n's)
  std::vector<int> conflicts(int n, int64_t t) const;  // distinct occupants in n's columns
  void place(int n, int64_t t);
  void remove(int n, int64_t t);
  int64_t ii() const { return ii_; }

 private:
  struct Res {
    int row;
    int64_t len;
    int64_t offset;  // from the node's cycle
  };
  int64_t ii_;
  std::vector<std::vector<Res>> res_;  // per node
  std::vector<std::vector<int>> table_;
};

// Register math whose every result reaches only MMAs (through views) is moved as late as its
// dependences and the reservation table allow: right before the MMA that reads it, where it
// overlaps the MMAs issued before it instead of delaying their issue (attention's O rescale
// inside the warpgroup's tensor-core turn). A narrowing conversion (attention's P to bf16)
// stays: issued later it would keep its wider operand live across the MMAs issued before it
// (and, written in place, the registers the next QK overwrites). Keeps the schedule valid
// (checked; a move that breaks it is undone) and never changes II.
void sink_mma_feeders(const ddg::Ddg& g, Schedule& s);

// In a loop with tensor-core work, a global load of a scalar or a vector (a per-row scale) whose
// first reader is less than one II after it is issued about one iteration earlier: its node and
// the address math that only it reads move to just after the last reader's slot, one II back,
// when the latency and the reservation table allow (the value then lives less than one II: the
// expander reads it without a carried copy, whose move the compiler may place right behind the
// load, waiting for it), else by exactly II.
// Why: a warpgroup issues in order, so a load's latency is hidden only by the work issued between
// it and its reader; issued in the same step, the reader stalls the warpgroup (and the MMAs it
// issues next) for whatever of the global latency the step has not covered, which the static
// latency (an uncalibrated L2 hit) understates under the kernel's own traffic. An iteration
// ahead, a whole step covers it, for a copy of a few registers. Keeps the schedule valid (a move
// that breaks it is undone) and never changes II.
// Returns the loads it moved (node ids).
std::vector<int> prefetch_vector_loads(const ddg::Ddg& g, Schedule& s);

// Shifts all cycles so that the smallest is 0 (keeps every modulo relation intact).
void normalize(Schedule& s);

// Keeps every node's reservation-table column (cycle mod II) and moves each node to the
// earliest cycle in that column the dependences allow (the least solution, reached by monotone
// relaxation from the columns themselves). Never raises a cycle, so a valid schedule stays
// valid; it removes the empty stages a heuristic leaves, shortening lifetimes and stage count.
void compact(const ddg::Ddg& g, Schedule& s);

}  // namespace sched2cu::sched
