// Structural verification of a TTGIR module: the invariants the parser guarantees by building it,
// checked on a module that comes from elsewhere (the JSON a schedule graph embeds), so that the
// scheduler and the emitter, which index by id and walk regions, never see a module the parser
// could not have built. Must never modify the module; it says nothing about whether an op is
// supported (that is check_supported, parser.h).
#pragma once

#include <optional>
#include <string>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

// The first structural problem, naming the function and the op or value, or nullopt:
//  - ids dense, every op listed in exactly one block, in program pre-order, with its parent
//    fields saying where; every value defined exactly once (function argument, op result or
//    block argument, numbered in definition order) with its definition fields saying how;
//  - every operand defined before its use and visible there (SSA scoping), use lists exact;
//  - every type and attribute re-read from its own spelling gives itself back (so that kind,
//    name, bit width, shape and literal text agree, as in parsed text), and every attribute
//    alias a type or attribute names is defined.
std::optional<std::string> structural_problem(const Module& m);

// "undefined attribute alias #x" (or "alias cycle at #x") for the first alias `a`, or `t`, names
// at any depth that `m` does not define; nullopt when every one resolves. The parser checks
// every type and attribute of a module with it too.
std::optional<std::string> undefined_alias(const Module& m, const Attribute& a);
std::optional<std::string> undefined_alias(const Module& m, const Type& t);

}  // namespace sched2cu::ttgir
