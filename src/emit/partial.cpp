// Deferred quad sums (docs/emitter.md, "Deferred quad sums"): which row vectors the emitter
// holds as per-lane partials of a quad sum instead of the reduced value. A row sum of an
// accumulator tile (tt.reduce along axis 1 with an addf combiner) needs two shuffle rounds per
// row; when the sum only feeds a loop-carried linear recurrence (attention's l = l * alpha +
// rowsum(p), alpha equal across the quad), the shuffles can run once after the loop. Decided
// from the IR alone, before lowering; the lowering follows the decision (acc_row_partial,
// row_fill_quad_sum, and row_quad_reduce at the first use that needs the value). It must never
// defer a sum whose value is needed inside a loop: that would move the shuffles, not save them.
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

// tt.reduce along axis 1 of an f32 accumulator tile whose combine region is one addf of its two
// arguments.
bool is_row_sum(const Ctx& c, const ttgir::Op& o) {
  if (o.name != "tt.reduce" || o.operands.size() != 1 || o.results.size() != 1 ||
      o.regions.size() != 1 || o.regions[0].blocks.size() != 1)
    return false;
  const ttgir::Attribute* ax = o.attr("axis");
  if (ax == nullptr || ax->as_int() != 1 || !is_row_f32(c, o.results[0])) return false;
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

}  // namespace

void plan_quad_partials(Ctx& c) {
  std::set<int>& P = c.quad_partials;
  P.clear();
  // Where an scf.yield operand goes: (loop op, index).
  std::map<int, ttgir::ForLoop> loops;
  for (int id : c.f.for_ops()) loops.emplace(id, c.f.for_loop(id));
  auto loop_of_yield = [&](const ttgir::Op& y) -> const ttgir::ForLoop* {
    auto it = loops.find(y.parent_op);
    return y.name == "scf.yield" && it != loops.end() ? &it->second : nullptr;
  };
  // Optimistic closure from the row sums inside loops: linear row math, iter_args, results.
  std::vector<int> work;
  for (const auto& o : c.f.ops)
    if (is_row_sum(c, o) && in_some_loop(c, o.id)) work.push_back(o.results[0]);
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    if (!P.insert(v).second) continue;
    for (int u : c.f.users(v)) {
      const ttgir::Op& uo = c.op(u);
      if ((uo.name == "arith.addf" || uo.name == "arith.mulf") && is_row_f32(c, uo.results.at(0)))
        work.push_back(uo.results[0]);
      if (const ttgir::ForLoop* L = loop_of_yield(uo))
        for (size_t k = 0; k < L->yielded.size(); ++k)
          if (L->yielded[k] == v) {
            work.push_back(L->iter_args[k]);
            work.push_back(L->results[k]);
          }
    }
  }
  // Whether x, assumed a partial, is computed correctly as one from the values in P: a sum of
  // two partials, a partial times a quad-uniform value (a reduced row vector or a splat), a
  // carried partial with a splat init (started as x in one lane of the quad, 0 in the others).
  auto valid = [&](int x) {
    const ttgir::Op* d = c.f.def_op(x);
    if (d == nullptr) {
      const ttgir::Value& bv = c.f.value(x);
      auto it = loops.find(bv.owner_op);
      if (it == loops.end()) return false;
      const ttgir::ForLoop& L = it->second;
      for (size_t k = 0; k < L.iter_args.size(); ++k)
        if (L.iter_args[k] == x) return P.count(L.yielded[k]) != 0 && is_splat(c, L.inits[k]);
      return false;
    }
    if (is_row_sum(c, *d)) return true;
    if (d->name == "arith.addf")
      return P.count(d->operands.at(0)) != 0 && P.count(d->operands.at(1)) != 0;
    if (d->name == "arith.mulf") {
      const int a = d->operands.at(0), b = d->operands.at(1);
      const bool pa = P.count(a) != 0, pb = P.count(b) != 0;
      if (pa == pb) return false;
      const int other = pa ? b : a;
      return is_row_f32(c, other) || is_splat(c, other);
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
  // Prune to a fixed point: drop what is not computed as a partial, and what a loop needs
  // reduced (its shuffles would stay in the loop).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = P.begin(); it != P.end();) {
      bool keep = valid(*it);
      for (int u : c.f.users(*it))
        if (keep && !partial_use(*it, u) && in_some_loop(c, u)) keep = false;
      if (keep) {
        ++it;
      } else {
        it = P.erase(it);
        changed = true;
      }
    }
  }
}

}  // namespace sched2cu::emit

