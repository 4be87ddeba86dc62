// Deferred sums (docs/emitter.md, "Deferred quad sums" and "Blocked layouts"): which vectors the
// emitter holds as per-thread partials of a sum instead of the reduced value.
// - Quad sums: a row sum of an accumulator tile (tt.reduce along axis 1 with an addf combiner)
//   needs two shuffle rounds per row; when the sum only feeds a loop-carried linear recurrence
//   (attention's l = l * alpha + rowsum(p), alpha equal across the quad), the shuffles run once
//   after the loop (acc_row_partial, row_fill_quad_sum, row_quad_reduce at the first use that
//   needs the value).
// - Column sums of blocked tiles (tt.reduce along axis 0) feeding a carried sum that starts at
//   zero: each thread adds its own rows only (breduce_rows_partial), lanes and warps are
//   combined where a use needs the value (bcol_partial_reduce), outside the loop the sum
//   accumulates in.
// One planner decides both from the IR alone, before lowering; the lowering follows the
// decision. It must never defer a sum whose value is needed inside the loop it accumulates in:
// that would move the reduction, not save it.
#include <functional>

#include "lower.h"

namespace sched2cu::emit {

namespace {

bool is_row_f32(const Ctx& c, int value) {
  const ttgir::Type& t = c.type(value);
  if (t.kind != ttgir::Type::Kind::Tensor || t.shape.size() != 1 ||
      t.element_type().name != "f32" || c.m.encoding_kind(t) != "ttg.slice")
    return false;
  const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
  return d != nullptr && d->as_int() == 1 && has_mma_parent(c, t);
}

bool in_some_loop(const Ctx& c, int op) {
  for (int p = c.op(op).parent_op; p != ttgir::kNoId; p = c.op(p).parent_op)
    if (c.op(p).name == "scf.for") return true;
  return false;
}

// The innermost scf.for holding `op` (kNoId at function scope).
int loop_around(const Ctx& c, int op) {
  for (int p = c.op(op).parent_op; p != ttgir::kNoId; p = c.op(p).parent_op)
    if (c.op(p).name == "scf.for") return p;
  return ttgir::kNoId;
}

// Whether `op` runs inside loop `loop` (at any depth).
bool inside(const Ctx& c, int op, int loop) {
  for (int p = c.op(op).parent_op; p != ttgir::kNoId; p = c.op(p).parent_op)
    if (p == loop) return true;
  return false;
}

// A column vector of a blocked tile (#ttg.slice<{dim = 0}> of #ttg.blocked), f32.
bool is_bcol_f32(const Ctx& c, int value) {
  const ttgir::Type& t = c.type(value);
  if (t.kind != ttgir::Type::Kind::Tensor || t.shape.size() != 1 ||
      t.element_type().name != "f32" || c.m.encoding_kind(t) != "ttg.slice" ||
      !is_blocked_type(c, t) || has_mma_parent(c, t))
    return false;
  const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
  return d != nullptr && d->as_int() == 0;
}

// tt.reduce of a rank-2 tile along `axis` whose combine region is one addf of its two arguments.
bool is_sum_along(const Ctx& c, const ttgir::Op& o, long long axis) {
  if (o.name != "tt.reduce" || o.operands.size() != 1 || o.results.size() != 1 ||
      o.regions.size() != 1 || o.regions[0].blocks.size() != 1)
    return false;
  const ttgir::Attribute* ax = o.attr("axis");
  if (ax == nullptr || ax->as_int() != axis) return false;
  const ttgir::Block& b = o.regions[0].blocks[0];
  if (b.args.size() != 2 || b.ops.size() != 2) return false;
  const ttgir::Op& add = c.op(b.ops[0]);
  const ttgir::Op& ret = c.op(b.ops[1]);
  if (add.name != "arith.addf" || ret.name != "tt.reduce.return" || ret.operands.size() != 1 ||
      ret.operands[0] != add.results.at(0))
    return false;
  return (add.operands == std::vector<int>{b.args[0], b.args[1]}) ||
         (add.operands == std::vector<int>{b.args[1], b.args[0]});
}

bool is_zero_splat(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr || d->name != "arith.constant") return false;
  const ttgir::Attribute* a = d->attr("value");
  if (a == nullptr || a->kind != ttgir::Attribute::Kind::Dense || a->elems.size() != 1)
    return false;
  const ttgir::Attribute& e = a->elems[0];
  if (e.kind == ttgir::Attribute::Kind::Integer) return e.ival == 0;
  return e.kind == ttgir::Attribute::Kind::Float && e.as_double() == 0.0;
}

// A splat init: a dense splat constant or tt.splat of a scalar.
bool is_splat(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr) return false;
  if (d->name == "tt.splat") return true;
  const ttgir::Attribute* a = d->attr("value");
  return d->name == "arith.constant" && a && a->kind == ttgir::Attribute::Kind::Dense &&
         a->elems.size() == 1;
}

// What kind of sum is deferred: the vectors it lives in, the reductions that start it, whether a
// partial times a uniform value stays a partial (a quad-uniform factor: yes; the column rule
// does not need it), the carried inits that are valid partials, and where a use that needs the
// reduced value may run.
struct PartialRule {
  std::function<bool(int value)> is_vec;
  std::function<bool(const ttgir::Op&)> is_seed;
  bool scale_by_uniform = false;
  std::function<bool(int init)> init_ok;
  // true: only outside every loop (the quad reduction is lowered at function scope only);
  // false: outside the loop the partial accumulates in, e.g. once per outer iteration.
  bool reduce_outside_every_loop = true;
};

