// Building the DDG of one scf.for from the TTGIR IR: one node per top-level body op (terminator
// excluded; ops nested in a body op's regions belong to it; a nested scf.for is one super-node),
// SSA data edges (distance 0), loop-carried edges through iter_args (distance = how many yields
// the value crosses), costs from the target model, the shared-memory rings the loop fills (TMA
// loads and TMA store staging), and the register facts the partition needs. Must never guess a
// cost: an op the target model does not classify is an error naming the op and its location.
#pragma once

#include <cstdint>
#include <map>
#include <set>
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
// nested scf.for (op id) its super-node latency and `inner_index` its loop index. `tc_turns` > 1:
// the consumer warpgroups take turns on the tensor core (ping-pong), so each issues its share of
// an MMA alone: the MMA holds the tensor core for occupancy / tc_turns cycles and its result is
// ready that much sooner (the other warpgroups' share fills the rest of the II).
// `global_loads`: the tt.descriptor_loads the scheduler chose to bring into registers with plain
// global loads (sched/load_path.h) rather than TMA into a ring; `load_copies`: how many results
// of a large plain load (tt.load or one of those) may be in flight at once (its register
// anti-dependence distance; other large register tiles keep one copy).
BuiltLoop build_loop(const ttgir::Module& m, const ttgir::Function& f, ttgir::OpId for_op,
                     const TargetModel& t, int consumer_wgs,
                     const std::map<ttgir::OpId, int64_t>& inner_latency = {},
                     const std::map<ttgir::OpId, int>& inner_index = {}, int tc_turns = 1,
                     const std::set<ttgir::OpId>& global_loads = {}, int load_copies = 1);

// A `ttg.convert_layout` from the `#nvidia_mma` accumulator layout to the register A operand of
// an MMA with the same parent (`#ttg.dot_op<{opIdx = 0, parent = same, kWidth = 2}>`) of a 16-bit
// tensor: the accumulator layout of a k16 column block is exactly the wgmma A fragment layout,
// so the conversion moves no data (a view, no cost).
bool is_free_register_view(const ttgir::Module& m, const ttgir::Function& f, const ttgir::Op& op);

// A `ttg.convert_layout` of a register tile (optionally through `tt.trans`) to the register A
// operand (`#ttg.dot_op<{opIdx = 0}>`) of an MMA that is not a free view: the MMA's warps need
// elements other warps (other warpgroups) hold, as dQ = dSᵀ·K needs every row of dSᵀ that both
// consumer warpgroups of attention backward compute. The tile goes through shared memory: the
// consumer warpgroups store it into a ring slot (a "store" channel of the role to itself) and the
// MMA reads the slot as its A operand (MN-major when transposed). Every user must be an MMA.
bool is_smem_exchange(const ttgir::Module& m, const ttgir::Function& f, const ttgir::Op& op);
// The register tile such an exchange stores (its operand, or the operand of the tt.trans).
ttgir::ValueId exchange_source(const ttgir::Function& f, const ttgir::Op& op);

// An `arith.truncf` or `ttg.convert_layout` whose every use (through such ops) is a
// `tt.descriptor_store`: the store converts the tile box by box as it stages it, so the op moves
// no data of its own (a view; its cost is the store's).
bool is_store_view(const ttgir::Function& f, const ttgir::Op& op);

// A `tt.descriptor_load` whose value is consumed in registers: every user is a
// `ttg.convert_layout` to the `#nvidia_mma` accumulator layout (it never feeds a local_alloc or
// an MMA operand), or the scheduler chose plain global loads for it (`global_loads`). It needs
// no shared memory and no TMA: the scheduler models it as a global load of the consumer role
// (target class of `tt.load`) and gives it no buffer; the emitter lowers it to direct global
// loads in the accumulator or blocked layout of its result.
bool is_register_load(const ttgir::Module& m, const ttgir::Function& f, const ttgir::Op& op,
                      const std::set<ttgir::OpId>& global_loads = {});

// The op's cost shape (used by build_loop; exposed for tests and the report; op_shape.cpp).
OpShape op_shape(const ttgir::Function& f, const ttgir::Op& op, int consumer_wgs);

// A register tensor or a shared-memory descriptor: what costs by its size.
bool is_tensorish(const ttgir::Type& t);

}  // namespace sched2cu::ddg
