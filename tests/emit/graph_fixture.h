// A committed schedule graph loaded for the emitter's unit tests: the graph, its kernel function,
// a lowering context over them, and lookups of IR values by name. Test-only; never part of the
// emitter.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

#include "lower.h"
#include "sched2cu/sgraph/json_io.h"

namespace sched2cu::testing {

struct GraphFixture {
  explicit GraphFixture(const std::filesystem::path& p) : g(sgraph::read_schedule_graph(p)) {}
  explicit GraphFixture(sgraph::ScheduleGraph graph) : g(std::move(graph)) {}
  sgraph::ScheduleGraph g;
  const ttgir::Function& f = g.ir.function(g.kernel.name);
  emit::Ctx c{g, g.ir, f};
  // The id of the IR value named `name` (its SSA name without '%').
  int value(const std::string& name) const {
    for (const auto& v : f.values)
      if (v.name == name) return v.id;
    throw std::runtime_error("no value " + name);
  }
  int op_of(int v) const { return f.value(v).def_op; }
};

}  // namespace sched2cu::testing
