// Internal to the TTGIR frontend: the check of the layouts a type uses (layouts.cpp), run by
// first_unsupported on every value. Must never throw: a problem is returned as text.
#pragma once

#include <optional>
#include <string>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir::detail {

// What is wrong with the layout `t` uses, or nullopt (no layout, a sound one, or one this check
// does not know): a distributed layout's parameters present, positive, of one rank equal to the
// tensor's, threads multiplying to 32 and warps to the module's ttg.num-warps, `order` a
// permutation, a slice's dim within its parent, a dot operand's opIdx 0 or 1; a shared layout's
// swizzle and element width among the ones that exist.
std::optional<std::string> layout_problem(const Module& m, const Type& t);

}  // namespace sched2cu::ttgir::detail
