// tt.atomic_rmw of blocked tiles (docs/emitter.md, "Blocked layouts"): Triton's kind, memory
// order and scope mapped onto the runtime's batomic (blocked_atomic.cuh, which carries the order
// as fences around the tile), never weakened; what it cannot keep exactly (a scalar atomic, a
// float max, old values over replicas) is an error.
#include <map>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

// Triton's atomic kind as the runtime's AtomOp (blocked_atomic.cuh), or nullptr: not lowered
// for this element type.
const char* atomic_op(const std::string& kind, bool is_float) {
  static const std::map<std::string, const char*> ints = {
      {"add", "add"},  {"max", "max"}, {"min", "min"},  {"umax", "umax"}, {"umin", "umin"},
      {"and", "band"}, {"or", "bor"},  {"xor", "bxor"}, {"exch", "exch"}, {"xchg", "exch"}};
  if (is_float)
    return kind == "fadd" ? "fadd" : (kind == "exch" || kind == "xchg") ? "exch" : nullptr;
  auto it = ints.find(kind);
  return it == ints.end() ? nullptr : it->second;
}

// tt.atomic_rmw of a tile: one PTX atomic per element (replicas skip it, blocked_atomic.cuh),
// under the op's memory order and scope. A scalar atomic would run in every thread of the role
// (Triton runs it once per program): refused.
}  // namespace

void lower_atomic(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const Val& p = L.val(o.operands.at(0), o.id);
  if (p.lay == Lay::Scalar)
    c.fail(o.id,
           "a scalar tt.atomic_rmw is not implemented (it must run once per program, not "
           "once per thread)");
  if (p.lay != Lay::BTile || p.blay.mma_row || p.blay.mma_col)
    c.fail(o.id, "tt.atomic_rmw needs a blocked tile of pointers");
  auto word = [&](const char* pos) -> std::string {
    const ttgir::Attribute* a = o.attr(pos);
    return a != nullptr ? a->text : "";
  };
  const std::string kind = word("_pos0"), sem = word("_pos1"), scope = word("_pos2");
  Val data = p;
  data.cty = p.cty.substr(0, p.cty.size() - 1);
  const bool is_float = data.cty == "float";
  if (!is_float && data.cty != "int" && data.cty != "unsigned")
    c.fail(o.id, "tt.atomic_rmw of " + data.cty + " elements is not implemented (f32, i32)");
  const char* op = atomic_op(kind, is_float);
  if (op == nullptr)
    c.fail(o.id, "tt.atomic_rmw '" + kind + "' on " + data.cty + " is not implemented");
  const bool sem_ok = sem == "relaxed" || sem == "acquire" || sem == "release" || sem == "acq_rel";
  const bool scope_ok = scope == "cta" || scope == "gpu" || scope == "sys";
  if (!sem_ok || !scope_ok)
    c.fail(o.id, "tt.atomic_rmw with memory order '" + sem + "' and scope '" + scope +
                     "' is not implemented");
  const Text x = adapter(L, o.operands.at(1), p, o.id);
  const Text mask =
      o.operands.size() > 2 ? adapter(L, o.operands[2], p, o.id) : Text("bsplat(true)");
  const int res = o.results.at(0);
  const bool used = !c.f.value(res).users.empty();
  Text old = "nullptr";
  if (used) {
    if (p.blay.ct0() > p.blay.R || p.blay.ct1() > p.blay.C)
      c.fail(o.id,
             "the old values of a tt.atomic_rmw over a layout that replicates the tensor "
             "are not implemented");
    Val v = p;
    v.cty = data.cty;
    v.storage = res;
    out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id) + ": old values"));
    old = "&" + R(res);
    L.set(res, v);
  }
  // Runs of 4 consecutive f32 slots take one vector atomic each (sm_90's atom.add.v4.f32).
  const int vec = std::string(op) == "fadd" && run_of(p, data) >= 4 ? 4 : 1;
  out.body.push_back(code("batomic<" + S(vec) + ", AtomOp::" + std::string(op) +
                              ", AtomSem::" + sem + ", AtomScope::" + scope + ">(" + old + ", " +
                              R(p.storage) + ", " + x + ", " + mask + ");",
                          c.note(o.id) + ": " + kind + ", " + sem + ", " + scope));
  out.body.back().global_write = true;
}

}  // namespace sched2cu::emit
