// Index and predicate tiles of the accumulator layout (docs/emitter.md, "Masks on accumulator
// tiles"): an integer or i1 #nvidia_mma tile, such as attention's causal mask
// `offs_m[:, None] >= offs_n[None, :]`, is never materialized. It is an expression of its operands
// read at accumulator element (slab s, register i): row and column index vectors of the
// accumulator's layouts (mrow_val, mcol_val), scalars, f32 tiles through their adapters, and other
// such expressions. The arith.select that applies it to an f32 tile evaluates it per element
// (tile_gen). Must never give such a tile registers or let anything but another such expression
// or that select read it (Lower::whole_operand refuses it).
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

bool is_mma_tile(const Ctx& c, const ttgir::Type& t) {
  return t.kind == ttgir::Type::Kind::Tensor && t.shape.size() == 2 &&
         c.m.encoding_kind(t) == "ttg.nvidia_mma";
}

bool expr_op_name(const std::string& n) {
  static const std::set<std::string> k = {
      "arith.cmpi",  "arith.cmpf",  "arith.addi",   "arith.subi",  "arith.muli",
      "arith.andi",  "arith.ori",   "arith.xori",   "arith.minsi", "arith.maxsi",
      "arith.extsi", "arith.extui", "arith.trunci", "arith.select"};
  return k.count(n) != 0;
}

// Element (s, i) of `value` as C++ text.
Text element_at(const Lower& L, int value, int op) {
  const Val& v = L.val(value, op);
  if (!v.expr.empty()) return "(" + v.expr + ")";
  if (v.lay == Lay::Splat) return v.scalar.empty() ? R(v.scalar_value) : Text(v.scalar);
  if (v.lay == Lay::Scalar) return R(v.storage);
  if (v.lay == Lay::BRowB && v.blay.mma_row && !v.lazy)
    return "mrow_val(" + R(v.storage) + ").at(s, i)";
  if (v.lay == Lay::BColB && v.blay.mma_col && !v.lazy)
    return "mcol_val(" + R(v.storage) + ").at(s, i)";
  // f32 operands (tiles, broadcast rows and columns, vectors read at use): their tile adapters.
  return L.whole_operand(value, Lay::Acc, op) + ".at(s, i)";
}

}  // namespace

bool acc_expr_op(const Lower& L, const ttgir::Op& o) {
  if (o.results.size() != 1) return false;
  // A broadcast or expand_dims of such a tile (an [N, 1] row mask widened to [N, M]) is the same
  // expression: its elements read their row or column vectors at any (s, i).
  if ((o.name == "tt.broadcast" || o.name == "tt.expand_dims") && L.has(o.operands.at(0)))
    return !L.val(o.operands[0], o.id).expr.empty();
  if (!expr_op_name(o.name)) return false;
  const ttgir::Type& t = L.c.type(o.results[0]);
  if (!is_mma_tile(L.c, t)) return false;
  const auto k = t.element_type().kind;
  if (k == ttgir::Type::Kind::Integer) return true;
  return o.name == "arith.select" && t.element_type().name == "f32";
}

void lower_acc_expr(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (L.box_w != 0)
    c.fail(o.id, "a mask or index tile inside a box-by-box epilogue is not implemented");
  const int res = o.results.at(0);
  const ttgir::Type& t = c.type(res);
  if (o.name == "tt.broadcast" || o.name == "tt.expand_dims") {
    L.set(res, L.val(o.operands.at(0), o.id));
    return;
  }
  const Text e = element_expr(c, o, scalar_ctype(c, t.element_type(), o.id),
                              [&](size_t k) { return element_at(L, o.operands.at(k), o.id); });
  if (t.element_type().kind == ttgir::Type::Kind::Integer) {
    // Any shape of the layout ([N, 1] and [1, M] masks too): no registers, so no tile shape.
    Val v;
    v.lay = Lay::Acc;
    v.elem = t.element_type().name;
    v.storage = res;
    v.expr = e;
    L.set(res, v);
    out.body.push_back(comment(c.note(o.id) + ": evaluated per element where it is used"));
    return;
  }
  Val v = L.from_type(res, o.id);
  if (v.lay != Lay::Acc) c.fail(o.id, "internal: an accumulator-layout tile of another kind");
  // The select onto an f32 tile: every element from its predicate and its two choices.
  out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, c.note(o.id)));
  out.body.push_back(
      code("tile_gen(" + R(res) + ", [&](int s, int i) { return " + e + "; });", c.note(o.id)));
  L.set(res, v);
}

}  // namespace sched2cu::emit
