// How a memory-bound kernel's tile loads reach registers (docs/scheduler.md, "Load path"): a
// producer warpgroup issuing TMA into a shared-memory ring that the consumers read back, or plain
// vectorized global loads issued by the consumer warpgroups themselves (no producer warpgroup,
// no ring, no barriers). The kernel driver schedules the kernel both ways and this module
// predicts each schedule's streaming rate from the target table; the faster one is kept. Also the
// one path it does not have: pointer tiles as MMA operands, refused. Must never decide by kernel
// name, and never change the IR.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched {

enum class LoadMode { Auto, Tma, Global };

// "auto" | "tma" | "global" (the --loads flag); throws on anything else.
LoadMode parse_load_mode(const std::string& s);

struct LoadCandidates {
  // tt.descriptor_loads inside a loop (or anywhere in a kernel without loops) whose tile only
  // registers read (a blocked layout, no local_alloc, no MMA operand): either path can bring
  // them in (without loops, only the plain load is built).
  std::set<ttgir::OpId> ops;
  // The first load that needs TMA whatever the choice (an MMA operand, a resident tile), or -1:
  // then the kernel has a producer warpgroup anyway, and the candidates stay on TMA.
  ttgir::OpId needs_tma = ttgir::kNoId;
  bool tensor_core = false;       // an MMA anywhere: not a streaming kernel
  bool descriptor_loads = false;  // any tt.descriptor_load (none: pointer loads only)
  bool loops = false;             // any scf.for (none: straight-line code)
};

LoadCandidates load_candidates(const ttgir::Module& m, const ttgir::Function& f);

// A tile loaded through pointers (tt.load of a 2-D tensor of pointers) and stored to shared
// memory for an MMA (ttg.local_alloc into a warp_group_dot, the Triton tutorial's matmul):
// Triton pipelines such loads with cp.async, which this scheduler does not plan. Throws, located
// at the load, with what works instead (a tensor descriptor); the kernel driver calls it once,
// before any stage meets the load in a less telling place (the emitter's blocked layouts).
void refuse_pointer_mma_operands(const ttgir::Function& f, const std::string& source);

// The predicted steady-state load rate of one schedule, per SM, and what bounds it.
struct LoadRate {
  double bytes_per_clk = 0;
  std::string bound;  // "HBM", "bytes in flight", "TMA issue", "loop II"
  std::string detail;
};

// The rate of the loads of `loop` (an index into g.loops) in graph `g`: the HBM rate of the
// table, bytes in flight over the loaded latency (Little's law: ring slots for TMA, iterations a
// register load runs ahead of its reader for plain loads, times the CTAs per SM), one TMA per
// `occupancy` cycles per issuing thread, and one tile per II per CTA. `tile_bytes` is the loaded
// tile.
LoadRate predict_load_rate(const sgraph::ScheduleGraph& g, int loop, const ddg::TargetModel& t,
                           int64_t tile_bytes);

}  // namespace sched2cu::sched
