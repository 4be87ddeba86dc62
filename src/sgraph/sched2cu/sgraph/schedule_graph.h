// The schedule graph: the one contract between `sched2cu schedule` and `sched2cu emit`.
// It holds everything the emitter needs (the kernel's IR ops, target budgets, launch roles, and per
// loop the modulo schedule, buffers, rings and cross-role channels), with every cross-reference
// an integer id assigned in program order, never a pointer. Plain data only: no behaviour, no
// defaults that hide missing producer decisions. Field meanings: docs/schedule_graph.md.
// Evolve by adding fields (bump kSchemaVersion on any change a reader must know about); never
// rename or repurpose one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sgraph {

// 2: launch.grid as expression trees, roles[].pingpong, top-level function-scope channels.
inline constexpr int kSchemaVersion = 2;
inline constexpr const char* kSchemaName = "sched2cu.schedule_graph";

// A parameter of the kernel function as Triton compiled it (constexprs are already folded away,
// so every parameter here is an ABI argument, in ABI order).
struct Param {
  std::string name;
  std::string type;  // MLIR type text ("!tt.ptr<f16>", "i32", "f32")
  int value = -1;    // ttgir value id of the function argument
};

struct Kernel {
  std::string name;    // the function in `ir` that is the kernel
  std::string source;  // path of the TTGIR the graph was built from
  int num_warps = 0;   // "ttg.num-warps" of the TTGIR module (Triton's layouts assume it)
  std::vector<Param> params;
};

struct Target {
  std::string name;             // "sm_90a"
  int smem_bytes = 0;           // dynamic shared memory a block may use
  int regs_per_sm = 0;          // 32-bit registers per SM
  int max_regs_per_thread = 0;  // 255 on Hopper
  int max_threads_per_block = 0;
};

// A warp-specialized role: one or more warpgroups running the same op stream. Consumers with
// several warpgroups split the accumulator tile along `split_dim` into `split_parts` slices
// (cooperative: warpgroup k of the role owns slice k).
struct Role {
  int id = 0;
  std::string name;             // "producer", "consumer", ...
  std::string kind;             // "producer" (setmaxnreg.dec) or "consumer" (setmaxnreg.inc)
  std::vector<int> warpgroups;  // warpgroup indices in the CTA, ascending
  int regs = 0;                 // setmaxnreg value per thread (multiple of 8, 24..256)
  int split_dim = -1;           // -1 = no split
  int split_parts = 1;
  // The role's warpgroups take turns issuing each loop step's MMAs, ordered by named barriers
  // (ping-pong), so one warpgroup's register math overlaps the other's tensor-core work.
  bool pingpong = false;
};

struct Launch {
  int warpgroups = 0;  // CTA = 128 * warpgroups threads
  // Grid extent per dimension (x, y, z): the number of programs per tt.get_program_id axis, as
  // expressions of the kernel parameters (docs/schedule_graph.md).
  std::vector<GridExpr> grid;
  // CTA rasterization: 0 = launch the grid as is; G > 0 = launch grid x*y CTAs in one dimension
  // and map them to (x, y) program ids in groups of G along x (L2 reuse of the y-indexed
  // operand). Triton programs are unordered, so any bijection is valid. Requires grid z == 1.
  int raster_group = 0;
  // CTAs the kernel is built to keep resident per SM (__launch_bounds__ minimum blocks; a
  // persistent grid of num_sms launches num_sms * ctas_per_sm programs). Written only when > 1.
  int ctas_per_sm = 1;
  // How the tile loads of a memory-bound kernel reach registers, where the scheduler chose
  // (docs/scheduler.md, "Load path"): "tma" (a producer warpgroup, rings) or "global" (plain
  // loads in the consumer warpgroups, no producer). Written only when there was a choice.
  std::string load_path;
  std::vector<Role> roles;
};

// A scheduled operation of a loop body. A nested loop appears as one super-node whose op is the
// inner scf.for and whose child_loop is that loop's index in ScheduleGraph::loops.
struct Node {
  int id = 0;  // dense per loop, 0-based, program order of `op`
  int op = -1;
  std::string pipeline;  // "TMA", "TC", "CUDA", "SFU", "NONE"
  int latency = 0;       // cycles from issue to usable result
  int issue_cost = 0;    // cycles it blocks its warp's instruction stream
  int occupancy = 0;     // cycles it holds its pipeline
  int cycle = 0;         // absolute schedule time (0 <= cycle; stage = cycle / II)
  int stage = 0;
  int order = 0;  // rank within the stage (ties allowed), emission order key after stage
  int role = -1;  // Role::id; -1 only for NONE-pipeline views that every role may rematerialize
  int child_loop = -1;
};

