// Symbolic forms for grid derivation (see grid_forms.h).
#include "grid_forms.h"

#include <algorithm>
#include <set>

namespace sched2cu::sched::grid_forms {

Poly poly_const(long long c) { return c == 0 ? Poly{} : Poly{{Mono{}, c}}; }
Poly add(const Poly& a, const Poly& b, long long sign) {
  Poly r = a;
  for (const auto& [m, c] : b)
    if ((r[m] += sign * c) == 0) r.erase(m);
  return r;
}
Poly mul(const Poly& a, const Poly& b) {
  Poly r;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      Mono m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      if ((r[m] += ca * cb) == 0) r.erase(m);
    }
  return r;
}
std::optional<long long> const_of(const Poly& p) {
  if (p.empty()) return 0;
  if (p.size() == 1 && p.begin()->first.empty()) return p.begin()->second;
  return std::nullopt;
}

GridExpr to_expr(const Poly& p) {
  std::optional<GridExpr> sum;
  for (const auto& [m, c] : p) {
    std::optional<GridExpr> t;
    if (c != 1 || m.empty()) t = GridExpr::integer(c < 0 ? -c : c);
    for (const auto& name : m)
      t = t ? GridExpr::binary(GridExpr::Kind::Mul, *t, GridExpr::parameter(name))
            : GridExpr::parameter(name);
    if (!sum)
      sum = c < 0 ? GridExpr::binary(GridExpr::Kind::Sub, GridExpr::integer(0), *t) : *t;
    else
      sum = GridExpr::binary(c < 0 ? GridExpr::Kind::Sub : GridExpr::Kind::Add, *sum, *t);
  }
  return sum ? *sum : GridExpr::integer(0);
}

std::optional<Poly> exact_div(const Poly& a, const Poly& b) {
  if (b.size() != 1) return std::nullopt;
  const auto& [mb, cb] = *b.begin();
  Poly r;
  for (const auto& [ma, ca] : a) {
    if (ca % cb != 0) return std::nullopt;
    std::multiset<std::string> rest(ma.begin(), ma.end());
    for (const auto& n : mb) {
      auto it = rest.find(n);
      if (it == rest.end()) return std::nullopt;
      rest.erase(it);
    }
    r[Mono(rest.begin(), rest.end())] += ca / cb;
  }
  return r;
}

