// Structural verifier of a TTGIR module (verify.h): re-derives, from the module alone, what the
// parser guarantees by construction, and reports the first difference. Runs on every module read
// from JSON. Must never modify the module, index before checking the range, or recurse without
// a bound (ops nest only through regions the walk has already verified).
#include "sched2cu/ttgir/verify.h"

#include <functional>

#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir {
namespace {

class Verifier {
 public:
  Verifier(const Module& m, const Function& f) : m_(m), f_(f) {}

  std::optional<std::string> run() {
    const size_t nv = f_.values.size(), no = f_.ops.size();
    for (size_t i = 0; i < no; ++i)
      if (f_.ops[i].id != static_cast<OpId>(i)) return at_op(i, "its id is " + S(f_.ops[i].id));
    for (size_t i = 0; i < nv; ++i)
      if (f_.values[i].id != static_cast<ValueId>(i))
        return at_value(i, "its id is " + S(f_.values[i].id));
    visible_.assign(nv, 0);
    // Function arguments are values 0..n-1, the arguments of the body's one block.
    if (f_.body.blocks.size() != 1) return in_fn("the body must be one block");
    if (f_.body.blocks[0].args != f_.args) return in_fn("the body's block arguments differ");
    for (size_t k = 0; k < f_.args.size(); ++k) {
      if (f_.args[k] != next_value_ || static_cast<size_t>(next_value_) >= nv)
        return in_fn("argument " + S(k) + " is not value " + S(k));
      const Value& v = f_.values[static_cast<size_t>(next_value_)];
      if (v.def_op != kNoId || v.result_index != -1 || v.owner_op != kNoId ||
          v.owner_region != -1 || v.owner_block != 0 || v.arg_index != static_cast<int>(k))
        return at_value(static_cast<size_t>(k),
                        "its definition fields do not say argument " + S(k) + " of the function");
      if (auto p = type_ok(v.type, "value " + S(k))) return p;
      visible_[static_cast<size_t>(v.id)] = 1;
      ++next_value_;
    }
    if (auto p = block(f_.body.blocks[0], kNoId, -1, 0, 0)) return p;
    if (next_op_ != static_cast<OpId>(no))
      return at_op(static_cast<size_t>(next_op_), "is in no block of the function");
    if (next_value_ != static_cast<ValueId>(nv))
      return at_value(static_cast<size_t>(next_value_), "is defined by no op, block or argument");
    // Use lists: the users of each value, in program order, each once.
    std::vector<std::vector<OpId>> users(nv);
    for (const Op& o : f_.ops)
      for (ValueId v : o.operands) {
        auto& u = users[static_cast<size_t>(v)];
        if (u.empty() || u.back() != o.id) u.push_back(o.id);
      }
    for (size_t i = 0; i < nv; ++i)
      if (users[i] != f_.values[i].users) return at_value(i, "its use list is not its uses");
    for (const Op& o : f_.ops)
      for (const auto& [k, a] : o.attrs)
        if (auto p = attr_ok(a, "attribute '" + k + "' of op " + S(o.id))) return p;
    for (const Value& v : f_.values)
      for (const auto& [k, a] : v.attrs)
        if (auto p = attr_ok(a, "attribute '" + k + "' of value " + S(v.id))) return p;
    for (const auto& [k, a] : f_.attrs)
      if (auto p = attr_ok(a, "attribute '" + k + "' of the function")) return p;
    return std::nullopt;
  }

 private:
  template <typename T>
  static std::string S(T v) {
    return std::to_string(v);
  }
  std::string in_fn(const std::string& msg) const { return "function @" + f_.name + ": " + msg; }
  std::string at_op(size_t i, const std::string& msg) const {
    return in_fn("op " + S(i) + (i < f_.ops.size() ? " '" + f_.ops[i].name + "'" : "") + " " + msg);
  }
  std::string at_value(size_t i, const std::string& msg) const {
    return in_fn("value " + S(i) + (i < f_.values.size() ? " %" + f_.values[i].name : "") + " " +
                 msg);
  }

