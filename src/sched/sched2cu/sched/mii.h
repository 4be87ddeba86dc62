// Lower bounds on the initiation interval: ResMII from engine occupancy per pipeline and issue
// cost per stream, RecMII from every dependence circuit (exact: the smallest II without a
// positive-weight circuit under weights latency - distance*II), MII = max of them and of the
// summed latency of the super-nodes (nested loops). Must never use latency for ResMII or occupancy
// for RecMII.
#pragma once

#include <cstdint>
#include <string>

#include "sched2cu/ddg/ddg.h"

namespace sched2cu::sched {

struct Mii {
  int64_t engine = 0;  // max over pipelines of summed occupancy
  std::string engine_pipe;
  int64_t issue = 0;  // max over issue streams of summed issue cost (and any single issue)
  std::string issue_stream;
  int64_t res = 0;    // max(engine, issue)
  int64_t rec = 0;    // 0 when there is no circuit
  int64_t super = 0;  // summed super-node latency (nested loops run one after another)
  int64_t mii = 1;
};

Mii compute_mii(const ddg::Ddg& g);

// True when, at this II, some dependence circuit has positive weight (II below RecMII).
bool has_positive_circuit(const ddg::Ddg& g, int64_t ii);

}  // namespace sched2cu::sched
