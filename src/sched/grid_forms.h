// Symbolic forms of a kernel's scalars for grid derivation (grid.cpp): polynomials over kernel
// parameters (Poly), grid expressions with integer division, and linear forms of index values in
// the program ids. Internal to the sched library. Must never evaluate a guess: a value it cannot
// put in a form is nullopt (or a Linear that is not ok), never an approximation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched::grid_forms {

using sgraph::GridExpr;
using ttgir::Function;
using ttgir::Op;
using ttgir::ValueId;

// A polynomial over kernel parameters with integer coefficients: monomial (sorted parameter
// names, repeats allowed) -> coefficient.
using Mono = std::vector<std::string>;
using Poly = std::map<Mono, long long>;

Poly poly_const(long long c);
Poly add(const Poly& a, const Poly& b, long long sign = 1);
Poly mul(const Poly& a, const Poly& b);
std::optional<long long> const_of(const Poly& p);
GridExpr to_expr(const Poly& p);
// a / b when b is one monomial dividing every term of a exactly.
std::optional<Poly> exact_div(const Poly& a, const Poly& b);

// Whether an op writes memory or is otherwise visible outside its program (a store, an atomic,
// a TMA store or reduce, a print or assert, a call), by name: every such op of TTGIR that
// the frontend accepts has one of these words in its name.
bool visible(const Op& op);
// Whether every visible op of `f` is nested inside the op `loop`.
bool only_inside(const Function& f, ttgir::OpId loop);
// The program-id axis (0 = x) of a tt.get_program_id / tt.get_num_programs; -1 without one.
int axis_of(const Op& op);

struct Linear {
  std::map<int, Poly> coef;  // program-id axis -> coefficient
  bool ok = true;            // false: not linear in the program ids with symbolic coefficients
  // The terms that move the coordinate from one loop iteration to the next: the coefficient of
  // each scf.for's induction variable (by loop op), and whether a loop-carried value or a
  // non-linear function of an induction variable enters (its steps are then unknown).
  std::map<ttgir::OpId, Poly> loop;
  bool carried = false;
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
  std::optional<Poly> sym(ValueId v, int depth = 0) const;

  // A scalar computed from kernel parameters and constants as a grid expression, with integer
  // division (which a Poly cannot hold): `tl.cdiv(M, 128)`, lowered to (M + 127) / 128, reads
  // back as cdiv(M, 128). Only the operators the generated launcher evaluates the same way.
  std::optional<GridExpr> expr(ValueId v, int depth = 0) const;

  // Linear form of an index value in the program ids (constant and parameter terms ignored: they
  // offset every program's coordinate alike), with the loop terms kept apart (Linear::loop): a
  // split-K program's `pid_k * BLOCK + k * BLOCK * SPLIT` moves across blocks of the dimension
  // its program id indexes.
  Linear lin(ValueId v, int depth = 0) const;

  // The descriptor coordinates of every tt.descriptor_load / store in program order:
  // (op, dimension, linear form, extent of that dimension, block size there).
  struct Use {
    const Op* op;
    Linear form;
    std::optional<Poly> extent;
    long long block;
  };
  std::vector<Use> uses() const;

 private:
  const Function& f_;
};

}  // namespace sched2cu::sched::grid_forms
