// A graph's target against the real one: a graph names its target and carries that target's
// budgets, which the emitter plans with; a graph edited to claim more than the target table
// (targets/<name>.json) would be planned into shared memory or registers the GPU does not have.
// Checked against the table, never trusted; never reads a file (the caller loads the table).
#include <algorithm>

#include "sched2cu/common/diag.h"
#include "sched2cu/sgraph/validate.h"

namespace sched2cu::sgraph {

void check_target(const ScheduleGraph& g, const ddg::Budgets& b, const std::string& file) {
  auto over = [&](const char* what, long long claimed, long long real) {
    if (claimed > real)
      throw Error(file + ": error: the graph's target " + g.target.name + " claims " +
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

}  // namespace sched2cu::sgraph
