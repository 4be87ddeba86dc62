// Shared by the subcommands that read a schedule graph without lowering it (show): the check of
// the graph's target claims against the real target table, which lower_program makes itself for
// emit and verify. Header-only; no pipeline logic.
#pragma once

#include <string>

#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/sgraph/validate.h"

namespace sched2cu::cli {

// sgraph::check_target against targets/<g.target.name>.json; throws sched2cu::Error.
inline void check_target(const sched2cu::sgraph::ScheduleGraph& g, const std::string& path) {
  const auto t =
      sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path(g.target.name));
  sched2cu::sgraph::check_target(g, t.budgets, path);
}

}  // namespace sched2cu::cli