namespace sched2cu::emit {

void plan_col_partials(Ctx& c) {
  std::set<int>& P = c.col_partials;
  P.clear();
  std::map<int, ttgir::ForLoop> loops;
  for (int id : c.f.for_ops()) loops.emplace(id, c.f.for_loop(id));
  auto loop_of_yield = [&](const ttgir::Op& y) -> const ttgir::ForLoop* {
    auto it = loops.find(y.parent_op);
    return y.name == "scf.yield" && it != loops.end() ? &it->second : nullptr;
  };
  // Optimistic closure from the column sums inside loops: sums of them, iter_args, results.
  std::vector<int> work;
  for (const auto& o : c.f.ops)
    if (is_sum_along(c, o, 0) && is_bcol_f32(c, o.results[0]) && in_some_loop(c, o.id))
      work.push_back(o.results[0]);
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    if (!P.insert(v).second) continue;
    for (int u : c.f.users(v)) {
      const ttgir::Op& uo = c.op(u);
      if (uo.name == "arith.addf" && is_bcol_f32(c, uo.results.at(0)))
        work.push_back(uo.results[0]);
      if (const ttgir::ForLoop* L = loop_of_yield(uo))
        for (size_t k = 0; k < L->yielded.size(); ++k)
          if (L->yielded[k] == v) {
            work.push_back(L->iter_args[k]);
            work.push_back(L->results[k]);
          }
    }
  }
  // x, assumed a partial, is one when computed from partials: a column sum, a sum of two
  // partials, a carried partial that starts at zero (zero in every replica is a valid partial of
  // zero), a loop result of a carried partial.
  auto valid = [&](int x) {
    const ttgir::Op* d = c.f.def_op(x);
    if (d == nullptr) {
      auto it = loops.find(c.f.value(x).owner_op);
      if (it == loops.end()) return false;
      const ttgir::ForLoop& L = it->second;
      for (size_t k = 0; k < L.iter_args.size(); ++k)
        if (L.iter_args[k] == x) return P.count(L.yielded[k]) != 0 && is_zero_splat(c, L.inits[k]);
      return false;
    }
    if (is_sum_along(c, *d, 0)) return true;
    if (d->name == "arith.addf")
      return P.count(d->operands.at(0)) != 0 && P.count(d->operands.at(1)) != 0;
    if (d->name == "scf.for") {
      const ttgir::ForLoop& L = loops.at(d->id);
      for (size_t k = 0; k < L.results.size(); ++k)
        if (L.results[k] == x) return P.count(L.iter_args[k]) != 0;
    }
    return false;
  };
  auto partial_use = [&](int x, int u) {
    const ttgir::Op& uo = c.op(u);
    if (const ttgir::ForLoop* L = loop_of_yield(uo)) {
      for (size_t k = 0; k < L->yielded.size(); ++k)
        if (L->yielded[k] == x && P.count(L->iter_args[k]) == 0) return false;
      return true;
    }
    return !uo.results.empty() && P.count(uo.results[0]) != 0;
  };
  // The loop a partial accumulates in: a use that needs the value must run outside it, once per
  // run of that loop (for a loop's result: after it, which every use is).
  auto scope = [&](int x) {
    const ttgir::Op* d = c.f.def_op(x);
    if (d == nullptr) return c.f.value(x).owner_op;  // an iter_arg: its loop
    return d->name == "scf.for" ? d->id : loop_around(c, d->id);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = P.begin(); it != P.end();) {
      bool keep = valid(*it);
      const int sc = scope(*it);
      for (int u : c.f.users(*it))
        if (keep && !partial_use(*it, u) && sc != ttgir::kNoId && inside(c, u, sc)) keep = false;
      if (keep) {
        ++it;
      } else {
        it = P.erase(it);
        changed = true;
      }
    }
  }
}

}  // namespace sched2cu::emit
