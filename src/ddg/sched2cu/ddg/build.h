// Building the DDG of one scf.for from the TTGIR IR: one node per top-level body op (terminator
// excluded; ops nested in a body op's regions belong to it; a nested scf.for is one super-node),
// SSA data edges (distance 0), loop-carried edges through iter_args (distance = how many yields
// the value crosses), costs from the target model, the shared-memory rings the loop fills (TMA
// loads and TMA store staging), and the register facts the partition needs. Must never guess a
// cost: an op the target model does not classify is an error naming the op and its location.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sched2cu/ddg/ddg.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ddg {

struct LoopFacts {
  int64_t tile_rows = 0;  // M of the first MMA result, else rows of the first loaded tile
  int64_t peak_regs = 0;  // peak live 32-bit register values of tensors, whole CTA
};

struct BuiltLoop {
  ttgir::ForLoop loop;
  Ddg g;
  LoopFacts facts;
};

// `consumer_wgs` divides per-element issue costs; `inner_latency` gives each already-scheduled
// nested scf.for (op id) its super-node latency and `inner_index` its loop index.
BuiltLoop build_loop(const ttgir::Module& m, const ttgir::Function& f, ttgir::OpId for_op,
                     const TargetModel& t, int consumer_wgs,
                     const std::map<ttgir::OpId, int64_t>& inner_latency = {},
                     const std::map<ttgir::OpId, int>& inner_index = {});

// A `tt.descriptor_load` whose value is consumed in registers: every user is a
// `ttg.convert_layout` to the `#nvidia_mma` accumulator layout (it never feeds a local_alloc or
// an MMA operand). It needs no shared memory and no TMA: the scheduler models it as a global
// load of the consumer role (target class of `tt.load`) and gives it no buffer; the emitter
// lowers it to direct global loads in the accumulator layout.
bool is_register_load(const ttgir::Module& m, const ttgir::Function& f, const ttgir::Op& op);

// The op's cost shape (used by build_loop; exposed for tests and the report).
OpShape op_shape(const ttgir::Function& f, const ttgir::Op& op, int consumer_wgs);

}  // namespace sched2cu::ddg
