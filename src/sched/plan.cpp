// One loop, end to end (see plan.h).
#include "sched2cu/sched/plan.h"

#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/sched/ims.h"
#include "sched2cu/sched/validate.h"

namespace sched2cu::sched {

LoopPlan plan_loop(const ddg::Ddg& g, const Options& o, int64_t smem_avail,
                   int64_t mbarrier_bytes) {
  LoopPlan p;
  p.mii = compute_mii(g);
  if (p.mii.mii > o.max_ii) {
    // An inner loop's latency is saturated just past the limit (kernel.cpp): say "above".
    auto cycles = [&](int64_t v) {
      return v > o.max_ii ? "> " + std::to_string(o.max_ii) : std::to_string(v);
    };
    throw Error("II: the loop's minimum II (ResMII " + cycles(p.mii.res) + ", RecMII " +
                cycles(p.mii.rec) + ", inner-loop latency " + cycles(p.mii.super) +
                " cycles) is above the scheduler's limit of " + std::to_string(o.max_ii) +
                " (--max-ii); an inner loop's latency is its II times its trip count (32 when it "
                "is not a constant) plus its stages, so each level of nesting multiplies it");
  }
  const int64_t max_ii =
      std::min(o.max_ii, std::max<int64_t>(p.mii.mii * o.max_ii_factor, p.mii.mii + 16));
  p.sched = ims(g, p.mii.mii, max_ii, o.ims_budget_per_node);
  validate_schedule(g, p.sched, "IMS");
  compact(g, p.sched);
  validate_schedule(g, p.sched, "IMS after compaction");
  p.heuristic_ii = p.sched.ii;
  p.exact = exact_improve(g, p.mii.mii, p.sched, o.exact_budget_ms, o.exact_budget_nodes);
  if (p.exact.better) {
    validate_schedule(g, *p.exact.better, "the exact method");
    p.sched = *p.exact.better;
    compact(g, p.sched);
    validate_schedule(g, p.sched, "the exact method after compaction");
  }
  sink_mma_feeders(g, p.sched);
  validate_schedule(g, p.sched, "sinking MMA feeders");
  p.prefetched = prefetch_vector_loads(g, p.sched);
  validate_schedule(g, p.sched, "prefetching vector loads");
  p.ii_before_cut = p.sched.ii;
  // Store staging form (docs/scheduler.md, "Epilogue staging"): the whole stored tile, unless it
  // does not fit or costs another ring depth that a 2-slot ring of column subtiles would not.
  bool narrow = false;
  {
    auto whole = ring_depths(g, p.sched, o.tail_depth, o.max_ring_depth), sub = whole;
    const bool whole_fits = fit_budget(g, whole, smem_avail, mbarrier_bytes);
    if (narrow_store_staging(g, sub) && fit_budget(g, sub, smem_avail, mbarrier_bytes)) {
      bool costs_depth = !whole_fits;
      for (size_t i = 0; i < sub.size(); ++i)
        costs_depth |= sub[i].box_cols == 0 && whole[i].depth < sub[i].depth;
      narrow = costs_depth;
    }
  }
  auto depths = [&] {
    auto r = ring_depths(g, p.sched, o.tail_depth, o.max_ring_depth);
    if (narrow) narrow_store_staging(g, r);
    return r;
  };
  for (int round = 0;; ++round) {
    p.rings = depths();
    auto wanted = p.rings;
    if (!fit_budget(g, p.rings, smem_avail, mbarrier_bytes))
      throw Error("shared memory: the loop's rings need " +
                  std::to_string(ring_bytes(g, p.rings, mbarrier_bytes)) +
                  " bytes at depth 1 but only " + std::to_string(smem_avail) + " are available");
    for (size_t i = 0; i < wanted.size(); ++i) p.budget_cut |= p.rings[i].depth < wanted[i].depth;
    int64_t need = ii_for_depths(p.rings, p.sched.ii);
    if (need <= p.sched.ii) break;
    if (need > o.max_ii)
      throw Error("II: the rings cut to fit shared memory need II " + std::to_string(need) +
                  ", above the scheduler's limit of " + std::to_string(o.max_ii) + " (--max-ii)");
    if (round == 32) throw Error("II re-derivation after a shared-memory cut did not converge");
    // Keep the cut depths: reschedule at the larger II and recompute lifetimes there.
    std::vector<int> cap;
    for (auto& r : p.rings) cap.push_back(r.depth);
    p.sched = ims(g, need, std::min(o.max_ii, std::max(need * o.max_ii_factor, need + 16)),
                  o.ims_budget_per_node);
    validate_schedule(g, p.sched, "IMS after a shared-memory cut");
    compact(g, p.sched);
    validate_schedule(g, p.sched, "IMS after a cut and compaction");
    sink_mma_feeders(g, p.sched);
    validate_schedule(g, p.sched, "sinking MMA feeders after a cut");
    p.prefetched = prefetch_vector_loads(g, p.sched);
    validate_schedule(g, p.sched, "prefetching vector loads after a cut");
    auto again = depths();
    for (size_t i = 0; i < again.size(); ++i) again[i].depth = std::min(again[i].depth, cap[i]);
    if (ii_for_depths(again, p.sched.ii) <= p.sched.ii &&
        ring_bytes(g, again, mbarrier_bytes) <= smem_avail) {
      p.rings = again;
      break;
    }
  }
  p.ring_bytes = ring_bytes(g, p.rings, mbarrier_bytes);
  validate_schedule(g, p.sched, "the final schedule");
  return p;
}

std::optional<std::string> cap_loop_stages(ddg::Ddg& g, LoopPlan& plan, const Options& o,
                                           int64_t smem_avail, int64_t mbarrier_bytes,
                                           const std::string& loop_name) {
  const int max_stages = o.max_stages;
  const int before = plan.sched.max_stage() + 1;
  if (max_stages <= 0 || before <= max_stages) return std::nullopt;
  auto clamped = [&](int64_t bound) {
    ddg::Ddg h = g;
    for (auto& e : h.edges) e.latency = std::min(e.latency, bound);
    for (auto& n : h.nodes) {  // ring lifetimes read the node latencies
      n.latency = std::min(n.latency, bound);
      n.latency_tail = std::min(n.latency_tail, bound);
    }
    return h;
  };
  // The largest bound that fits (stages grow with it): the least latency given up. The search
  // reaches max_stages · II: a cap of 1 needs bounds up to II (every latency inside one
  // iteration), which (max_stages - 1) · II would leave out.
  std::optional<LoopPlan> best;
  int64_t best_bound = 0;
  ddg::Ddg best_g;
  int64_t lo = 1, hi = int64_t{max_stages} * std::max<int64_t>(1, plan.sched.ii);
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    ddg::Ddg h = clamped(mid);
    LoopPlan q = plan_loop(h, o, smem_avail, mbarrier_bytes);
    if (q.sched.max_stage() + 1 <= max_stages) {
      best = std::move(q);
      best_bound = mid;
      best_g = std::move(h);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  const std::string prefix = loop_name + ": " + std::to_string(before) + " stages ";
  if (!best)
    return prefix + "kept: no latency bound fits them in " + std::to_string(max_stages) + " (" +
           o.max_stages_from + ")";
  g = std::move(best_g);
  plan = std::move(*best);
  const std::string b = std::to_string(best_bound);
  return prefix + "capped at " + std::to_string(max_stages) + " (" + o.max_stages_from +
         "; a run-time trip count): latencies above " + b + " cycles modeled as " + b +
         ", the rest waited out in hardware";
}

}  // namespace sched2cu::sched