bool visible(const Op& op) {
  const std::string& n = op.name;
  for (const char* w : {"store", "atomic", "print", "assert", "tt.call", "local_to_global",
                        "descriptor_reduce", "tma_reduce"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

bool only_inside(const Function& f, ttgir::OpId loop) {
  for (const auto& op : f.ops) {
    if (!visible(op)) continue;
    ttgir::OpId p = op.parent_op;
    while (p != ttgir::kNoId && p != loop) p = f.op(p).parent_op;
    if (p != loop) return false;
  }
  return true;
}

int axis_of(const Op& op) {
  const auto* a = op.attr("axis");
  if (a == nullptr) return -1;
  if (a->kind == ttgir::Attribute::Kind::Keyword && !a->text.empty()) return a->text[0] - 'x';
  return static_cast<int>(a->ival);
}

std::optional<Poly> Deriver::sym(ValueId v, int depth) const {
  if (depth > 64) return std::nullopt;
  const auto& val = f_.value(v);
  if (val.def_op == ttgir::kNoId)
    return val.owner_op == ttgir::kNoId ? std::optional<Poly>(Poly{{Mono{val.name}, 1}})
                                        : std::nullopt;
  const Op& d = f_.op(val.def_op);
  auto sub = [&](size_t i) { return sym(d.operands.at(i), depth + 1); };
  if (d.name == "arith.constant") {
    const auto* a = d.attr("value");
    if (a && a->kind == ttgir::Attribute::Kind::Integer) return poly_const(a->ival);
    return std::nullopt;
  }
  if (d.name == "arith.extsi" || d.name == "arith.extui" || d.name == "arith.trunci" ||
      d.name == "arith.index_cast")
    return sub(0);
  if (d.name == "arith.addi" || d.name == "arith.subi" || d.name == "arith.muli") {
    auto a = sub(0), b = sub(1);
    if (!a || !b) return std::nullopt;
    return d.name == "arith.muli" ? mul(*a, *b) : add(*a, *b, d.name == "arith.subi" ? -1 : 1);
  }
  return std::nullopt;
}

std::optional<GridExpr> Deriver::expr(ValueId v, int depth) const {
  if (depth > 64) return std::nullopt;
  const auto& val = f_.value(v);
  if (val.def_op == ttgir::kNoId)
    return val.owner_op == ttgir::kNoId ? std::optional<GridExpr>(GridExpr::parameter(val.name))
                                        : std::nullopt;
  const Op& d = f_.op(val.def_op);
  if (d.name == "arith.constant" || d.name == "arith.extsi" || d.name == "arith.trunci" ||
      d.name == "arith.index_cast" || d.name == "arith.extui")
    if (auto p = sym(v, depth)) {
      if (auto c = const_of(*p)) return GridExpr::integer(*c);
    }
  if (d.name == "arith.extsi" || d.name == "arith.extui" || d.name == "arith.trunci" ||
      d.name == "arith.index_cast")
    return expr(d.operands.at(0), depth + 1);
  using K = GridExpr::Kind;
  const std::pair<const char*, K> ops[] = {{"arith.addi", K::Add},       {"arith.subi", K::Sub},
                                           {"arith.muli", K::Mul},       {"arith.divsi", K::Div},
                                           {"arith.ceildivsi", K::Cdiv}, {"arith.minsi", K::Min}};
  for (const auto& [name, kind] : ops) {
    if (d.name != name) continue;
    auto a = expr(d.operands.at(0), depth + 1), b = expr(d.operands.at(1), depth + 1);
    if (!a || !b) return std::nullopt;
    // (x + (c - 1)) / c with a constant c > 0 is cdiv(x, c) (tl.cdiv's lowering).
    if (kind == K::Div && b->kind == K::Int && b->value > 0 && a->kind == K::Add &&
        a->args[1].is_int(b->value - 1))
      return GridExpr::binary(K::Cdiv, a->args[0], *b);
    return GridExpr::binary(kind, *a, *b);
  }
  return std::nullopt;
}

Linear Deriver::lin(ValueId v, int depth) const {
  Linear r;
  if (depth > 64) return {{}, false};
  const auto& val = f_.value(v);
  if (val.def_op == ttgir::kNoId) {  // a parameter (no term), or a block argument of a loop
    if (val.owner_op != ttgir::kNoId && f_.op(val.owner_op).name == "scf.for") {
      if (val.arg_index == 0)
        r.loop[val.owner_op] = poly_const(1);
      else
        r.carried = true;
    } else if (val.owner_op != ttgir::kNoId) {
      r.carried = true;  // a block argument of another region: unknown per-iteration steps
    }
    return r;
  }
  const Op& d = f_.op(val.def_op);
  if (d.name == "tt.get_program_id") {
    r.coef[axis_of(d)] = poly_const(1);
    return r;
  }
  if (d.name == "arith.extsi" || d.name == "arith.extui" || d.name == "arith.index_cast")
    return lin(d.operands.at(0), depth + 1);
  if (d.name == "arith.addi" || d.name == "arith.subi") {
    Linear a = lin(d.operands[0], depth + 1), b = lin(d.operands[1], depth + 1);
    if (!a.ok || !b.ok) return {{}, false};
    const long long sign = d.name == "arith.subi" ? -1 : 1;
    for (const auto& [ax, c] : b.coef) a.coef[ax] = add(a.coef[ax], c, sign);
    for (const auto& [l, c] : b.loop) a.loop[l] = add(a.loop[l], c, sign);
    a.carried |= b.carried;
    return a;
  }
  if (d.name == "arith.muli") {
    for (int k = 0; k < 2; ++k) {
      auto s = sym(d.operands[1 - k], depth + 1);
      if (!s) continue;
      Linear a = lin(d.operands[k], depth + 1);
      if (!a.ok) return a;
      for (auto& [ax, c] : a.coef) c = mul(c, *s);
      for (auto& [l, c] : a.loop) c = mul(c, *s);
      return a;
    }
    Linear a = lin(d.operands[0], depth + 1), b = lin(d.operands[1], depth + 1);
    if (a.coef.empty() && b.coef.empty() && a.ok && b.ok) {
      r.carried = a.carried || b.carried || !a.loop.empty() || !b.loop.empty();
      return r;
    }
    return {{}, false};
  }
  if (d.name == "arith.constant") return r;
  // Anything else that involves a program id makes the form unknown; one that involves a loop
  // variable moves the coordinate by steps the form does not hold.
  for (ValueId o : d.operands) {
    Linear x = lin(o, depth + 1);
    if (!x.ok || !x.coef.empty()) return {{}, false};
    r.carried |= x.carried || !x.loop.empty();
  }
  return r;
}

std::vector<Deriver::Use> Deriver::uses() const {
  std::vector<Use> out;
  for_each_coordinate(f_, [&](const Op& op, int, ValueId c, ValueId e, long long block) {
    Use u{&op, lin(c), sym(e), block};
    if (u.form.ok && !u.form.coef.empty()) out.push_back(u);
  });
  return out;
}
}  // namespace sched2cu::sched::grid_forms
