// The Hopper role partition: one producer warpgroup (TMA issue, setmaxnreg.dec) and N consumer
// warpgroups (wgmma issue plus the register math on its accumulators, setmaxnreg.inc), N from
// the kernel's num_warps (Triton's num_warps counts the compute warps). A kernel with no TMA load
// (pointer loads, or descriptor loads the scheduler brings in with plain loads) has no producer:
// its one role is the consumers, at role index 0 (no setmaxnreg). Consumers split the tile
// rows cooperatively when the tile allows 64-row slices. Registers: the per-thread allotment
// fills the register file (producer fixed by the table, consumers share the rest, rounded down to
// the setmaxnreg granularity); the estimate per consumer warpgroup is checked against it. How
// many CTAs of a memory-bound kernel share an SM follows from the same allotment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched2cu/ddg/build.h"
#include "sched2cu/ddg/ddg.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/sched/plan.h"

namespace sched2cu::sched {

struct PartitionInput {
  int num_warps = 4;          // module "ttg.num-warps"
  int64_t tile_rows = 0;      // rows (M) of the consumers' main tile; 0 = none
  int64_t acc_regs = 0;       // 32-bit registers of loop-carried register tensors, whole CTA
  int64_t temp_regs = 0;      // peak 32-bit registers of temporaries, whole CTA
  int64_t overhead_regs = 0;  // per thread: addresses, indices, barrier phases
  bool producer = true;       // false: no TMA load anywhere, no producer warpgroup
};

struct RolePlan {
  std::string name;  // "producer" | "consumer"
  std::string kind;  // "producer" | "consumer"
  int first_wg = 0;
  int wgs = 1;
  int regs = 0;      // setmaxnreg per thread
  int est_regs = 0;  // estimated need per thread
  int split_dim = -1;
  int split_parts = 1;
};

struct Partition {
  std::vector<RolePlan> roles;  // [0] producer, [1] consumer; or [0] consumer (no producer)
  int consumer = 1;             // index of the consumer role in `roles`
  int warpgroups = 0;
  std::vector<int> node_role;  // per DDG node: role index, or -1 (replicated view / index math)
  std::vector<std::string> warnings;
};

Partition partition(const ddg::Ddg& g, const PartitionInput& in, const ddg::Budgets& b);

// Whether the consumers' register math waits for an MMA of the iteration (attention's softmax,
// a blockwise-scaled GEMM's promotion): then ping-pong consumers pay (docs/scheduler.md,
// "Ping-pong consumers").
bool math_after_mmas(const ddg::Ddg& g);

// CTAs per SM of a memory-bound kernel (docs/scheduler.md, "CTAs per SM"): the first of the
// counts tried (most first: 4, 2 with a producer; 16 .. 2 without; at most 4 when the programs
// update memory by atomics) at which the CTAs' shared memory and threads fit an SM and the
// consumers' register share (left after the producer's, over `consumer_wgs` warpgroups, in
// setmaxnreg's granularity) holds `est`. 1 when none fits, `why` then saying the first count's
// shortfall.
struct CtaChoice {
  int ctas = 1;
  int64_t share = 0;  // registers per consumer thread at `ctas`
  std::string why;
};
inline constexpr int kAtomicCtasPerSm = 4;
CtaChoice choose_ctas_per_sm(const ddg::Budgets& b, bool producer, bool atomics, int64_t smem_cta,
                             int64_t sm_smem, int prod_regs, int consumer_wgs, int est,
                             int threads);

// Registers per consumer thread that the copies of plain (register) loads running ahead of their
// readers hold in loop B under plan P.
int pipelined_load_regs(const ttgir::Function& f, const ddg::BuiltLoop& B, const LoopPlan& P,
                        int threads);

}  // namespace sched2cu::sched
