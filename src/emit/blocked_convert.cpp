// Layout conversions of blocked values (ttg.convert_layout in the blocked world): a view between
// equal distributions, a recomputation of a function-scope chain of index math and loads in the
// new layout, or a pass through the role's shared scratch. Must never convert a broadcast view or
// reload inside a loop (a reload there would cost bandwidth every iteration).
#include <set>
#include <string>
#include <vector>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

// A value the emitter can recompute in any layout: pointer and index math from kernel arguments
// and constants, a load through such pointers, conversions and casts of these. Function scope
// only (a reload inside a loop would cost bandwidth every iteration).
bool relayoutable(const Lower& L, int value, int depth) {
  if (depth > 12) return false;
  const Ctx& c = L.c;
  auto it = L.vals.find(value);
  if (it == L.vals.end()) return false;
  if (it->second.lay == Lay::Splat || it->second.lay == Lay::Scalar) return true;
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr || c.loop_of_op(d->id) >= 0) return false;
  const std::string& n = d->name;
  const bool ok = n == "tt.make_range" || n == "ttg.convert_layout" || n == "tt.addptr" ||
                  n == "arith.addi" || n == "arith.subi" || n == "arith.muli" ||
                  n == "arith.cmpi" || n == "arith.extf" || n == "arith.truncf" || n == "tt.load" ||
                  n == "tt.expand_dims";
  if (!ok) return false;
  for (int v : d->operands)
    if (!relayoutable(L, v, depth + 1)) return false;
  return true;
}

// Emits `value` recomputed in the distribution of `target` (its kind and layout) into `out`;
// returns the adapter that reads it.
// `done`: the values this conversion already recomputed (a value two chains share, such as the
// column offsets both a pointer and its mask read, is declared once).
Text relayout(Lower& L, int value, const Val& target, std::vector<Stmt>& out, std::set<int>& done) {
  Ctx& c = L.c;
  const Val& v = L.vals.at(value);  // relayoutable() saw every value of the chain
  if (v.lay == Lay::Splat || v.lay == Lay::Scalar)
    return "bsplat(" + (v.lay == Lay::Scalar ? R(v.storage) : splat_text(v)) + ")";
  const ttgir::Op& d = *c.f.def_op(value);
  if (d.name == "ttg.convert_layout") return relayout(L, d.operands.at(0), target, out, done);
  if (d.name == "tt.expand_dims") {
    // A [1, N] view holds its column vector: recomputed as that vector (convert_column_view).
    const ttgir::Attribute* ax = d.attr("axis");
    if (target.lay != Lay::BCol || ax == nullptr || ax->as_int() != 0)
      c.fail(d.id, "internal: a view recomputed outside a column vector");
    return relayout(L, d.operands.at(0), target, out, done);
  }
  Val t = target;
  t.cty = elem_ctype(c, c.type(value).element_type(), d.id);
  const std::string name = c.ident(value) + "_as_" + c.ident(target.storage);
  const char* kind = t.lay == Lay::BCol ? "bcol(" : t.lay == Lay::BRow ? "brow(" : "btile(";
  if (!done.insert(value).second) return Text(kind) + name + ")";
  out.push_back(
      code(blocked_ctype(t) + " " + name + ";",
           c.note(d.id) + " recomputed in the layout of %" + c.f.value(target.storage).name));
  if (d.name == "tt.make_range") {
    out.push_back(code("brange(" + name + ", " + range_start(L, t, d.attr("start")->ival) + ");"));
  } else if (d.name == "tt.load") {
    if (t.lay == Lay::BRow) c.fail(d.id, "internal: a reload into a row vector");
    const Text p = relayout(L, d.operands.at(0), target, out, done);
    const Text mask = d.operands.size() > 1 ? relayout(L, d.operands[1], target, out, done)
                                            : Text("bsplat(true)");
    const Text other = d.operands.size() > 2 ? relayout(L, d.operands[2], target, out, done)
                                             : Text("bsplat(static_cast<" + t.cty + ">(0))");
    // The pointer adapter names the tile; bload takes the tile itself.
    const std::string pt = render(p, [&](int x, int) { return c.ident(x); });
    const std::string pvar = pt.substr(pt.find('(') + 1, pt.size() - pt.find('(') - 2);
    out.push_back(code("bload<" + S(run_of(L.val(d.operands[0], d.id), t)) + ">(" + name + ", " +
                       pvar + ", " + mask + ", " + other + ");"));
  } else {
    const std::string fbody = float_element_fn(d);
    const std::string body = !fbody.empty() ? fbody : element_expr(c, d, t.cty);
    Text call = "bmap(" + Text(name) + ", " + lambda_text(d.operands.size(), "auto", body);
    for (int a : d.operands) call += ", " + relayout(L, a, target, out, done);
    out.push_back(code(call + ");"));
  }
  return Text(kind) + name + ")";
}

// Declares `res` in layout `d` and fills it from `a` through the role's scratch with the runtime
// pass `fn` (bconvert or btranspose), which syncs the role's threads around it.
void through_scratch(Lower& L, const ttgir::Op& o, Val d, const Val& a, const char* fn,
                     const std::string& what, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  long long numel = 1;
  for (int64_t n : c.type(res).shape) numel *= n;
  d.cty = a.cty;
  out.decls.push_back(decl(blocked_ctype(d), res, {}, false, c.note(o.id)));
  out.body.push_back(code(std::string(fn) + "(" + R(res) + ", " + R(a.storage) + ", " +
                              scratch(c, numel * cty_bytes(a.cty), a.cty) + ", " + blocked_bar(c) +
                              ");",
                          c.note(o.id) + ": " + what));
  L.set(res, d);
}

