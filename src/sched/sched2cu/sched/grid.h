// Launch-grid derivation: the number of programs per tt.get_program_id axis as an expression of
// the kernel parameters, read off how each program id indexes the tensors (docs/scheduler.md,
// "Launch grid"). Never guesses: an axis it cannot derive (symbolically, or by evaluating a
// decomposed program id on sample shapes) is an error naming the op and its line, and
// saying how to pass --grid.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/ttgir/ir.h"

namespace sched2cu::sched {

// Extents of axes x, y, z; `notes` receives one line per axis saying which rule derived it.
std::vector<sgraph::GridExpr> derive_grid(const ttgir::Module& m, const ttgir::Function& f,
                                          std::vector<std::string>& notes);

// The program-id axes each tensor-descriptor load's coordinates depend on, in program order
// (for the rasterization decision: an operand indexed by one axis only is reused across the
// other's programs).
std::vector<std::vector<int>> load_axes(const ttgir::Function& f);

// `--grid X,Y,Z`: three grid expressions in the text syntax of sgraph::parse_grid_expr.
std::vector<sgraph::GridExpr> parse_grid_flag(const std::string& text);

}  // namespace sched2cu::sched
