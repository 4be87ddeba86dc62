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
#include <utility>

#include "grid_forms.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/int_math.h"

namespace sched2cu::sched {
namespace {

using grid_forms::axis_of;
using grid_forms::const_of;
using grid_forms::Deriver;
using grid_forms::exact_div;
using grid_forms::for_each_coordinate;
using grid_forms::Function;
using grid_forms::GridExpr;
using grid_forms::Linear;
using grid_forms::only_inside;
using grid_forms::Op;
using grid_forms::Poly;
using grid_forms::to_expr;
using grid_forms::ValueId;
using grid_forms::visible;

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
    if (d.name == "arith.ceildivsi") return ceil_div_signed(*a, *b);
    return std::nullopt;
  }

  const Function& f_;
  int axis_;
};

// Masked pointer ranges (docs/scheduler.md, "Launch grid", rule 5): Triton's elementwise form,
// `offs = pid * BLOCK + tl.arange(0, BLOCK)`, `tl.store(p + offs, x, mask=offs < n)`. When every
// op of the kernel that writes memory is a pointer store or atomic whose mask holds such a
// comparison on this axis, with the same bound E and block B everywhere, a program with
// pid >= cdiv(E, B) has every lane's offset pid * B + j >= E (j >= 0) and writes nothing, and
// program cdiv(E, B) - 1 still has lane 0 in range: the axis is cdiv(E, B). Offsets other than
// the program's block start are accepted only as tl.arange ranges starting at 0 or above, so
// that no lane can reach below pid * B. Nothing else is matched.
class MaskedRange {
 public:
  MaskedRange(const Function& f, const Deriver& dv, int axis) : f_(f), dv_(dv), axis_(axis) {}

  std::optional<GridExpr> grid(std::string& note) const {
    std::optional<std::pair<GridExpr, long long>> bound;
    bool any = false;
    for (const auto& op : f_.ops) {
      if (!visible(op)) continue;
      const bool masked =
          (op.name == "tt.store" || op.name == "tt.atomic_rmw") && op.operands.size() >= 3;
      if (!masked) return std::nullopt;
      std::vector<std::pair<GridExpr, long long>> found;
      collect(op.operands[2], found, 0);
      if (found.empty()) return std::nullopt;
      for (const auto& b : found) {
        if (bound && (bound->second != b.second ||
                      sgraph::to_text(bound->first) != sgraph::to_text(b.first)))
          return std::nullopt;
        bound = b;
      }
      any = true;
    }
    if (!any || !bound) return std::nullopt;
    GridExpr g =
        GridExpr::binary(GridExpr::Kind::Cdiv, bound->first, GridExpr::integer(bound->second));
    note += sgraph::to_text(g) + " (every store is masked by `pid * " +
            std::to_string(bound->second) + " + tl.arange(..) < " + sgraph::to_text(bound->first) +
            "`: programs past it would write nothing)";
    return g;
  }

 private:
  const Op* def(ValueId v) const { return f_.def_op(v); }

  // Looks through the ops that only reshape a value or widen it (its elements keep their values:
  // a sign extension, as index math written in 64 bits has, `tl.program_id(0).to(tl.int64)`).
  ValueId through_views(ValueId v) const {
    for (int i = 0; i < 16; ++i) {
      const Op* d = def(v);
      if (d == nullptr || (d->name != "tt.broadcast" && d->name != "tt.expand_dims" &&
                           d->name != "ttg.convert_layout" && d->name != "arith.extsi"))
        return v;
      v = d->operands.at(0);
    }
    return v;
  }

  // (E, B) of every comparison `index < splat(E)` on this axis in the conjunction `mask`.
  void collect(ValueId mask, std::vector<std::pair<GridExpr, long long>>& out, int depth) const {
    const Op* d = def(through_views(mask));
    if (d == nullptr || depth > 16) return;
    if (d->name == "arith.andi") {
      collect(d->operands.at(0), out, depth + 1);
      collect(d->operands.at(1), out, depth + 1);
      return;
    }
    if (d->name == "tt.splat") {  // a scalar comparison as a one-element mask
      collect(d->operands.at(0), out, depth + 1);
      return;
    }
    if (d->name != "arith.cmpi" || d->operands.size() != 2) return;
    const auto* pa = d->attr("predicate");
    const std::string pred = pa == nullptr ? "" : pa->text;
    ValueId idx = d->operands[0], lim = d->operands[1];
    if (pred == "sgt" || pred == "ugt")
      std::swap(idx, lim);
    else if (pred != "slt" && pred != "ult")
      return;
    const Op* sp = def(through_views(lim));
    std::optional<GridExpr> e;
    if (sp != nullptr && sp->name == "tt.splat")
      e = dv_.expr(sp->operands.at(0));
    else if (f_.value(lim).type.shape.empty())
      e = dv_.expr(lim);  // a scalar bound of a scalar comparison
    auto b = block_of(idx);
    if (e && b) out.emplace_back(*e, *b);
  }