// Whether `value` is a [1, N] view of a column vector: an expand_dims along axis 0, maybe cast
// or converted since (Triton materializes the view as a one-row tile after a cast).
bool column_view(const Ctx& c, int value) {
  for (const ttgir::Op* d = c.f.def_op(value); d != nullptr; d = c.f.def_op(d->operands.at(0))) {
    if (d->name == "tt.expand_dims") {
      const ttgir::Attribute* ax = d->attr("axis");
      return ax != nullptr && ax->as_int() == 0;
    }
    if (d->name != "ttg.convert_layout" && d->name != "arith.extf" && d->name != "arith.truncf")
      return false;
  }
  return false;
}

// A [1, N] view of a column vector (expand_dims of a 1-D load chain at function scope, the bias
// a GEMM epilogue reads through pointers, maybe cast) converted to another [1, N] layout, blocked
// or the accumulator's: the chain is recomputed (reloaded) in the new layout's column slice and
// viewed again. Triton routes such a bias through blocked layouts when the kernel stores through
// pointers; the values are the same per column whatever the layout.
void convert_column_view(Lower& L, const ttgir::Op& o, const Val& d, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  if (d.lay != Lay::BTile || d.blay.R != 1 || c.loop_of_op(o.id) >= 0 ||
      !relayoutable(L, o.operands.at(0), 0))
    c.fail(o.id,
           "layout conversion of a broadcast view is implemented for [1, N] views of a column "
           "vector loaded at function scope");
  Val col = d;  // the column slice of the target layout: one CTA tile of rows, as blocked_val
  col.lay = Lay::BCol;
  col.blay.R = col.blay.ct0();
  col.cty = elem_ctype(c, c.type(res).element_type(), o.id);
  col.storage = res;
  std::set<int> done;
  const Text r = relayout(L, o.operands.at(0), col, out.body, done);
  const std::string t = render(r, [&](int x, int) { return c.ident(x); });
  // A later conversion of this view recomputes from the source chain, not from it: then it is
  // dead, which nvcc would warn of (#550-D).
  out.decls.push_back(decl("[[maybe_unused]] " + blocked_ctype(col), res, {}, false, c.note(o.id)));
  out.body.push_back(
      code(R(res) + " = " + t.substr(t.find('(') + 1, t.size() - t.find('(') - 2) + ";",
           c.note(o.id) + ": the column vector recomputed in the new layout"));
  col.lay = Lay::BColB;
  L.set(res, col);
}

}  // namespace

void b_trans(Lower& L, const ttgir::Op& o, Lowered&) {
  Ctx& c = L.c;
  const Val& a = L.val(o.operands.at(0), o.id);
  const ttgir::Attribute* order = o.attr("order");
  const bool swap = order != nullptr && order->elems.size() == 2 && order->elems[0].as_int() == 1 &&
                    order->elems[1].as_int() == 0;
  if (a.lay != Lay::BTile || c.type(o.operands[0]).shape.size() != 2 || !swap)
    c.fail(o.id, "tt.trans of this blocked value is not implemented (a 2-D tile, order [1, 0])");
  Val v = a;
  v.blk_trans = true;
  v.contig = 1;
  v.uniform_cols = false;
  L.set(o.results.at(0), v);
}

void b_convert(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  const Val& a = L.val(o.operands.at(0), o.id);
  if (a.lay == Lay::Splat) {
    L.set(res, a);
    return;
  }
  Val d = blocked_val(c, res, o.id);
  if (a.blk_trans) {
    // The transpose itself: the source tile through the scratch, read back transposed.
    if (d.lay != Lay::BTile) c.fail(o.id, "a transposed tile converts only to a blocked tile");
    return through_scratch(L, o, d, a, "btranspose", "the transpose, through shared memory", out);
  }
  if (a.lay == Lay::BColB || column_view(c, o.operands.at(0)))
    return convert_column_view(L, o, d, out);
  if (a.lay == Lay::BRowB)
    c.fail(o.id, "layout conversion of a broadcast row view is not implemented");
  if (!is_blocked_lay(a.lay)) c.fail(o.id, "conversion between these layouts is not implemented");
  d.contig = a.contig;
  d.uniform_cols = a.uniform_cols && d.lay == a.lay;
  if (same_distribution(a, d)) {
    Val v = a;
    v.blay = d.blay;
    L.set(res, v);
    return;
  }
  if (c.loop_of_op(o.id) < 0 && relayoutable(L, o.operands[0], 0) && d.lay != Lay::BRow) {
    // Recomputed (reloaded) in the new layout: no shared memory, no barriers. The source chain,
    // if nothing else reads it, is dead code the compiler drops.
    d.cty = a.cty;
    std::set<int> done;
    const Text r = relayout(L, o.operands[0], d, out.body, done);
    const std::string t = render(r, [&](int x, int) { return c.ident(x); });
    // Dead when only later conversions read it (they recompute from the source chain).
    out.decls.push_back(decl("[[maybe_unused]] " + blocked_ctype(d), res, {}, false, c.note(o.id)));
    out.body.push_back(
        code(R(res) + " = " + t.substr(t.find('(') + 1, t.size() - t.find('(') - 2) + ";",
             c.note(o.id) + ": recomputed in the new layout"));
    L.set(res, d);
    return;
  }
  if (a.blay.mma_row || d.blay.mma_row)
    c.fail(o.id,
           "layout conversion of an accumulator-layout row vector through shared memory is "
           "not implemented");
  through_scratch(L, o, d, a, "bconvert", "through shared memory", out);
}

}  // namespace sched2cu::emit