void plan_partials(const Ctx& c, const PartialRule& rule, std::set<int>& P) {
  P.clear();
  // Where an scf.yield operand goes: (loop op, index).
  std::map<int, ttgir::ForLoop> loops;
  for (int id : c.f.for_ops()) loops.emplace(id, c.f.for_loop(id));
  auto loop_of_yield = [&](const ttgir::Op& y) -> const ttgir::ForLoop* {
    auto it = loops.find(y.parent_op);
    return y.name == "scf.yield" && it != loops.end() ? &it->second : nullptr;
  };
  // Optimistic closure from the sums inside loops: linear math of them, iter_args, results.
  std::vector<int> work;
  for (const auto& o : c.f.ops)
    if (rule.is_seed(o) && in_some_loop(c, o.id)) work.push_back(o.results[0]);
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    if (!P.insert(v).second) continue;
    for (int u : c.f.users(v)) {
      const ttgir::Op& uo = c.op(u);
      if ((uo.name == "arith.addf" || (rule.scale_by_uniform && uo.name == "arith.mulf")) &&
          rule.is_vec(uo.results.at(0)))
        work.push_back(uo.results[0]);
      if (const ttgir::ForLoop* L = loop_of_yield(uo))
        for (size_t k = 0; k < L->yielded.size(); ++k)
          if (L->yielded[k] == v) {
            work.push_back(L->iter_args[k]);
            work.push_back(L->results[k]);
          }
    }
  }
  // Whether x, assumed a partial, is computed correctly as one from the values in P: a seed, a
  // sum of two partials, a partial times a uniform value (a reduced vector or a splat), a
  // carried partial with a valid init, a loop result of a carried partial.
  auto valid = [&](int x) {
    const ttgir::Op* d = c.f.def_op(x);
    if (d == nullptr) {
      auto it = loops.find(c.f.value(x).owner_op);
      if (it == loops.end()) return false;
      const ttgir::ForLoop& L = it->second;
      // The loop's result is the same variable as the carried value: when a use of the result
      // needs it reduced where that cannot be lowered, the carried sum cannot be deferred either.
      for (size_t k = 0; k < L.iter_args.size(); ++k)
        if (L.iter_args[k] == x)
          return P.count(L.yielded[k]) != 0 && P.count(L.results[k]) != 0 &&
                 rule.init_ok(L.inits[k]);
      return false;
    }
    if (rule.is_seed(*d)) return true;
    if (d->name == "arith.addf")
      return P.count(d->operands.at(0)) != 0 && P.count(d->operands.at(1)) != 0;
    if (rule.scale_by_uniform && d->name == "arith.mulf") {
      const int a = d->operands.at(0), b = d->operands.at(1);
      const bool pa = P.count(a) != 0, pb = P.count(b) != 0;
      if (pa == pb) return false;
      const int other = pa ? b : a;
      return rule.is_vec(other) || is_splat(c, other);
    }
    if (d->name == "scf.for") {
      const ttgir::ForLoop& L = loops.at(d->id);
      for (size_t k = 0; k < L.results.size(); ++k)
        if (L.results[k] == x) return P.count(L.iter_args[k]) != 0;
    }
    return false;
  };
  // A use that consumes x as a partial (the value it defines is a partial too).
  auto partial_use = [&](int x, int u) {
    const ttgir::Op& uo = c.op(u);
    if (const ttgir::ForLoop* L = loop_of_yield(uo)) {
      for (size_t k = 0; k < L->yielded.size(); ++k)
        if (L->yielded[k] == x && P.count(L->iter_args[k]) == 0) return false;
      return true;
    }
    return !uo.results.empty() && P.count(uo.results[0]) != 0;
  };
  // Where a use that needs x reduced may not run: in any loop, or in the loop x accumulates in
  // (for a loop's result: after it, which every use is).
  auto needs_reduction_here = [&](int x, int u) {
    if (rule.reduce_outside_every_loop) return in_some_loop(c, u);
    const ttgir::Op* d = c.f.def_op(x);
    const int scope = d == nullptr           ? c.f.value(x).owner_op  // an iter_arg: its loop
                      : d->name == "scf.for" ? d->id
                                             : loop_around(c, d->id);
    return scope != ttgir::kNoId && inside(c, u, scope);
  };
  // Prune to a fixed point: drop what is not computed as a partial, and what a loop needs
  // reduced (its reduction would stay in the loop).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = P.begin(); it != P.end();) {
      bool keep = valid(*it);
      for (int u : c.f.users(*it))
        if (keep && !partial_use(*it, u) && needs_reduction_here(*it, u)) keep = false;
      if (keep) {
        ++it;
      } else {
        it = P.erase(it);
        changed = true;
      }
    }
  }
}

}  // namespace

void plan_quad_partials(Ctx& c) {
  PartialRule r;
  r.is_vec = [&](int v) { return is_row_f32(c, v); };
  r.is_seed = [&](const ttgir::Op& o) {
    return is_sum_along(c, o, 1) && is_row_f32(c, o.results.at(0));
  };
  r.scale_by_uniform = true;
  r.init_ok = [&](int init) { return is_splat(c, init); };
  r.reduce_outside_every_loop = true;
  plan_partials(c, r, c.quad_partials);
}

void plan_col_partials(Ctx& c) {
  PartialRule r;
  r.is_vec = [&](int v) { return is_bcol_f32(c, v); };
  r.is_seed = [&](const ttgir::Op& o) {
    return is_sum_along(c, o, 0) && is_bcol_f32(c, o.results.at(0));
  };
  // Zero in every replica is a valid partial of zero; another init is not.
  r.init_ok = [&](int init) { return is_zero_splat(c, init); };
  r.reduce_outside_every_loop = false;
  plan_partials(c, r, c.col_partials);
}

}  // namespace sched2cu::emit
