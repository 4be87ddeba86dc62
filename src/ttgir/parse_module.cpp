// TTGIR parser, top level: aliases, the module, functions, and the final pass that resolves
// locations and fills use lists. Must never return a module with dangling ids: every value is
// defined before use and every location alias resolves, or the parse fails with an Error.
#include <algorithm>

#include "parser_impl.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ttgir/parser.h"
#include "sched2cu/ttgir/verify.h"

namespace sched2cu::ttgir {
namespace detail {

Function Parser::function() {
  Function f;
  ws();
  size_t off = p_;
  if (eat_word("public"))
    f.is_public = true;
  else if (eat_word("private") || eat_word("nested"))
    f.is_public = false;
  expect('@', "before the function name");
  f.name = peek_raw() == '"' ? string_lit() : suffix_id();
  scopes_.emplace_back();
  expect('(', "opening the function arguments");
  if (!eat(')')) {
    do {
      ws();
      size_t aoff = p_;
      expect('%', "function argument");
      std::string n = suffix_id();
      expect(':', "after the argument name");
      ValueId v = new_value(f, n, type());
      Value& val = f.values.back();
      val.arg_index = static_cast<int>(f.args.size());
      val.owner_block = 0;
      if (peek() == '{') {
        ++p_;
        dict_entries(val.attrs);
      }
      int node = opt_loc();
      pending_.push_back({cur_fn_, true, v, node, loc_at(aoff)});
      define(n, v, 1, aoff);
      f.args.push_back(v);
    } while (eat(','));
    expect(')', "closing the function arguments");
  }
  if (eat_arrow()) {
    // Kernels return nothing; a result list is read and rejected by check_supported via attrs.
    Attribute r;
    r.kind = Attribute::Kind::Array;
    if (eat('(')) {
      if (!eat(')')) {
        do {
          Attribute t;
          t.kind = Attribute::Kind::TypeAttr;
          t.type.push_back(type());
          r.elems.push_back(std::move(t));
        } while (eat(','));
        expect(')', "closing the result types");
      }
    } else {
      Attribute t;
      t.kind = Attribute::Kind::TypeAttr;
      t.type.push_back(type());
      r.elems.push_back(std::move(t));
    }
    f.attrs.emplace_back("function_results", std::move(r));
  }
  if (eat_word("attributes")) {
    expect('{', "after 'attributes'");
    dict_entries(f.attrs);
  }
  f.body.blocks.clear();
  ctx_.clear();
  region(f, kNoId, 0, f.args);
  scopes_.pop_back();
  int node = opt_loc();
  pending_.push_back({cur_fn_, false, -1, node, loc_at(off)});
  if (f.body.blocks.size() != 1) fail(off, "functions with more than one block are not supported");
  return f;
}

void Parser::module_body(Module& m) {
  expect('{', "opening the module body");
  while (true) {
    if (eat('}')) return;
    if (at_end()) fail_here("unexpected end of file inside the module (missing '}')");
    size_t off = p_;
    if (!eat_word("tt.func")) {
      std::string w = peek_ident_start() ? ident() : describe_next();
      fail(off, "expected 'tt.func' in the module, found '" + w + "'");
    }
    cur_fn_ = static_cast<int>(m.functions.size());
    m.functions.push_back(function());
  }
}

Module Parser::run() {
  Module m;
  m.file = file_;
  module_ = &m;
  bool seen_module = false;
  while (!at_end()) {
    size_t off = p_;
    char c = peek();
    if (c == '#' || c == '!') {
      ++p_;
      std::string n = suffix_id();
      if (n.find('.') != std::string::npos) fail(off, "expected an alias definition");
      expect('=', "in alias definition");
      if (c == '!') {
        if (type_aliases_.count(n)) fail(off, "redefinition of type alias !" + n);
        type_aliases_[n] = type();
      } else if (peek_word("loc")) {
        if (loc_aliases_.count(n)) fail(off, "redefinition of location alias #" + n);
        p_ += 3;
        expect('(', "after loc");
        loc_aliases_[n] = loc_expr();
        expect(')', "closing loc(");
      } else {
        for (const auto& [k, v] : m.aliases)
          if (k == n) fail(off, "redefinition of attribute alias #" + n);
        m.aliases.emplace_back(n, attribute());
      }
      continue;
    }
    if (eat_word("module")) {
      if (seen_module) fail(off, "more than one module");
      seen_module = true;
      if (peek() == '@') {
        ++p_;
        suffix_id();
      }
      if (eat_word("attributes")) {
        expect('{', "after 'attributes'");
        dict_entries(m.attrs);
      }
      module_body(m);
      opt_loc();
      continue;
    }
    fail(off, "expected 'module' or an alias definition, found " + describe_next());
  }
  if (!seen_module) fail(p_, "no module in the input");
  // Attribute aliases must all resolve (types refer to them by name).
  for (const auto& [k, v] : m.aliases)
    if (auto p = undefined_alias(m, v)) fail(0, *p);
  for (const auto& pl : pending_) {
    Function& f = m.functions[static_cast<size_t>(pl.fn)];
    Location l = resolve_loc(pl.node, pl.ir);
    if (pl.is_value)
      f.values[static_cast<size_t>(pl.id)].loc = std::move(l);
    else if (pl.id < 0)
      f.loc = std::move(l);
    else
      f.ops[static_cast<size_t>(pl.id)].loc = std::move(l);
  }
  for (auto& f : m.functions) {
    for (const Op& o : f.ops)
      for (ValueId v : o.operands) {
        auto& users = f.values[static_cast<size_t>(v)].users;
        if (users.empty() || users.back() != o.id) users.push_back(o.id);
      }
    // Types and attributes must name defined aliases, at any depth (a memdesc's memory space
    // and an op's attributes were not checked: the JSON reader then refused such a module).
    for (const Value& v : f.values) {
      const SourceLoc& at =
          v.def_op != kNoId ? f.ops[static_cast<size_t>(v.def_op)].loc.ir : v.loc.ir;
      if (auto p = undefined_alias(m, v.type)) throw Error(at, *p);
      for (const auto& [k, a] : v.attrs)
        if (auto p = undefined_alias(m, a)) throw Error(v.loc.ir, *p);
    }
    for (const Op& o : f.ops)
      for (const auto& [k, a] : o.attrs)
        if (auto p = undefined_alias(m, a)) throw Error(o.loc.ir, *p);
    for (const auto& [k, a] : f.attrs)
      if (auto p = undefined_alias(m, a)) throw Error(f.loc.ir, *p);
  }
  for (const auto& [k, a] : m.attrs)
    if (auto p = undefined_alias(m, a)) fail(0, *p);
  return m;
}

}  // namespace detail

Module parse_module(std::string_view text, const std::string& file) {
  detail::Parser p(text, file);
  return p.run();
}

Type parse_type(std::string_view text, const std::string& what) {
  detail::Parser p(text, what);
  Type t = p.type();
  if (!p.at_end()) p.fail_here("unexpected text after the type");
  return t;
}

Attribute parse_attribute(std::string_view text, const std::string& what) {
  detail::Parser p(text, what);
  Attribute a = p.attribute();
  if (!p.at_end()) p.fail_here("unexpected text after the attribute");
  return a;
}

Module parse_file(const std::filesystem::path& path) {
  std::string text = read_file(path);
  return parse_module(text, path.string());
}

}  // namespace sched2cu::ttgir
