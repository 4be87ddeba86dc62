// The human report of `sched2cu schedule --report`. Plain text, one block per loop; it only
// formats what the driver decided and never changes a decision.
#include <fmt/format.h>

#include <algorithm>

#include "sched2cu/sched/kernel.h"

namespace sched2cu::sched {

std::string render_report(const KernelSchedule& k) {
  const auto& g = k.graph;
  std::string o = fmt::format("kernel {} ({}), num_warps {}, target {}\n", g.kernel.name,
                              g.kernel.source, g.kernel.num_warps, g.target.name);
  o += fmt::format("partition: {} warpgroups, grid ({}, {}, {})\n", g.launch.warpgroups,
                   sgraph::to_text(g.launch.grid.at(0)), sgraph::to_text(g.launch.grid.at(1)),
                   sgraph::to_text(g.launch.grid.at(2)));
  // One role has no setmaxnreg: its registers are the launch bound's cap (docs/emitter.md,
  // "Host launcher"), which the report must not call a setmaxnreg.
  const char* regs_what = k.partition.roles.size() > 1 ? "setmaxnreg" : "launch cap";
  for (const auto& r : k.partition.roles)
    o += fmt::format("  {:<8} warpgroups {}..{}  {} {:>3}  estimated {:>3} regs/thread{}\n", r.name,
                     r.first_wg, r.first_wg + r.wgs - 1, regs_what, r.regs, r.est_regs,
                     r.split_parts > 1
                         ? fmt::format("  split dim {} into {}", r.split_dim, r.split_parts)
                         : std::string());
  for (size_t i = 0; i < g.loops.size(); ++i) {
    const auto& L = g.loops[i];
    const auto& P = k.plans[i];
    std::string proof = P.exact.status == "mii"         ? "optimal (II = MII)"
                        : P.exact.status == "exhausted" ? "optimal (exact search exhausted below)"
                        : P.exact.status == "improved"  ? "improved by the exact method"
                        : P.exact.status == "searched"
                            ? "not proven (left-justified search found nothing below)"
                        : P.exact.status == "budget" ? "not proven (exact budget ran out)"
                                                     : "not proven (exact method off)";
    if (P.exact.status == "improved" && P.sched.ii == P.mii.mii) proof += ", optimal (II = MII)";
    o += fmt::format(
        "loop {} (op {}): II {}  MII {} (ResMII {} = max(engine {} on {}, issue {} on {}), "
        "RecMII {})\n",
        i, L.op, L.ii, P.mii.mii, P.mii.res, P.mii.engine,
        P.mii.engine_pipe.empty() ? "-" : P.mii.engine_pipe, P.mii.issue,
        P.mii.issue_stream.empty() ? "-" : P.mii.issue_stream, P.mii.rec);
    if (P.exact.status == "mii" || P.exact.status == "off")
      o += fmt::format("  II: {}; heuristic (IMS) II {}\n", proof, P.heuristic_ii);
    else if (P.exact.searched_below >= P.heuristic_ii)
      o += fmt::format("  II: {}; heuristic (IMS) II {}; exact search {} nodes decided no II{}\n",
                       proof, P.heuristic_ii, P.exact.nodes_expanded,
                       P.exact.wall_clock_hit ? " (wall-clock cap hit)" : "");
    else
      o += fmt::format(
          "  II: {}; heuristic (IMS) II {}; exact search {} nodes, no schedule in [{}, {}){}\n",
          proof, P.heuristic_ii, P.exact.nodes_expanded, P.exact.searched_below, P.heuristic_ii,
          P.exact.wall_clock_hit ? " (wall-clock cap hit: machine-dependent)" : "");
    o += fmt::format("  stages {}  nodes {}  edges {}\n", L.stages, L.nodes.size(), L.edges.size());
    for (const auto& b : g.buffers) {
      if (b.loop != static_cast<int>(i)) continue;
      std::string shape;
      for (size_t d = 0; d < b.shape.size(); ++d) {
        if (d)
          shape += 'x';  // appended separately: `"x" + std::string&&` trips GCC 12's -Wrestrict
        shape += std::to_string(b.shape[d]);
      }
      o += fmt::format("  buffer {} {}x{} ({} B/slot) ring {}: depth {}  live {}..{}\n", b.id,
                       shape, b.elem, b.bytes, b.ring, b.depth, b.live_start, b.live_end);
    }
    for (const auto& r : P.rings)
      o += fmt::format("    ring req {}: depth nominal {} / tail {} -> {}{}\n", r.req, r.nominal,
                       r.tail, r.depth,
                       r.box_cols > 0
                           ? fmt::format(" slots of {}-column subtiles (store staging)", r.box_cols)
                           : std::string());
    o += fmt::format("  ring shared memory {} B{}\n", P.ring_bytes,
                     P.budget_cut ? " (cut to fit the budget)" : "");
  }
  for (const auto& b : g.buffers)
    if (b.loop < 0) {
      std::string shape;
      for (size_t d = 0; d < b.shape.size(); ++d) {
        if (d)
          shape += 'x';  // appended separately: `"x" + std::string&&` trips GCC 12's -Wrestrict
        shape += std::to_string(b.shape[d]);
      }
      o += fmt::format("function-scope buffer {} {}x{} ({} B) for op {}\n", b.id, shape, b.elem,
                       b.bytes, b.producer_op);
    }
  // Kernel-wide shared memory as schedule_kernel planned it: resident prologue buffers + the
  // ring pool + epilogue staging, or max(pool, staging) when the staging overlays the pool.
  const int64_t resident = k.smem_resident, rings = k.smem_rings, staging = k.smem_staging;
  const std::string pool =
      k.phases > 1 ? "ring pool of " + std::to_string(k.phases) + " phases " : "rings ";
  if (!k.smem_overlay)
    o += fmt::format("shared memory: resident {} + {}{} + epilogue staging {} = {} of {} B\n",
                     resident, pool, rings, staging, resident + rings + staging,
                     g.target.smem_bytes);
  else
    o += fmt::format(
        "shared memory: resident {} + max({}{}, epilogue staging {} overlaid) = {} of {} B\n",
        resident, pool, rings, staging, resident + std::max(rings, staging), g.target.smem_bytes);
  for (const auto& w : k.warnings) o += "warning: " + w + "\n";
  for (const auto& n : k.notes) o += "note: " + n + "\n";
  return o;
}

}  // namespace sched2cu::sched
