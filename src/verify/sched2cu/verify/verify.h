// `sched2cu verify`: proves the synchronization protocol of an emitted kernel before it runs
// (docs/verify.md). The model is read off the statements the emitter prints (emit::Program),
// never re-derived from the schedule graph; the checker explores every interleaving of the
// kernel's warpgroups over a set of trip-count scenarios that covers every ring wrap. It must
// never call a protocol proven that it did not explore, and never guess what it cannot evaluate.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::verify {

struct Options {
  long long max_states = 4000000;  // per scenario; more is an error, never a silent pass
  bool dump_events = false;        // print every warpgroup's events per scenario on stderr
};

struct Report {
  bool ok = true;
  int scenarios = 0;     // trip-count scenarios explored
  long long states = 0;  // distinct states over all of them
  std::string failure;   // the violation: the scenario, what broke, a per-warpgroup trace
};

// Explores `p` (lowered from `g`, which names the loops, their rings and source lines).
Report verify(const emit::Program& p, const sgraph::ScheduleGraph& g, const Options& o = {});

// The mutation suite (mutate.cpp): a protocol broken one way at a time.
struct Mutant {
  std::string name;  // "ring-empty-count+1:ring0_0", "arm-bytes-16:2", ...
  std::string what;  // the change, in words
};
// Every mutant of `p`'s protocol, in statement order.
std::vector<Mutant> mutants(const emit::Program& p);
// `p` with mutant `name` applied; throws sched2cu::Error for a name mutants() does not list.
emit::Program mutate(const emit::Program& p, const std::string& name);

}  // namespace sched2cu::verify