// Dependence: cycle[dst] + distance * II >= cycle[src] + latency.
struct Edge {
  int src = 0;
  int dst = 0;
  int latency = 0;
  int distance = 0;
};

// A shared-memory buffer (a ring of `depth` slots of `bytes` each).
struct Buffer {
  int id = 0;  // dense, 0-based
  std::string kind = "smem";
  std::vector<int> shape;  // slot shape in elements
  std::string elem;        // MLIR element type ("f16", "bf16", "f32", "f8E4M3FN")
  int bytes = 0;           // bytes of one slot
  int depth = 1;
  int loop = -1;         // index of the loop whose iterations cycle the ring; -1 = function scope
  int producer_op = -1;  // op that defines the buffer contents (local_alloc, descriptor_store)
  std::vector<int> consumer_ops;  // ops that read it, ascending
  int live_start = 0;             // cycles (loop buffers) from producer issue ...
  int live_end = 0;               // ... to last consumer completion
  int ring = -1;  // Ring id in `loop` guarding it; -1 = none (function-scope staging)
  // Staging of a store only, -1 = none: a tt.descriptor_load consumed in registers whose tile the
  // store's warpgroups TMA-load box by box into these slots, read back and overwrite with the
  // stored result (an epilogue operand that never occupies registers across the loops).
  int fill_op = -1;
};

// A full/empty mbarrier pair per slot, shared by the buffers that are filled together.
struct Ring {
  int id = 0;  // dense per loop
  int depth = 1;
  std::vector<int> buffers;  // Buffer ids, ascending
};

// A producer role -> consumer role hand-off through one ring.
struct Channel {
  int id = 0;  // dense per loop
  int ring = -1;
  int producer_role = -1;
  int consumer_role = -1;
  std::string mechanism;  // "tma" (expect-tx + complete-tx) or "store" (st.shared + fence + arrive)
  int expect_bytes = 0;   // per slot per iteration ("tma"); 0 for "store"
  int full_arrivals = 1;  // arrivals that complete a full phase
  int empty_arrivals = 1;  // arrivals that complete an empty phase (= consumer warpgroups)
};

// A producer role -> consumer role hand-off of a function-scope buffer (a resident TMA load
// such as attention's Q, read by every iteration of the loops): one full mbarrier, armed once.
struct FnChannel {
  int id = 0;  // dense, 0-based
  int buffer = -1;
  int producer_role = -1;
  int consumer_role = -1;
  std::string mechanism;  // "tma"
  int expect_bytes = 0;   // = the buffer's bytes
  int full_arrivals = 1;
};

struct Loop {
  int op = -1;                      // the scf.for op
  int parent_loop = -1;             // index into ScheduleGraph::loops; -1 = top level
  int lb = -1, ub = -1, step = -1;  // value ids (the scf.for operands)
  int ii = 0;
  int res_mii = 0;
  int rec_mii = 0;
  bool ii_optimal = false;  // proven optimal by the exact method
  int stages = 0;           // max node stage + 1
  // Split over a cluster (docs/schedule_graph.md, "Split loops"): up to this many CTAs of one
  // cluster may each run a contiguous share of the iterations and sum the loop's results into
  // the cluster's first CTA; the launcher picks the count per launch. 1 = never split.
  int split = 1;
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Ring> rings;
  std::vector<Channel> channels;
};

struct ScheduleGraph {
  int version = kSchemaVersion;
  Kernel kernel;
  // The TTGIR module (front's IR, lossless JSON form of src/ttgir): every op, value, type and
  // attribute of the kernel. All op/value ids in this graph are ids of kernel.name's function.
  ttgir::Module ir;
  Target target;
  Launch launch;
  std::vector<Buffer> buffers;
  std::vector<FnChannel> channels;  // function-scope hand-offs (resident buffers)
  std::vector<Loop> loops;
};

}  // namespace sched2cu::sgraph
