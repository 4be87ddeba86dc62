// The kernel driver's load-path choice (docs/scheduler.md, "Load path"): schedules the kernel
// with its tile loads on TMA and on plain loads (schedule_kernel_with, kernel.cpp) and keeps the
// schedule load_path.h predicts faster, or the one --loads forces. Must never decide by kernel
// name; a forced choice a kernel cannot take is an error naming the load that forbids it.
#include <algorithm>
#include <optional>
#include <set>

#include "sched2cu/common/diag.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sched/load_path.h"
#include "sched2cu/ttgir/lift.h"

namespace sched2cu::sched {
namespace {

// Stages of a run-time-trip loop in a kernel with pointer loads only (no --max-stages): see
// schedule_paths.
constexpr int kPointerLoopStages = 1;

using ttgir::Function;
using ttgir::OpId;

// The kernel's predicted load rate: the slowest loop that reads a candidate load.
LoadRate kernel_load_rate(const KernelSchedule& ks, const ttgir::Function& f,
                          const std::set<OpId>& cands, const ddg::TargetModel& t) {
  LoadRate worst;
  bool any = false;
  for (size_t k = 0; k < ks.graph.loops.size(); ++k) {
    int64_t tile = 0;
    for (const auto& n : ks.graph.loops[k].nodes)
      if (cands.count(n.op) != 0)
        tile = std::max(tile, f.value(f.op(n.op).results.at(0)).type.byte_size());
    if (tile == 0) continue;
    const LoadRate r = predict_load_rate(ks.graph, static_cast<int>(k), t, tile);
    if (!any || r.bytes_per_clk < worst.bytes_per_clk) worst = r;
    any = true;
  }
  return worst;
}

// The plain-load schedule with the best predicted rate over the copies of each load kept in
// flight (1..4: more copies cover more latency, but their registers leave room for fewer CTAs
// per SM); the fewest copies among equal rates.
KernelSchedule best_global(const ttgir::Module& m, const std::string& source,
                           const ddg::TargetModel& t, const KernelOptions& o,
                           const std::set<OpId>& cands, const Function& f) {
  std::optional<KernelSchedule> best;
  LoadRate best_rate;
  for (int copies = 1; copies <= 4; ++copies) {
    KernelSchedule ks = schedule_kernel_with(m, source, t, o, cands, false, copies);
    const LoadRate r = kernel_load_rate(ks, f, cands, t);
    if (!best || r.bytes_per_clk > best_rate.bytes_per_clk * 1.001) {
      best = std::move(ks);
      best_rate = r;
    }
  }
  return std::move(*best);
}

KernelSchedule schedule_paths(const ttgir::Module& m, const std::string& source,
                              const ddg::TargetModel& t, const KernelOptions& o);

// Where the consumers' plain loads in flight do not fit their registers (the spill warning) and
// no --max-stages was given: the same schedule with the stages of its run-time-trip loops capped
// (docs/scheduler.md, "Stage cap"), the largest cap whose loads in flight fit; fewer stages keep
// fewer copies of each load. Triton's softmax tutorial spilled 36 B with 9 stages and none at 5,
// and ran 2635 and 2664 GB/s on an H100 (2026-12-07). The schedule as it was when no cap fits.
KernelSchedule fit_loads_in_flight(const ttgir::Module& m, const std::string& source,
                                   const ddg::TargetModel& t, const KernelOptions& o,
                                   KernelSchedule ks) {
  if (ks.loads_over_allotment == 0 || o.sched.max_stages > 0) return ks;
  int most = 0;
  for (const auto& L : ks.graph.loops) most = std::max(most, L.stages);
  for (int cap = most - 1; cap >= 2; --cap) {
    KernelOptions capped = o;
    capped.sched.max_stages = cap;
    capped.sched.max_stages_from = "so that the loads in flight fit";
    KernelSchedule k = schedule_paths(m, source, t, capped);
    if (k.loads_over_allotment != 0) continue;
    k.notes.push_back("stages capped at " + std::to_string(cap) +
                      " (loops with run-time trip counts) so that the plain loads the consumers "
                      "keep in flight fit their registers: uncapped, " +
                      std::to_string(ks.loads_over_allotment) +
                      " per thread against the allotment (spills possible)");
    return k;
  }
  return ks;
}

}  // namespace

KernelSchedule schedule_kernel(const ttgir::Module& m, const std::string& source,
                               const ddg::TargetModel& t, const KernelOptions& o) {
  // Pointer tiles that feed an MMA, or hold its result, become tensor-descriptor loads and stores
  // where provably equal (sched2cu/ttgir/lift.h); the rest of the pipeline sees descriptors.
  ttgir::Module lifted = m;
  const auto notes = ttgir::lift_pointer_tiles(lifted, kernel_function(m).name);
  if (notes.empty()) return fit_loads_in_flight(m, source, t, o, schedule_paths(m, source, t, o));
  KernelSchedule ks =
      fit_loads_in_flight(lifted, source, t, o, schedule_paths(lifted, source, t, o));
  ks.notes.insert(ks.notes.begin(), notes.begin(), notes.end());
  return ks;
}

namespace {

KernelSchedule schedule_paths(const ttgir::Module& m, const std::string& source,
                              const ddg::TargetModel& t, const KernelOptions& o) {
  const Function& f = kernel_function(m);
  refuse_pointer_mma_operands(f, source);
  const LoadCandidates c = load_candidates(m, f);
  // No producer warpgroup unless some load goes through TMA.
  const bool tma_needed = c.needs_tma != ttgir::kNoId;
  if (tma_needed && o.loads == LoadMode::Global)
    throw Error(source + ": error: --loads global: " + op_text(f, c.needs_tma) +
                " needs TMA into shared memory, so the kernel keeps its producer warpgroup");
  if (!c.loops && !tma_needed) {
    // Straight-line code (an elementwise kernel): nothing to pipeline, so no producer
    // warpgroup; with one role there is no setmaxnreg, and the registers the code really uses
    // set how many CTAs share an SM.
    KernelSchedule ks = schedule_kernel_with(m, source, t, o, c.ops, false, 1);
    ks.graph.launch.load_path = "global";
    ks.notes.emplace_back(
        "load path: plain global loads, no producer warpgroup (the kernel has no loop)");
    return ks;
  }
  if (!c.descriptor_loads && !c.tensor_core) {
    // Pointer loads only: nothing for a producer warpgroup to issue, so none (docs/scheduler.md,
    // "Pointer-load kernels"). Each consumer warp waits on its own loads; what hides their
    // latency is how many warps an SM holds, and the emitter's launch takes every CTA the
    // compiled kernel's registers allow. A copy of a load kept in flight by a deeper pipeline
    // costs the same registers per byte in flight as another CTA, but hides neither the
    // CTA's reductions and barriers nor the fill and drain of a row loop a few chunks long:
    // so loops with run-time trip counts take kPointerLoopStages unless --max-stages says.
    // --loads tma keeps the idle producer (the form measured against).
    if (o.loads == LoadMode::Tma) {
      KernelSchedule ks = schedule_kernel_with(m, source, t, o, {}, true, 1);
      ks.notes.emplace_back(
          "load path: pointer loads in the consumers; the idle producer warpgroup kept (--loads)");
      return ks;
    }
    KernelOptions capped = o;
    if (capped.sched.max_stages == 0) {
      capped.sched.max_stages = kPointerLoopStages;
      capped.sched.max_stages_from = "one stage: a pointer-load kernel without --max-stages";
    }
    KernelSchedule ks = schedule_kernel_with(m, source, t, capped, {}, false, 1);
    ks.graph.launch.load_path = "global";
    ks.notes.emplace_back(
        "load path: plain global loads, no producer warpgroup (pointer loads "
        "only: nothing for TMA to carry)");
    return ks;
  }
  if (c.ops.empty()) {
    // No candidate: the descriptor loads go as they are (an MMA's operands through TMA, an MMA
    // kernel's register loads), with the producer warpgroup; --loads global without one.
    return schedule_kernel_with(m, source, t, o, {}, tma_needed || o.loads != LoadMode::Global, 1);
  }
  if (tma_needed || c.tensor_core) {
    const std::string why = tma_needed ? op_text(f, c.needs_tma) + " needs TMA into shared memory"
                                       : "the kernel has tensor-core work";
    if (o.loads == LoadMode::Global)  // tensor-core work (a load needing TMA threw above)
      throw Error(source + ": error: --loads global: " + why +
                  ", so its tile loads keep the producer warpgroup's TMA");
    KernelSchedule ks = schedule_kernel_with(m, source, t, o, {}, true);
    ks.graph.launch.load_path = "tma";
    ks.notes.push_back("load path: TMA into rings for every tile load (" + why + ")");
    return ks;
  }
  if (o.loads == LoadMode::Tma || o.loads == LoadMode::Global) {
    const bool global = o.loads == LoadMode::Global;
    KernelSchedule ks = global ? best_global(m, source, t, o, c.ops, f)
                               : schedule_kernel_with(m, source, t, o, {}, true);
    ks.graph.launch.load_path = global ? "global" : "tma";
    const LoadRate r = kernel_load_rate(ks, f, c.ops, t);
    ks.notes.push_back(std::string("load path: ") +
                       (global ? "plain global loads in the consumer warpgroups"
                               : "TMA into rings from a producer warpgroup") +
                       " (--loads); predicted " + r.detail);
    return ks;
  }
  // Both ways; the faster predicted load rate wins. Within 2% the plain loads win: they skip the
  // shared-memory round trip (TMA write, consumer read-back) and the producer warpgroup's threads.
  KernelSchedule tma = schedule_kernel_with(m, source, t, o, {}, true);
  const LoadRate rt = kernel_load_rate(tma, f, c.ops, t);
  std::optional<KernelSchedule> glob;
  std::string glob_error;
  try {
    glob = best_global(m, source, t, o, c.ops, f);
  } catch (const Error& e) {
    glob_error = e.what();
  }
  if (!glob) {
    tma.graph.launch.load_path = "tma";
    tma.notes.push_back(
        "load path: TMA into rings (plain global loads do not schedule: " + glob_error + ")");
    return tma;
  }
  const LoadRate rg = kernel_load_rate(*glob, f, c.ops, t);
  const bool pick_global = rg.bytes_per_clk >= 0.98 * rt.bytes_per_clk;
  KernelSchedule& ks = pick_global ? *glob : tma;
  ks.graph.launch.load_path = pick_global ? "global" : "tma";
  ks.notes.push_back(
      std::string("load path: ") +
      (pick_global ? "plain global loads in the consumer warpgroups, no producer "
                     "warpgroup"
                   : "TMA into rings from a producer warpgroup") +
      ": predicted plain loads " + rg.detail + "; TMA " + rt.detail +
      (pick_global ? " (plain loads win within 2%: no shared-memory round trip)" : ""));
  return ks;
}

}  // namespace

}  // namespace sched2cu::sched