  // B when `idx` is splat(pid * B) plus tl.arange ranges that start at 0 or above, on this axis
  // (or the scalar pid * B itself).
  std::optional<long long> block_of(ValueId idx) const {
    if (f_.value(idx).type.shape.empty()) return block_start(idx);
    std::vector<ValueId> terms{through_views(idx)};
    std::optional<long long> block;
    for (size_t i = 0; i < terms.size() && i < 32; ++i) {
      const Op* d = def(terms[i]);
      if (d == nullptr) return std::nullopt;
      if (d->name == "arith.addi") {
        terms.push_back(through_views(d->operands.at(0)));
        terms.push_back(through_views(d->operands.at(1)));
        continue;
      }
      if (d->name == "tt.make_range") {
        const auto* st = d->attr("start");
        if (st == nullptr || st->ival < 0) return std::nullopt;
        continue;
      }
      if (d->name != "tt.splat" || block) return std::nullopt;
      // The block start must be pid * B alone (any other scalar term could be negative).
      block = block_start(d->operands.at(0));
      if (!block) return std::nullopt;
    }
    return block;
  }

  // B when `v` is this axis's program id times a constant B > 0 (or the program id, B = 1).
  std::optional<long long> block_start(ValueId v) const {
    auto is_pid = [&](ValueId x) {
      const Op* p = def(x);
      while (p != nullptr && (p->name == "arith.extsi" || p->name == "arith.extui"))
        p = def(p->operands.at(0));
      return p != nullptr && p->name == "tt.get_program_id" && axis_of(*p) == axis_;
    };
    if (is_pid(v)) return 1;
    const Op* m = def(v);
    if (m == nullptr || m->name != "arith.muli") return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      auto c = dv_.sym(m->operands.at(1 - k));
      if (is_pid(m->operands.at(k)) && c && const_of(*c) && *const_of(*c) > 0) return const_of(*c);
    }
    return std::nullopt;
  }

  const Function& f_;
  const Deriver& dv_;
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
    std::string found_why = "from the descriptor coordinates it indexes";
    for (const auto& u : uses) {
      auto it = u.form.coef.find(axis);
      if (it == u.form.coef.end() || !u.extent) continue;
      auto c = const_of(it->second);
      // A coordinate a loop moves too. With unknown steps (a loop-carried offset) it says
      // nothing. `pid * BLOCK + k * S` (split-K: each program takes the BLOCK-wide slices pid,
      // pid + S / BLOCK, ... of the dimension) covers it with S / BLOCK programs; read as
      // `pid * BLOCK` alone it gave cdiv(extent, BLOCK) programs, each summing slices others
      // summed too.
      if (u.form.carried) continue;
      if (!u.form.loop.empty()) {
        if (u.form.coef.size() != 1 || u.form.loop.size() != 1 || !c || *c != u.block || *c <= 0)
          continue;
        const ttgir::ForLoop L = f.for_loop(u.form.loop.begin()->first);
        const auto lc = const_of(u.form.loop.begin()->second);
        const auto st = dv.sym(L.step);
        const auto sc = st ? const_of(*st) : std::nullopt;
        if (!lc || !sc || *lc <= 0 || *sc <= 0 || (*lc * *sc) % *c != 0) continue;
        const long long programs = *lc * *sc / *c;
        found = GridExpr::integer(programs);
        found_why = "the loop moves the coordinate `pid * " + std::to_string(*c) + " + k * " +
                    std::to_string(*lc * *sc) + "`: " + std::to_string(programs) +
                    " programs share the steps, as split-K does";
        break;
      }
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
      why = "grid " + ax + ": ";
      if (auto g = MaskedRange(f, dv, axis).grid(why)) {
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
      // The names a --grid expression may use: the kernel's integer parameters.
      std::string ints;
      for (ValueId a : f.args)
        if (f.value(a).type.kind == ttgir::Type::Kind::Integer && f.value(a).type.bits > 1)
          ints += (ints.empty() ? "" : ", ") + f.value(a).name;
      throw Error(msg +
                  ": it does not index a tensor descriptor dimension as `pid * BLOCK` (or "
                  "`outer_pid * P + pid * BLOCK`, or tile indices it decomposes into one to one), "
                  "no persistent loop uses it, and not every store is masked by `pid * BLOCK + "
                  "tl.arange(0, BLOCK) < bound`; pass the grid explicitly, e.g. --grid "
                  "'cdiv(M, 128),Z * H,1' (this kernel's integer parameters: " +
                  (ints.empty() ? std::string("none") : ints) +
                  "; the launcher evaluates it from the kernel's arguments, so a kernel launched "
                  "over a count it does not take, such as `grid = (M,)` of a row kernel, needs "
                  "that count as a parameter)");
    }
    std::string note = "grid " + ax + ": " + sgraph::to_text(*found);
    note.append(" (").append(found_why).append(")");
    notes.push_back(std::move(note));
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
