// `sched2cu schedule` as a library call: schedule every scf.for of a TTGIR kernel (inner loops
// first, as super-nodes of their parents), size rings and function-scope buffers under the
// kernel-wide shared-memory budget, pick the role partition, and fill the schedule graph. Also
// renders the human report. Deterministic: the same module and options give the same graph.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sched/load_path.h"
#include "sched2cu/sched/partition.h"
#include "sched2cu/sched/plan.h"
#include "sched2cu/sched/schedule.h"
#include "sched2cu/sgraph/schedule_graph.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched {

struct KernelOptions {
  Options sched;
  // --grid X,Y,Z overrides the launch grid derived from the IR (three grid expressions,
  // sgraph::parse_grid_expr syntax); empty = derive.
  std::string grid;
  // CTA rasterization of a 2D grid (launch.raster_group): launch the programs in groups of this
  // many consecutive x ids so that CTAs running at the same time share their y-indexed operand
  // tiles in L2. 16 rows of 128-row tiles keep a 2 MB band of A hot; on the H200 the hand-written
  // GEMM measured 0.917x -> 0.955x of cuBLAS at 4096^3 going from 8 to 16. 0 = launch as is.
  int raster_group = 16;
  // --loads: how a memory-bound kernel's tile loads reach registers (load_path.h); Auto = the
  // faster predicted schedule.
  LoadMode loads = LoadMode::Auto;
  // Let the launcher split one loop over a cluster where the grid leaves SMs idle (split.h);
  // --no-split turns it off.
  bool split = true;
};

struct KernelSchedule {
  sgraph::ScheduleGraph graph;
  std::vector<LoopPlan> plans;  // parallel to graph.loops
  std::vector<int> tc_turns;    // parallel to graph.loops: build_loop's tc_turns (ping-pong)
  Partition partition;
  std::vector<std::string> notes;  // decisions worth reporting (grid guesses, cuts)
  // What the user must hear about even without --report: the schedule is written, but its kernel
  // will not run as modelled (a consumer register estimate beyond its allotment: spills).
  std::vector<std::string> warnings;
  // A producer kernel's consumer registers with the plain loads they keep in flight counted,
  // where that is more than 10% over their allotment (the "spills possible" warning); 0 if not.
  int loads_over_allotment = 0;
  // The kernel-wide shared-memory plan as schedule_kernel sized it (bytes): resident prologue
  // buffers, the ring pool (the largest phase's rings), function-scope store staging, and
  // whether the staging overlays the pool once the loops are done.
  int64_t smem_resident = 0, smem_rings = 0, smem_staging = 0;
  bool smem_overlay = false;
  int phases = 0;  // top-level loop nests, whose rings share the pool
};

// The kernel's schedule; a memory-bound kernel's load path (load_path.h) is chosen here, as
// o.loads says (kernel_loads.cpp).
KernelSchedule schedule_kernel(const ttgir::Module& m, const std::string& source,
                               const ddg::TargetModel& t, const KernelOptions& o);

// One schedule with a fixed load plan (what schedule_kernel chooses between): the
// tt.descriptor_loads in `global` brought in by plain loads that keep up to `copies` results in
// flight, and a producer warpgroup only when `producer` (kernel.cpp).
KernelSchedule schedule_kernel_with(const ttgir::Module& m, const std::string& source,
                                    const ddg::TargetModel& t, const KernelOptions& o,
                                    const std::set<ttgir::OpId>& global, bool producer,
                                    int copies = 1);

// The function a module's kernel is: the public one, else the first.
const ttgir::Function& kernel_function(const ttgir::Module& m);

// "op 20 tt.atomic_rmw (kernel.py:14:36)": how the scheduler's notes and errors name an op.
std::string op_text(const ttgir::Function& f, ttgir::OpId op);

// The --report text: per loop II, MII parts, optimality, stages, ring depths, partition.
std::string render_report(const KernelSchedule& k);

}  // namespace sched2cu::sched

namespace sched2cu::sched {

// The whole `sched2cu schedule` command: parse `in` (checking supported ops), load the target
// table (o.sched.target_path, else the default), schedule, validate the graph (sgraph::validate),
// write `out` atomically. Returns the report text. Throws sched2cu::Error.
std::string schedule_file(const std::string& in, const std::string& out, const KernelOptions& o,
                          std::vector<std::string>* warnings = nullptr);

}  // namespace sched2cu::sched
