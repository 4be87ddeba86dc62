// The independent schedule validator. It re-derives every rule from the DDG alone and is run on
// every schedule, whoever produced it (IMS, the exact method, a test, a file): every dependence
// cycle[dst] + distance*II >= cycle[src] + latency, cycles >= 0, no issue stream overbooked in
// any column of the modulo reservation table, and no pipeline's summed occupancy above II. It
// shares no code with the schedulers on purpose.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/sched/schedule.h"

namespace sched2cu::sched {

// All violations, one readable line each; empty = valid.
std::vector<std::string> check_schedule(const ddg::Ddg& g, const Schedule& s);

// Throws sched2cu::Error listing the violations (`what` names the loop) if there are any.
void validate_schedule(const ddg::Ddg& g, const Schedule& s, const std::string& what);

}  // namespace sched2cu::sched
