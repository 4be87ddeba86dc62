// Staging fills (docs/scheduler.md, "Staged epilogue operands"): a tile loaded by TMA only for
// the register math of a store's epilogue (case5's bias: C = A·B + bias) is loaded box by box
// into the store's own subtile staging slots and read back there, instead of living in
// registers across the main loop. Decides Buffer::fill_op; must never change a schedule, a ring
// or a buffer's size (the fill reuses the staging bytes the plan already holds).
#include "sched2cu/sched/fills.h"

#include <set>
#include <string>

#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"

namespace sched2cu::sched {
namespace {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;

// Ops the emitter evaluates box by box in the accumulator layout (its op table's elementwise
// float math, the widening/narrowing views, and layout conversions that are views).
bool box_wise(const std::string& n) {
  static const std::set<std::string> ops = {
      "ttg.convert_layout", "arith.extf",     "arith.truncf",
      "arith.addf",         "arith.subf",     "arith.mulf",
      "arith.divf",         "arith.maxnumf",  "arith.minnumf",
      "arith.maximumf",     "arith.minimumf", "arith.negf",
      "math.exp2",          "math.exp",       "math.log2",
      "math.log",           "math.sqrt",      "math.rsqrt",
      "math.absf",          "math.erf",       "math.tanh",
      "math.sin",           "math.cos",       "math.floor",
      "math.ceil",          "math.fma",       "tt.extern_elementwise"};
  return ops.count(n) != 0;
}

// Whether every use of `v`, through box-wise ops only, ends in the store `st` (and nowhere
// else): then the chain can be evaluated one stored box at a time.
bool only_feeds(const Function& f, ttgir::ValueId v, OpId st, int depth = 0) {
  if (depth > 64) return false;
  const auto& users = f.value(v).users;
  if (users.empty()) return false;
  for (OpId u : users) {
    if (u == st) continue;
    const Op& uo = f.op(u);
    if (!box_wise(uo.name) || uo.results.size() != 1) return false;
    if (!only_feeds(f, uo.results[0], st, depth + 1)) return false;
  }
  return true;
}

// Register loads the stored value is computed from through box-wise ops.
void sources(const ttgir::Module& m, const Function& f, ttgir::ValueId v, std::vector<OpId>& out,
             int depth = 0) {
  const Op* d = f.def_op(v);
  if (d == nullptr || depth > 64) return;
  if (ddg::is_register_load(m, f, *d)) {
    out.push_back(d->id);
    return;
  }
  if (!box_wise(d->name)) return;
  for (ttgir::ValueId a : d->operands)
    if (f.value(a).type.kind == ttgir::Type::Kind::Tensor) sources(m, f, a, out, depth + 1);
}

int stage_of(const sgraph::Loop& L, OpId op) {
  for (const auto& n : L.nodes)
    if (n.op == op) return n.stage;
  return -1;
}

}  // namespace

void plan_staging_fills(const ttgir::Module& m, const Function& f, sgraph::ScheduleGraph& g,
                        int64_t slack, int64_t mbarrier_bytes, std::vector<std::string>& notes) {
  std::set<OpId> taken;
  for (auto& b : g.buffers) {
    if (b.producer_op < 0 || b.depth < 2 || b.shape.size() != 2) continue;
    const Op& st = f.op(b.producer_op);
    if (st.name != "tt.descriptor_store" || st.operands.empty()) continue;
    const ttgir::Type& tile = f.value(st.operands.back()).type;
    if (tile.shape.size() != 2 || b.shape[1] >= tile.shape[1] || tile.shape[1] % b.shape[1] != 0 ||
        (tile.shape[1] / b.shape[1]) % b.depth != 0)
      continue;  // not subtile staging whose slots every store cycles evenly
    // One full barrier per slot and warpgroup (and its unused empty twin: a Ring).
    const int64_t bars = 2 * mbarrier_bytes * b.depth * std::max(1, g.launch.warpgroups);
    if (bars > slack) continue;
    std::vector<OpId> cand;
    sources(m, f, st.operands.back(), cand);
    for (OpId ld : cand) {
      const Op& lo = f.op(ld);
      const ttgir::Type& lt = f.value(lo.results.at(0)).type;
      if (taken.count(ld) || lt.shape != tile.shape || lt.element_bits() != tile.element_bits() ||
          lt.element_bits() != 16)
        continue;
      const OpId loop = f.enclosing_for(ld);
      if (loop != f.enclosing_for(st.id) || !only_feeds(f, lo.results[0], st.id)) continue;
      if (loop != ttgir::kNoId) {
        // In a loop the fill and the store must run in the same stage: a fill one stage ahead
        // would overwrite slots the previous iteration's store still reads back.
        const sgraph::Loop* L = nullptr;
        for (const auto& l : g.loops)
          if (l.op == loop) L = &l;
        if (L == nullptr) continue;
        const int s0 = stage_of(*L, ld), s1 = stage_of(*L, st.id);
        if (s0 < 0 || s0 != s1) continue;
      }
      b.fill_op = ld;
      taken.insert(ld);
      slack -= bars;
      notes.push_back(op_text(f, ld) + " is TMA-loaded box by box into the staging of op " +
                      std::to_string(st.id) +
                      " and read back there: an epilogue operand held in no registers across "
                      "the loops");
      break;
    }
  }
}

}  // namespace sched2cu::sched
