// `sched2cu emit`: lowers a schedule graph, op by op, into one self-contained CUDA C++ file for
// sm_90a (a warp-specialized __global__ kernel plus the extern "C" launcher of docs/abi.md).
// One algorithm for every kernel: it must never branch on kernel names or shapes, and a
// construct it cannot lower is a sched2cu::Error naming the op and its TTGIR line, never a
// silent drop. See docs/emitter.md.
#pragma once

#include <string>

#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::emit {

struct Options {
  // Path of the graph, for error messages only (the output never contains it).
  std::string graph_path = "schedule_graph.json";
};

// The generated.cu text. Validates the graph first (sgraph::validate); throws sched2cu::Error.
std::string emit_cuda(const sgraph::ScheduleGraph& g, const Options& opts);

}  // namespace sched2cu::emit
