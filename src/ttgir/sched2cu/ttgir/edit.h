// Editing a parsed function in place: adding ops and values, dropping dead code and dead loop-
// carried values, and renumbering so that the IR's invariants hold again (ops and values in program
// order, every cross reference an index, users recomputed). For IR-to-IR rewrites such as lifting
// pointer tiles to tensor descriptors (lift.h). Never changes what a live op computes.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

// Appends a value (a result or a block argument is wired by the caller) and returns its id.
ValueId add_value(Function& f, const std::string& name, Type t);

// Appends op `o` (its id set here) with one result of type `t` named `name` (none when t has
// Kind::None) and inserts it into the block holding `before`, right before it. Returns the op id.
// The function must be renumbered (renumber) before anything reads program order again.
OpId insert_before(Function& f, OpId before, Op o, const std::string& name, const Type& t);

// Removes ops without side effects whose results are unused, and loop-carried values of scf.for
// ops that nothing reads but their own update (the iter_arg, its yielded value and the loop
// result all unused elsewhere), until none is left; then renumbers.
void remove_dead_code(Function& f);

// Re-establishes the IR invariants after edits: ops and values renumbered in program order
// (values: function arguments, then per op its results and its regions' block arguments), every
// id rewritten, users recomputed. Ops no longer in any block are dropped.
void renumber(Function& f);

}  // namespace sched2cu::ttgir
