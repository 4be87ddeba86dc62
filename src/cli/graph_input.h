// Shared by the subcommands that read a schedule graph to lower or draw it (emit, verify,
// show): the check of the graph's target claims against the real target table. Header-only; no
// pipeline logic.
#pragma once

#include <algorithm>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::cli {

// A graph names its target and carries that target's budgets, which the emitter plans with: a
// graph edited to claim more than the real target (targets/<name>.json) would be planned into
// shared memory or registers the GPU does not have. Checked against the table, not trusted.
inline void check_target(const sched2cu::sgraph::ScheduleGraph& g, const std::string& path) {
  using sched2cu::Error;
  const auto t =
      sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path(g.target.name));
  const auto& b = t.budgets;
  auto over = [&](const char* what, long long claimed, long long real) {
    if (claimed > real)
      throw Error(path + ": error: the graph's target " + g.target.name + " claims " +
                  std::to_string(claimed) + " " + what + "; the target table has " +
                  std::to_string(real) + " (targets/" + g.target.name + ".json)");
  };
  over("B of shared memory per block", g.target.smem_bytes, b.smem_bytes_per_block);
  over("registers per SM", g.target.regs_per_sm, b.regs_per_sm);
  over("registers per thread", g.target.max_regs_per_thread, b.max_regs_per_thread);
  over("threads per block", g.target.max_threads_per_block, b.max_threads_per_block);
  long long regs = 0;
  for (const auto& r : g.launch.roles) {
    over("registers per thread in a role (setmaxnreg)", r.regs, b.setmaxnreg_max);
    regs += 1LL * r.regs * b.threads_per_warpgroup * static_cast<long long>(r.warpgroups.size());
  }
  over("registers per SM over its roles and CTAs", regs * std::max(1, g.launch.ctas_per_sm),
       b.regs_per_sm);
}

}  // namespace sched2cu::cli