  // A type is what its own spelling parses to (kind, name, bits, shape and encoding agree), and
  // every alias it names is defined.
  std::optional<std::string> type_ok(const Type& t, const std::string& what) const {
    const std::string s = t.str();
    try {
      if (!(parse_type(s, what) == t))
        return in_fn(what + ": the type's fields do not make the type its spelling '" + s +
                     "' reads as");
    } catch (const Error& e) {
      return in_fn(what + ": type '" + s + "' is not one the parser reads: " + e.what());
    }
    return aliases_ok(t, what);
  }
  std::optional<std::string> aliases_ok(const Type& t, const std::string& what) const {
    if (auto p = undefined_alias(m_, t)) return in_fn(what + ": " + *p);
    return std::nullopt;
  }
  std::optional<std::string> alias_defined(const Attribute& a, const std::string& what) const {
    if (auto p = undefined_alias(m_, a)) return in_fn(what + ": " + *p);
    return std::nullopt;
  }
  std::optional<std::string> attr_ok(const Attribute& a, const std::string& what) const {
    const std::string s = a.str();
    try {
      if (!(parse_attribute(s, what) == a))
        return in_fn(what + ": the attribute's fields do not make the attribute its spelling '" +
                     s + "' reads as");
    } catch (const Error& e) {
      return in_fn(what + ": attribute '" + s + "' is not one the parser reads: " + e.what());
    }
    return alias_defined(a, what);
  }

  // The ops of one block, in program order; values defined in it are visible after their
  // definition and until the block ends.
  std::optional<std::string> block(const Block& b, OpId parent, int region, int blk, int depth) {
    const size_t nv = f_.values.size(), no = f_.ops.size();
    // The parser's nesting limit (a deeper module is not one it builds; the walk recurses).
    if (depth > 200) return in_fn("regions nested deeper than 200 levels");
    std::vector<ValueId> defined;
    for (OpId id : b.ops) {
      if (id < 0 || static_cast<size_t>(id) >= no)
        return in_fn("a block lists op " + S(id) + ", which does not exist");
      if (id != next_op_)
        return in_fn("op " + S(id) + " is listed where op " + S(next_op_) +
                     " comes in program order");
      ++next_op_;
      const Op& o = f_.ops[static_cast<size_t>(id)];
      const auto i = static_cast<size_t>(id);
      if (o.parent_op != parent || o.parent_region != region || o.parent_block != blk)
        return at_op(i, "has parent fields that differ from the block listing it");
      // Summed wide and checked as it grows: segments from JSON are any int, and an int sum of
      // INT_MAX and 1 overflowed (found by the graph fuzzer).
      size_t seg = 0;
      for (int s : o.operand_segments) {
        if (s < 0) return at_op(i, "has a negative operand segment");
        seg += static_cast<size_t>(s);
        if (seg > o.operands.size()) break;
      }
      if (seg != o.operands.size())
        return at_op(i, "has operand segments that do not add up to its operands");
      for (ValueId v : o.operands)
        if (v < 0 || static_cast<size_t>(v) >= nv || !visible_[static_cast<size_t>(v)])
          return at_op(i, "uses value " + S(v) + ", which is not defined before it in scope");
      for (size_t k = 0; k < o.results.size(); ++k) {
        if (o.results[k] != next_value_ || static_cast<size_t>(next_value_) >= nv)
          return at_op(i, "result " + S(k) + " is not the next value defined");
        const Value& v = f_.values[static_cast<size_t>(next_value_)];
        if (v.def_op != id || v.result_index != static_cast<int>(k) || v.owner_op != kNoId ||
            v.owner_region != -1 || v.owner_block != -1 || v.arg_index != -1)
          return at_value(
              static_cast<size_t>(next_value_),
              "has definition fields that do not say result " + S(k) + " of op " + S(id));
        if (auto p = type_ok(v.type, "value " + S(v.id))) return p;
        ++next_value_;
      }
      for (size_t r = 0; r < o.regions.size(); ++r)
        for (size_t bi = 0; bi < o.regions[r].blocks.size(); ++bi) {
          const Block& nb = o.regions[r].blocks[bi];
          for (size_t k = 0; k < nb.args.size(); ++k) {
            if (nb.args[k] != next_value_ || static_cast<size_t>(next_value_) >= nv)
              return at_op(i, "block argument " + S(k) + " is not the next value defined");
            const Value& v = f_.values[static_cast<size_t>(next_value_)];
            if (v.owner_op != id || v.owner_region != static_cast<int>(r) ||
                v.owner_block != static_cast<int>(bi) || v.arg_index != static_cast<int>(k) ||
                v.def_op != kNoId || v.result_index != -1)
              return at_value(static_cast<size_t>(next_value_),
                              "has definition fields that do not say argument " + S(k) +
                                  " of a block of op " + S(id));
            if (auto p = type_ok(v.type, "value " + S(v.id))) return p;
            visible_[static_cast<size_t>(next_value_)] = 1;
            ++next_value_;
          }
          if (auto p = block(nb, id, static_cast<int>(r), static_cast<int>(bi), depth + 1))
            return p;
          for (ValueId a : nb.args) visible_[static_cast<size_t>(a)] = 0;
        }
      for (ValueId v : o.results) {
        visible_[static_cast<size_t>(v)] = 1;
        defined.push_back(v);
      }
    }
    for (ValueId v : defined) visible_[static_cast<size_t>(v)] = 0;
    return std::nullopt;
  }

