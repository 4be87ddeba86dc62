// tt.reduce and tt.scan of blocked tensors (docs/emitter.md, "Blocked layouts"): the combine
// region becomes a lambda, applied in-thread, across lanes by shuffles and across warps through
// the role's scratch (runtime/sched2cu/blocked_reduce.cuh). A two-operand reduction (tl.argmax /
// tl.argmin: a value and its index) reduces a tile of pairs (BPair) built from its operands and
// splits the reduced pairs into its two results. Reductions the runtime has no form for fail with
// the op's location; this file never decides where a reduction runs, only how.
#include <string>
#include <vector>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

// The combine region as a C++ lambda over the reduction's element type `et`: the region's own
// arguments when it has one operand, else (a pair) the fields of the two pairs it combines.
Text combine_fn(Lower& L, const ttgir::Op& o, const std::vector<std::string>& ctys,
                const std::string& et) {
  Ctx& c = L.c;
  const ttgir::Block& b = o.regions[0].blocks[0];
  const size_t n = ctys.size();
  const auto nn = static_cast<long long>(n);
  if (b.args.size() != 2 * n)
    c.fail(o.id, "a combine region of " + S(nn) + " operand(s) takes " + S(2 * nn) + " arguments");
  Text fn;
  if (n == 1) {
    fn = "[](" + et + " " + R(b.args[0]) + ", " + et + " " + R(b.args[1]) + ") { ";
  } else {
    fn = "[](" + et + " x, " + et + " y) { ";
    static const char* kField[] = {"a", "b"};
    for (size_t k = 0; k < 2 * n; ++k)
      fn += "const " + ctys[k % n] + " " + R(b.args[k]) + " = " + (k < n ? "x." : "y.") +
            kField[k % n] + "; ";
  }
  for (int id : b.ops) {
    const ttgir::Op& x = c.op(id);
    if (x.name == o.name + ".return") {
      if (x.operands.size() != n) c.fail(id, "the combine region returns a value per operand");
      if (n == 1) return fn + "return " + R(x.operands[0]) + "; }";
      return fn + "return " + et + "{" + R(x.operands[0]) + ", " + R(x.operands[1]) + "}; }";
    }
    if (!is_scalar_op(c, id)) c.fail(id, "a combine region must be plain scalar math");
    fn += "const " + scalar_ctype(c, c.type(x.results.at(0)), id) + " " + R(x.results.at(0)) +
          " = " + scalar_expr(L, x) + "; ";
  }
  c.fail(o.id, "the combine region has no " + o.name + ".return");
}

// Whether a reduction or scan of a tile of layout `l` runs along its columns (axis 1, or a rank-1
// tensor) rather than its rows (axis 0); fails for another axis, or one `l` replicates.
bool along_columns(Ctx& c, const ttgir::Op& o, const BLayout& l, bool rank1, const char* what) {
  const ttgir::Attribute* ax = o.attr("axis");
  const long long axis = ax ? ax->as_int() : -1;
  const bool cols = rank1 || axis == 1;
  if (!cols && axis != 0)
    c.fail(o.id, std::string(what) + " axis " + S(axis) + " is not implemented");
  if (cols ? l.C < l.ct1() : l.R < l.ct0())
    c.fail(o.id, std::string("a ") + what + " along a replicated axis is not implemented");
  return cols;
}

// The role's scratch through which the warps along that axis pass `per_line` values of `bytes`
// each per row (columns) or column (rows), or "nullptr" when one warp spans the axis.
Text warp_scratch(Ctx& c, const BLayout& l, bool cols, long long per_line, int bytes,
                  const std::string& cty) {
  const int warps = cols ? l.W1 : l.W0;
  if (warps <= 1) return "nullptr";
  return scratch(c, (cols ? 1LL * l.R : 1LL * l.C) * per_line * warps * bytes, cty);
}

// A reduction's scalar result (of a rank-1 tensor), held in `cty`.
Val scalar_result(const Ctx& c, int res, const std::string& cty) {
  Val v;
  v.lay = Lay::Scalar;
  v.elem = c.type(res).name;
  v.cty = cty;
  v.storage = res;
  return v;
}

// A reduction of two operands (tl.argmax / tl.argmin): the operands zipped into a tile of
// pairs, reduced as one, unzipped into the two results, all in one block (its locals are
// the statement's own, so a pipelined copy of it never meets another's names).
void b_reduce_pair(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (o.results.size() != 2) c.fail(o.id, "a two-operand reduction has two results");
  const Val& a0 = L.val(o.operands[0], o.id);
  if (a0.lay != Lay::BTile) c.fail(o.id, "reductions of a broadcast view are not implemented");
  Val zip = a0;  // the pairs' tile, laid out as the first operand
  const std::string& t0 = a0.cty;
  const std::string t1 = L.val(o.operands[1], o.id).cty;
  zip.cty = "BPair<" + t0 + ", " + t1 + ">";
  const Text fn = combine_fn(L, o, {t0, t1}, zip.cty);
  const bool rank1 = c.type(o.operands[0]).shape.size() == 1;
  Text body = "{ " + blocked_ctype(zip) + " zip; bmap(zip, [](" + t0 + " x, " + t1 +
              " y) { return " + zip.cty + "{x, y}; }, " + adapter(L, o.operands[0], zip, o.id) +
              ", " + adapter(L, o.operands[1], zip, o.id) + "); ";
  const bool along_cols = along_columns(c, o, a0.blay, rank1, "reduction");
  // The scratch holds pairs: two of the wider field (at least sizeof of the pair).
  const Text scr =
      warp_scratch(c, a0.blay, along_cols, 1, 2 * std::max(cty_bytes(t0), cty_bytes(t1)), zip.cty);
  const Text tail = fn + ", " + scr + ", " + blocked_bar(c) + "); ";
  Text ref = "red";
  if (rank1) {
    body += "const " + zip.cty + " red = breduce_all(zip, " + tail;
  } else {
    Val red = blocked_val(c, o.results[0], o.id);
    red.cty = zip.cty;
    body += blocked_ctype(red) + " red; " + (along_cols ? "breduce_cols" : "breduce_rows") +
            "(red, zip, " + tail;
    ref = red.lay == Lay::BRow ? "brow(red)" : "bcol(red)";
  }
  // A result nothing reads (tl.argmin keeps only the index) is neither declared nor written.
  for (int k = 0; k < 2; ++k) {
    const int res = o.results[k];
    if (c.f.users(res).empty()) continue;
    const char* field = k == 0 ? "a" : "b";
    Val v;
    if (rank1) {
      v = scalar_result(c, res, k == 0 ? t0 : t1);
      out.decls.push_back(decl(v.cty, res, {}, false, c.note(o.id)));
      body += R(res) + " = red." + field + "; ";
    } else {
      v = blocked_val(c, res, o.id);
      out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
      body += "bmap(" + R(res) + ", [](const " + zip.cty + "& p) { return p." + field + "; }, " +
              ref + "); ";
    }
    L.set(res, v);
  }
  out.body.push_back(code(body + "}", c.note(o.id)));
}

}  // namespace

