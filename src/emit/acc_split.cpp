// Column halves of an accumulator tile (docs/emitter.md, "Column halves"): the idiom
// `tl.split(tl.permute(tl.reshape(acc, (M, 2, N // 2)), (0, 2, 1)))` that splits an epilogue into
// two stores of half the columns (Triton's persistent-matmul tutorial, EPILOGUE_SUBTILE). The
// reshape and the transpose are views; the split copies each half into a tile of its own, in the
// accumulator layout Triton gives the halves (a #ttg.linear equal to it, is_acc_linear). Never
// lowers any other reshape, transpose or split: those are refused at the op.
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

bool is_op(const Ctx& c, int op, const char* name) { return c.op(op).name == name; }

std::vector<int64_t> order_of(const ttgir::Op& o) {
  const ttgir::Attribute* ord = o.attr("order");
  return ord ? ord->as_int_array() : std::vector<int64_t>{};
}

}  // namespace

void lower_reshape(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const Val& a = L.val(o.operands.at(0), o.id);
  const ttgir::Type& from = c.type(o.operands[0]);
  const ttgir::Type& to = c.type(o.results.at(0));
  const bool halves = a.lay == Lay::Acc && from.shape.size() == 2 && to.shape.size() == 3 &&
                      to.shape[0] == from.shape[0] && to.shape[1] == 2 &&
                      to.shape[2] * 2 == from.shape[1];
  if (!halves)
    c.fail(o.id, "tt.reshape of " + from.str() + " to " + to.str() +
                     " is not implemented (only an accumulator tile [M, N] reshaped to [M, 2, N / "
                     "2] to split its column halves: tl.split(tl.permute(tl.reshape(acc, (M, 2, "
                     "N // 2)), (0, 2, 1))))");
  if (a.packed || a.col_parts != 1 || a.staged >= 0 || !a.expr.empty() || a.reg_trans ||
      a.acc_halves != 0 || a.convert_on_store)
    c.fail(o.id,
           "the column halves of this tile are not implemented (an f32 accumulator tile "
           "held whole by each warpgroup's rows only)");
  // Only the transpose of the idiom reads the view, and only a split reads that.
  for (int u : c.f.value(o.results[0]).users) {
    bool ok = is_op(c, u, "tt.trans") && order_of(c.op(u)) == std::vector<int64_t>{0, 2, 1};
    for (int w : ok ? c.f.value(c.op(u).results.at(0)).users : std::vector<int>{})
      ok &= is_op(c, w, "tt.split");
    if (!ok)
      c.fail(o.id, "the reshaped tile is read by " + c.note(u) +
                       ": only tl.permute(.., (0, 2, 1)) followed by tl.split is implemented");
  }
  Val v = a;
  v.acc_halves = 1;
  L.set(o.results[0], v);
  out.body.push_back(comment(c.note(o.id) + ": a view (column halves, split below)"));
}

// tt.trans of the reshaped view (order [0, 2, 1]); false when `o` is not that transpose.
bool lower_halves_trans(Lower& L, const ttgir::Op& o, Lowered& out) {
  const Val& a = L.val(o.operands.at(0), o.id);
  if (a.acc_halves == 0) return false;
  if (a.acc_halves != 1 || order_of(o) != std::vector<int64_t>{0, 2, 1})
    L.c.fail(o.id, "only tl.permute(.., (0, 2, 1)) of the reshaped tile is implemented");
  Val v = a;
  v.acc_halves = 2;
  L.set(o.results.at(0), v);
  out.body.push_back(comment(L.c.note(o.id) + ": a view (column halves, split below)"));
  return true;
}

void lower_split(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const Val& a = L.val(o.operands.at(0), o.id);
  if (a.acc_halves != 2 || o.results.size() != 2)
    c.fail(o.id,
           "tt.split is implemented for the column halves of an accumulator tile only "
           "(tl.split(tl.permute(tl.reshape(acc, (M, 2, N // 2)), (0, 2, 1))))");
  const int src = a.storage;
  for (int h = 0; h < 2; ++h) {
    const int res = o.results[static_cast<size_t>(h)];
    Val v = L.from_type(res, o.id);
    if (v.lay != Lay::Acc || v.rows != a.rows || v.cols * 2 != a.cols)
      c.fail(o.id, "the split's result layout " + c.type(res).str() +
                       " is not the accumulator layout of its half (Triton's layout for this "
                       "split differs from the one the emitter holds)");
    v.elem = a.elem;
    v.zero_iter = -1;
    out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, c.note(o.id)));
    out.body.push_back(code(
        "acc_cols<" + S(static_cast<long long>(h) * v.cols) + ">(" + R(res) + ", " + R(src) + ");",
        c.note(o.id) + (h == 0 ? ": columns of the first half" : ": columns of the second half")));
    L.set(res, v);
  }
}

}  // namespace sched2cu::emit