  const Module& m_;
  const Function& f_;
  std::vector<char> visible_;
  OpId next_op_ = 0;
  ValueId next_value_ = 0;
};

}  // namespace

std::optional<std::string> undefined_alias(const Module& m, const Attribute& a) {
  try {
    (void)m.resolve(a);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  for (const auto& x : a.elems)
    if (auto p = undefined_alias(m, x)) return p;
  for (const auto& x : a.params)
    if (auto p = undefined_alias(m, x)) return p;
  for (const auto& [k, x] : a.dict)
    if (auto p = undefined_alias(m, x)) return p;
  for (const auto& t : a.type)
    if (auto p = undefined_alias(m, t)) return p;
  return std::nullopt;
}

std::optional<std::string> undefined_alias(const Module& m, const Type& t) {
  for (const auto& e : t.encoding)
    if (auto p = undefined_alias(m, e)) return p;
  for (const auto& e : t.memory_space)
    if (auto p = undefined_alias(m, e)) return p;
  for (const auto& e : t.elem)
    if (auto p = undefined_alias(m, e)) return p;
  return std::nullopt;
}

std::optional<std::string> structural_problem(const Module& m) {
  // Attributes re-read from their spelling (aliases and module attributes), and every alias they
  // name defined, at any depth.
  auto reads_back = [](const Attribute& a, const std::string& what) -> std::optional<std::string> {
    try {
      if (parse_attribute(a.str(), what) == a) return std::nullopt;
    } catch (const Error& e) {
      return what + ": " + e.what();
    }
    return what + ": the attribute's fields do not make the attribute its spelling '" + a.str() +
           "' reads as";
  };
  for (const auto& [k, a] : m.aliases) {
    if (auto p = reads_back(a, "alias #" + k)) return p;
    if (auto p = undefined_alias(m, a)) return "alias #" + k + ": " + *p;
  }
  for (const auto& [k, a] : m.attrs) {
    if (auto p = reads_back(a, "module attribute '" + k + "'")) return p;
    if (auto p = undefined_alias(m, a)) return "module attribute '" + k + "': " + *p;
  }
  for (const Function& f : m.functions)
    if (auto p = Verifier(m, f).run()) return p;
  return std::nullopt;
}

}  // namespace sched2cu::ttgir
