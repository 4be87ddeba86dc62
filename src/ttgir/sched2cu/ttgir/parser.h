// Entry points of the TTGIR frontend: parse MLIR text as Triton prints it into a Module, and
// check a module against the ops the later stages support. Must never crash on bad input: every
// problem is a sched2cu::Error carrying file:line:col of the offending text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

// Parses a whole module. `file` names the input in locations and error messages.
Module parse_module(std::string_view text, const std::string& file);
// Reads and parses a .ttgir file (the path as given is used in messages).
Module parse_file(const std::filesystem::path& path);

// Parses one type or attribute as Triton spells it (Type::str(), Attribute::str()), the whole
// text; `what` names it in error messages.
Type parse_type(std::string_view text, const std::string& what);
Attribute parse_attribute(std::string_view text, const std::string& what);

// The op names the later stages accept, sorted.
const std::vector<std::string>& supported_ops();
bool is_supported_op(const std::string& name);

struct Unsupported {
  std::string function;
  OpId op = kNoId;
  std::string what;  // "unsupported op 'tt.atomic_rmw'" or "unsupported type '...'"
  SourceLoc where;   // the op's TTGIR location
};
// The first op (program order) that is not supported, or whose result type is Type::Other.
std::optional<Unsupported> first_unsupported(const Module& m);
// Throws sched2cu::Error at the first unsupported op: "<ttgir loc>: error: unsupported op
// 'x' (from kernel.py:12:4)".
void check_supported(const Module& m);

// Generic-form MLIR text of the module (one op per line, aliases first); for debugging and
// for the tests. Not byte-identical to Triton's custom-form output.
std::string print_module(const Module& m);

}  // namespace sched2cu::ttgir
