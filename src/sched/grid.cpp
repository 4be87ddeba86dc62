// Grid derivation (see grid.h). Each program id is followed into the coordinates of the tensor
// descriptors it indexes, which are put in linear form over the program ids with coefficients
// that are products of kernel parameters and constants (Poly below). A coordinate
// `P * pid_outer + C * pid_inner + rest` into a dimension of extent E, where C is the
// descriptor's block size there, makes the inner axis cover cdiv(P, C) blocks of one outer
// program (or cdiv(E, C) with no outer axis) and the outer axis E / P programs (an exact division
// of monomials, else cdiv). Persistent loops (tt.get_num_programs, or range(pid, n, C)) are
// matched first; a program id decomposed into tile indices by division and remainder (the
// grouped launch order) is evaluated on sample shapes last (Decomposed).
#include "sched2cu/sched/grid.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sched2cu/common/diag.h"

namespace sched2cu::sched {
namespace {

using sgraph::GridExpr;
using ttgir::Function;
using ttgir::Op;
using ttgir::ValueId;

// A polynomial over kernel parameters with integer coefficients: monomial (sorted parameter
// names, repeats allowed) -> coefficient.
using Mono = std::vector<std::string>;
using Poly = std::map<Mono, long long>;

Poly poly_const(long long c) { return c == 0 ? Poly{} : Poly{{Mono{}, c}}; }
Poly add(const Poly& a, const Poly& b, long long sign = 1) {
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

// a / b when b is one monomial dividing every term of a exactly.
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

// Whether an op writes memory or is otherwise visible outside its program (a store, an atomic,
// a TMA store or reduce, a print or assert, a call), by name: every such op of TTGIR that
// the frontend accepts has one of these words in its name.
bool visible(const Op& op) {
  const std::string& n = op.name;
  for (const char* w : {"store", "atomic", "print", "assert", "tt.call", "local_to_global",
                        "descriptor_reduce", "tma_reduce"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

// Whether every visible op of `f` is nested inside the op `loop`.
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

struct Linear {
  std::map<int, Poly> coef;  // program-id axis -> coefficient
  bool ok = true;            // false: not linear in the program ids with symbolic coefficients
};

// f(op, d, coordinate, extent, block) for every coordinate d of a tt.descriptor_load / store of
// a tt.make_tensor_descriptor, in program order: the coordinate's value, the descriptor's extent
// value in that dimension and its block size there (0 past the block's rank).
template <class F>
void for_each_coordinate(const Function& f, F&& fn) {
  for (const auto& op : f.ops) {
    if (op.name != "tt.descriptor_load" && !ttgir::is_descriptor_store(op.name)) continue;
    if (op.operand_segments.size() < 2) continue;
    const Op* desc = f.def_op(op.operands[0]);
    if (desc == nullptr || desc->name != "tt.make_tensor_descriptor") continue;
    const auto& blk = f.value(desc->results.at(0)).type.elem.at(0).shape;
    for (int d = 0; d < op.operand_segments[1]; ++d)
      fn(op, d, op.operands[1 + d], desc->operands.at(1 + d),
         d < static_cast<int>(blk.size()) ? blk[d] : 0);
  }
}

class Deriver {
 public:
  explicit Deriver(const Function& f) : f_(f) {}

  // Symbolic value of a scalar computed from kernel parameters and constants only.
  std::optional<Poly> sym(ValueId v, int depth = 0) const {
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

  // A scalar computed from kernel parameters and constants as a grid expression, with integer
  // division (which a Poly cannot hold): `tl.cdiv(M, 128)`, lowered to (M + 127) / 128, reads
  // back as cdiv(M, 128). Only the operators the generated launcher evaluates the same way.
  std::optional<GridExpr> expr(ValueId v, int depth = 0) const {
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

  // Linear form of an index value in the program ids (other terms ignored: they offset the
  // coordinate inside a program's block, e.g. a loop's induction variable).
  Linear lin(ValueId v, int depth = 0) const {
    Linear r;
    if (depth > 64) return {{}, false};
    const auto& val = f_.value(v);
    if (val.def_op == ttgir::kNoId) return r;  // a parameter or a loop variable: no pid term
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
      for (const auto& [ax, c] : b.coef)
        a.coef[ax] = add(a.coef[ax], c, d.name == "arith.subi" ? -1 : 1);
      return a;
    }
    if (d.name == "arith.muli") {
      for (int k = 0; k < 2; ++k) {
        auto s = sym(d.operands[1 - k], depth + 1);
        if (!s) continue;
        Linear a = lin(d.operands[k], depth + 1);
        if (!a.ok) return a;
        for (auto& [ax, c] : a.coef) c = mul(c, *s);
        return a;
      }
      Linear a = lin(d.operands[0], depth + 1), b = lin(d.operands[1], depth + 1);
      if (a.coef.empty() && b.coef.empty() && a.ok && b.ok) return r;
      return {{}, false};
    }
    if (d.name == "arith.constant") return r;
    // Anything else that involves a program id makes the form unknown.
    for (ValueId o : d.operands) {
      Linear x = lin(o, depth + 1);
      if (!x.ok || !x.coef.empty()) return {{}, false};
    }
    return r;
  }

  // The descriptor coordinates of every tt.descriptor_load / store in program order:
  // (op, dimension, linear form, extent of that dimension, block size there).
  struct Use {
    const Op* op;
    Linear form;
    std::optional<Poly> extent;
    long long block;
  };
  std::vector<Use> uses() const {
    std::vector<Use> out;
    for_each_coordinate(f_, [&](const Op& op, int, ValueId c, ValueId e, long long block) {
      Use u{&op, lin(c), sym(e), block};
      if (u.form.ok && !u.form.coef.empty()) out.push_back(u);
    });
    return out;
  }

 private:
  const Function& f_;
};

// Program id decomposed into tile indices (docs/scheduler.md, "Launch grid"): Triton's grouped
// launch order (`pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m`, ...) or a plain
// `pid // num_pid_n`, `pid % num_pid_n` reaches each descriptor coordinate as tile index * block
// through integer division and remainder, which no linear form holds. The coordinates are
// evaluated instead: a coordinate computed from this axis's program id, kernel parameters and
// constants only, a multiple of its dimension's block, gives the tile index coordinate / block;
// the distinct index functions (by their values) span a tile space of prod cdiv(extent, block)
// tiles, and that is the grid when, on every sample shape, the programs 0 .. grid - 1 reach
// every tile once (distinct index tuples, each in range: one to one and onto). Never a guess
// beyond the samples: a decomposition that fails any of them is not used.
class Decomposed {
 public:
  Decomposed(const Function& f, int axis) : f_(f), axis_(axis) {}

  // Appends its note to `note` when it derives the axis.
  std::optional<GridExpr> grid(const Deriver& dv, std::string& note) {
    struct Index {
      ValueId coord, extent;
      long long block;
      GridExpr extent_expr;
    };
    std::vector<Index> idx;
    std::vector<std::vector<long long>> seen;  // values of each index (identification)
    const auto samples = sample_envs();
    bool underivable = false;  // a coordinate of this program id into an extent with no expression
    for_each_coordinate(f_, [&](const Op&, int, ValueId c, ValueId e, long long block) {
      // Told apart by their values on the first 64 programs of a large shape (a grouped
      // order's column index changes only after a group's rows).
      std::vector<long long> vals;
      for (long long pid = 0; pid < 64; ++pid) {
        auto v = eval(c, samples[0], pid);
        if (!v) break;
        vals.push_back(*v);
      }
      if (vals.size() < 64 ||
          std::all_of(vals.begin(), vals.end(), [&](long long x) { return x == vals[0]; }))
        return;  // not from this program id alone, or not depending on it
      auto ee = dv.expr(e);
      if (!ee || block <= 0) {
        underivable = true;
        return;
      }
      if (std::find(seen.begin(), seen.end(), vals) != seen.end()) return;
      seen.push_back(vals);
      idx.push_back({c, e, block, *ee});
    });
    if (underivable) return std::nullopt;
    if (idx.size() < 2) return std::nullopt;  // one index is the linear rule's
    GridExpr g;
    for (size_t i = 0; i < idx.size(); ++i) {
      GridExpr t = GridExpr::binary(GridExpr::Kind::Cdiv, idx[i].extent_expr,
                                    GridExpr::integer(idx[i].block));
      g = i == 0 ? t : GridExpr::binary(GridExpr::Kind::Mul, g, t);
    }
    for (const auto& env : samples) {
      std::vector<long long> n;
      long long programs = 1;
      for (const auto& x : idx) {
        auto e = eval(x.extent, env, 0);
        if (!e || *e <= 0) return std::nullopt;
        n.push_back((*e + x.block - 1) / x.block);
        programs *= n.back();
      }
      if (programs > (1 << 20)) return std::nullopt;  // blocks of a few elements: not a GEMM
      std::set<std::vector<long long>> tiles;
      for (long long pid = 0; pid < programs; ++pid) {
        std::vector<long long> t;
        for (size_t i = 0; i < idx.size(); ++i) {
          auto v = eval(idx[i].coord, env, pid);
          if (!v || *v % idx[i].block != 0 || *v < 0 || *v / idx[i].block >= n[i])
            return std::nullopt;
          t.push_back(*v / idx[i].block);
        }
        if (!tiles.insert(t).second) return std::nullopt;
      }
    }
    note += sgraph::to_text(g);
    note += " (the program id decomposes into " + std::to_string(idx.size());
    note += " tile indices of the descriptor coordinates it indexes; every tile reached once on ";
    note += std::to_string(samples.size()) + " sample shapes)";
    return g;
  }

 private:
  using Env = std::map<std::string, long long>;

  // Integer parameters get sizes that are and are not multiples of the blocks, small and large.
  std::vector<Env> sample_envs() const {
    static const long long kSizes[][3] = {
        {4096, 4096, 4096}, {1000, 777, 1536}, {129, 3000, 64}, {2304, 136, 4097}};
    std::vector<Env> out;
    for (const auto& row : kSizes) {
      Env e;
      int i = 0;
      for (ValueId a : f_.args)
        if (f_.value(a).type.kind == ttgir::Type::Kind::Integer) e[f_.value(a).name] = row[i++ % 3];
      out.push_back(e);
    }
    return out;
  }

  // The value of an integer scalar from kernel parameters, constants and this axis's program
  // id (`pid`); nullopt for anything else (a loop variable, a load, another axis, a division
  // by zero).
  std::optional<long long> eval(ValueId v, const Env& env, long long pid, int depth = 0) const {
    if (depth > 64) return std::nullopt;
    const auto& val = f_.value(v);
    if (val.def_op == ttgir::kNoId) {
      auto it = env.find(val.name);
      return val.owner_op == ttgir::kNoId && it != env.end() ? std::optional(it->second)
                                                             : std::nullopt;
    }
    const Op& d = f_.op(val.def_op);
    if (d.name == "tt.get_program_id")
      return axis_of(d) == axis_ ? std::optional(pid) : std::nullopt;
    if (d.name == "arith.constant") {
      const auto* a = d.attr("value");
      return a && a->kind == ttgir::Attribute::Kind::Integer ? std::optional(a->ival)
                                                             : std::nullopt;
    }
    if (d.name == "arith.extsi" || d.name == "arith.extui" || d.name == "arith.trunci" ||
        d.name == "arith.index_cast")
      return eval(d.operands.at(0), env, pid, depth + 1);
    if (d.operands.size() != 2) return std::nullopt;
    auto a = eval(d.operands[0], env, pid, depth + 1);
    auto b = eval(d.operands[1], env, pid, depth + 1);
    if (!a || !b) return std::nullopt;
    if (d.name == "arith.addi") return *a + *b;
    if (d.name == "arith.subi") return *a - *b;
    if (d.name == "arith.muli") return *a * *b;
    if (d.name == "arith.minsi") return std::min(*a, *b);
    if (d.name == "arith.maxsi") return std::max(*a, *b);
    if (*b == 0) return std::nullopt;
    if (d.name == "arith.divsi") return *a / *b;  // C++ and MLIR both truncate toward zero
    if (d.name == "arith.remsi") return *a % *b;
    if (d.name == "arith.ceildivsi") return (*a + *b - 1) / *b;
    return std::nullopt;
  }

  const Function& f_;
  int axis_;
};

}  // namespace

std::vector<GridExpr> derive_grid(const ttgir::Module& m, const Function& f,
                                  std::vector<std::string>& notes) {
  (void)m;
  Deriver dv(f);
  std::vector<GridExpr> grid;
  const auto uses = dv.uses();
  for (int axis = 0; axis < 3; ++axis) {
    const Op* pid_op = nullptr;
    bool persistent = false;
    std::optional<long long> loop_step;
    std::optional<GridExpr> loop_bound;  // the persistent loop's upper bound, when it bounds the
                                         // programs that do anything (see below)
    for (const auto& op : f.ops) {
      if (axis_of(op) != axis) continue;
      if (op.name == "tt.get_num_programs") persistent = true;
      if (op.name != "tt.get_program_id") continue;
      if (pid_op == nullptr) pid_op = &op;
      for (ttgir::OpId u : f.users(op.results.at(0)))
        if (f.op(u).name == "scf.for") {
          const ttgir::ForLoop L = f.for_loop(u);
          auto c = dv.sym(L.step);
          std::optional<long long> cc;
          if (c) cc = const_of(*c);
          if (L.lb == op.results[0] && cc && *cc > 0) {
            loop_step = *cc;
            if (only_inside(f, u)) loop_bound = dv.expr(L.ub);
          }
        }
    }
    const std::string ax = std::string(1, static_cast<char>('x' + axis));
    if (pid_op == nullptr) {
      grid.push_back(GridExpr::integer(1));
      continue;
    }
    if (persistent) {
      notes.push_back("grid " + ax + ": num_sms (persistent: tt.get_num_programs on this axis)");
      grid.push_back(GridExpr::num_sms());
      continue;
    }
    if (loop_step && loop_bound) {
      // A program whose id is past the loop's upper bound runs no iteration, and nothing
      // outside the loop writes memory: launching it would only cost its start-up (on the
      // H200, case5 at 1024^3: 32 tiles, 132 CTAs launched, 22.0 us against 18.8 for 32).
      GridExpr e =
          GridExpr::binary(GridExpr::Kind::Min, GridExpr::integer(*loop_step), *loop_bound);
      notes.push_back("grid " + ax + ": " + sgraph::to_text(e) +
                      " (a loop from the program id with step " + std::to_string(*loop_step) +
                      " covers every iteration; programs past its bound would do nothing)");
      grid.push_back(e);
      continue;
    }
    if (loop_step) {
      notes.push_back("grid " + ax + ": " + std::to_string(*loop_step) +
                      " (a loop from the program id with that step covers every iteration)");
      grid.push_back(GridExpr::integer(*loop_step));
      continue;
    }
    std::optional<GridExpr> found;
    for (const auto& u : uses) {
      auto it = u.form.coef.find(axis);
      if (it == u.form.coef.end() || !u.extent) continue;
      auto c = const_of(it->second);
      // Inner axis: its coefficient is the block size; an outer axis (if any) steps by P.
      if (c && *c == u.block && *c > 0) {
        std::optional<Poly> outer;
        for (const auto& [oa, oc] : u.form.coef)
          if (oa != axis) outer = oc;
        if (u.form.coef.size() > 2) continue;
        const Poly span = outer ? *outer : *u.extent;
        found = GridExpr::binary(GridExpr::Kind::Cdiv, to_expr(span), GridExpr::integer(*c));
        if (auto k = const_of(span)) found = GridExpr::integer((*k + *c - 1) / *c);
        break;
      }
      // Outer axis: coefficient P (not the block size) with one inner axis of the block size.
      if (u.form.coef.size() == 2) {
        bool inner_ok = false;
        for (const auto& [oa, oc] : u.form.coef)
          if (oa != axis) inner_ok = const_of(oc) && *const_of(oc) == u.block;
        if (!inner_ok) continue;
        if (auto q = exact_div(*u.extent, it->second))
          found = to_expr(*q);
        else
          found = GridExpr::binary(GridExpr::Kind::Cdiv, to_expr(*u.extent), to_expr(it->second));
        break;
      }
    }
    if (!found) {
      std::string why = "grid " + ax + ": ";
      if (auto g = Decomposed(f, axis).grid(dv, why)) {
        notes.push_back(why);
        grid.push_back(*g);
        continue;
      }
    }
    if (!found) {
      std::string where = pid_op->loc.ir.known() ? pid_op->loc.ir.str() : f.name;
      std::string py = pid_op->loc.src.known() ? " (" + pid_op->loc.src.str() + ")" : "";
      std::string msg = where;
      msg += ": error: schedule: cannot derive the grid extent of program id axis ";
      msg += ax;
      msg += py;
      throw Error(msg +
                  ": it does not index a tensor descriptor dimension as `pid * BLOCK` (or "
                  "`outer_pid * P + pid * BLOCK`, or tile indices it decomposes into one to one) "
                  "and no persistent loop uses it; pass the grid explicitly, e.g. --grid "
                  "'cdiv(M, 128),Z * H,1'");
    }
    notes.push_back("grid " + ax + ": " + sgraph::to_text(*found) +
                    " (from the descriptor coordinates it indexes)");
    grid.push_back(*found);
  }
  return grid;
}

std::vector<std::vector<int>> load_axes(const Function& f) {
  Deriver dv(f);
  std::vector<std::vector<int>> out;
  for (const auto& op : f.ops) {
    if (op.name != "tt.descriptor_load" || op.operand_segments.size() < 2) continue;
    std::set<int> axes;
    for (int d = 0; d < op.operand_segments[1]; ++d) {
      Linear l = dv.lin(op.operands.at(1 + d));
      for (const auto& [ax, c] : l.coef) axes.insert(ax);
    }
    out.emplace_back(axes.begin(), axes.end());
  }
  return out;
}

std::vector<GridExpr> parse_grid_flag(const std::string& text) {
  std::vector<GridExpr> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '(') ++depth;
    if (i < text.size() && text[i] == ')') --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      out.push_back(sgraph::parse_grid_expr(text.substr(start, i - start), "--grid"));
      start = i + 1;
    }
  }
  if (out.size() != 3)
    throw Error("--grid: error: needs three comma-separated expressions X,Y,Z (got " +
                std::to_string(out.size()) + ")");
  return out;
}

}  // namespace sched2cu::sched