void b_reduce(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (L.has(o.operands.at(0)) && L.val(o.operands[0], o.id).blay.mma_row)
    c.fail(o.id, "reductions of accumulator-layout row vectors are not implemented");
  if (o.regions.size() != 1 || o.regions[0].blocks.size() != 1)
    c.fail(o.id, "a reduction has one combine region of one block");
  if (o.operands.size() == 2) return b_reduce_pair(L, o, out);
  if (o.operands.size() != 1 || o.results.size() != 1)
    c.fail(o.id, "reductions of more than two operands are not implemented");
  const Val& a = L.val(o.operands[0], o.id);
  if (a.lay != Lay::BTile) c.fail(o.id, "reductions of a broadcast view are not implemented");
  const std::string& T = a.cty;
  const Text fn = combine_fn(L, o, {T}, T);
  const int res = o.results[0];
  const bool rank1 = c.type(o.operands[0]).shape.size() == 1;
  const bool along_cols = along_columns(c, o, a.blay, rank1, "reduction");
  const Text scr = warp_scratch(c, a.blay, along_cols, 1, cty_bytes(T), T);
  if (along_cols) {
    if (rank1) {
      out.body.push_back(
          decl(T, res,
               "breduce_all(" + R(a.storage) + ", " + fn + ", " + scr + ", " + blocked_bar(c) + ")",
               true, c.note(o.id)));
      L.set(res, scalar_result(c, res, T));
      return;
    }
    Val v = blocked_val(c, res, o.id);
    out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
    out.body.push_back(code("breduce_cols(" + R(res) + ", " + R(a.storage) + ", " + fn + ", " +
                                scr + ", " + blocked_bar(c) + ");",
                            c.note(o.id)));
    L.set(res, v);
    return;
  }
  Val v = blocked_val(c, res, o.id);
  out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
  if (c.col_partials.count(res) != 0) {
    // A deferred column sum (partial.cpp): this thread's rows only; lanes and warps later.
    v.partial = true;
    out.body.push_back(
        code("breduce_rows_partial(" + R(res) + ", " + R(a.storage) + ", " + fn + ");",
             c.note(o.id) + ": this thread's partial"));
    L.set(res, v);
    return;
  }
  out.body.push_back(code("breduce_rows(" + R(res) + ", " + R(a.storage) + ", " + fn + ", " + scr +
                              ", " + blocked_bar(c) + ");",
                          c.note(o.id)));
  L.set(res, v);
}

// tt.scan (tl.cumsum, tl.cumprod, tl.associative_scan of one tensor): an inclusive scan along
// the columns of a tile or of a rank-1 tensor, forward.
void b_scan(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (o.regions.size() != 1 || o.regions[0].blocks.size() != 1)
    c.fail(o.id, "a scan has one combine region of one block");
  if (o.operands.size() != 1 || o.results.size() != 1)
    c.fail(o.id, "scans of more than one operand are not implemented");
  const Val& a = L.val(o.operands[0], o.id);
  if (a.lay != Lay::BTile) c.fail(o.id, "scans of a broadcast view are not implemented");
  const ttgir::Attribute* rev = o.attr("reverse");
  if (rev != nullptr && rev->as_int() != 0)
    c.fail(o.id, "reverse scans (reverse = true) are not implemented");
  const ttgir::Attribute* ax = o.attr("axis");
  const long long axis = ax ? ax->as_int() : -1;
  const bool rank1 = c.type(o.operands[0]).shape.size() == 1;
  if (!rank1 && axis != 1) c.fail(o.id, "scans along axis " + S(axis) + " are not implemented");
  const BLayout& l = a.blay;
  if (l.C < l.ct1()) c.fail(o.id, "a scan along a replicated axis is not implemented");
  const std::string& T = a.cty;
  const Text fn = combine_fn(L, o, {T}, T);
  // One total per repetition of the CTA tile along the row.
  const Text scr = warp_scratch(c, l, true, l.C / l.ct1(), cty_bytes(T), T);
  const int res = o.results[0];
  Val v = blocked_val(c, res, o.id);
  out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
  out.body.push_back(code("bscan_cols(" + R(res) + ", " + R(a.storage) + ", " + fn + ", " + scr +
                              ", " + blocked_bar(c) + ");",
                          c.note(o.id)));
  L.set(res, v);
}

}  // namespace sched2cu::emit
