// TTGIR parser, structural layer: module, functions, regions, blocks and ops in both the generic
// form and Triton's custom forms (see parser_impl.h). Custom forms are read generically (operand
// groups, keywords, attribute dicts, a type signature) plus a few per-op rules for result types
// and keyword names. Must never guess silently: what it cannot read is an Error at its location.
#include <algorithm>
#include <set>

#include "parser_impl.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir::detail {

namespace {

// Name given to the i-th positional keyword / literal of a custom-form op.
std::string positional_name(const std::string& op, int i) {
  if (i == 0 && (op == "arith.cmpi" || op == "arith.cmpf")) return "predicate";
  if (i == 0 && (op == "tt.get_program_id" || op == "tt.get_num_programs")) return "axis";
  if (i == 0 && op == "arith.constant") return "value";
  return "_pos" + std::to_string(i);
}

Type with_element(const Type& t, const Type& e) {
  if (t.kind == Type::Kind::Tensor) {
    Type r = t;
    r.elem = {e};
    return r;
  }
  return e;
}

}  // namespace

ValueId Parser::new_value(Function& f, const std::string& name, Type t) {
  Value v;
  v.id = static_cast<ValueId>(f.values.size());
  v.name = name;
  v.type = std::move(t);
  f.values.push_back(std::move(v));
  return f.values.back().id;
}

void Parser::define(const std::string& name, ValueId first, int count, size_t off) {
  auto& names = scopes_.back().names;
  for (const auto& sc : scopes_)
    if (sc.names.count(name)) fail(off, "redefinition of value %" + name);
  names[name] = {first, count};
}

ValueId Parser::use(Function& f) {
  ws();
  size_t off = p_;
  if (!eat('%')) fail_here("expected a value (%name), found " + describe_next());
  std::string name = suffix_id();
  int index = 0;
  bool has_index = false;
  if (peek_raw() == '#') {
    ++p_;
    index = static_cast<int>(integer());
    has_index = true;
  }
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->names.find(name);
    if (found == it->names.end()) continue;
    auto [first, count] = found->second;
    if (index < 0 || index >= count || (!has_index && count != 1))
      fail(off, "%" + name + " has " + std::to_string(count) + " results; bad result number");
    (void)f;
    return first + index;
  }
  fail(off, "use of undefined value %" + name);
}

bool Parser::result_list_ahead() {
  // `%a, %b:2 = ...` starts a new op; `%a, %b` inside an op are operands.
  size_t save = p_;
  bool ok = false;
  while (true) {
    if (!eat('%')) break;
    while (p_ < s_.size() && s_[p_] != ' ' && s_[p_] != ',' && s_[p_] != '=' && s_[p_] != '\n' &&
           s_[p_] != ':' && s_[p_] != ')' && s_[p_] != ']')
      ++p_;
    if (peek_raw() == ':') {
      ++p_;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    }
    if (eat(',')) continue;
    ok = peek() == '=' && peek_raw(1) != '=';
    break;
  }
  p_ = save;
  return ok;
}

void Parser::set_result_types(Function& f, OpId id, const std::vector<Type>& types, size_t off) {
  Op& o = at(f, id);
  if (types.size() != o.results.size())
    fail(off, "'" + o.name + "' has " + std::to_string(o.results.size()) + " result(s) but " +
                  std::to_string(types.size()) + " result type(s)");
  for (size_t i = 0; i < types.size(); ++i)
    f.values[static_cast<size_t>(o.results[i])].type = types[i];
}

void Parser::finish_op(Function& f, OpId id, size_t start) {
  int node = opt_loc();
  pending_.push_back({cur_fn_, false, id, node, loc_at(start)});
  // Results become visible after the op (never inside its own regions).
  const Op& o = at(f, id);
  (void)o;
}

void Parser::region(Function& f, OpId owner, int region_index,
                    const std::vector<ValueId>& entry_args) {
  DepthGuard g(*this);
  expect('{', "opening a region");
  scopes_.emplace_back();
  auto owner_region = [&]() -> Region& {
    return owner == kNoId ? f.body : at(f, owner).regions[static_cast<size_t>(region_index)];
  };
  owner_region() = Region{};
  int block = -1;
  auto start_block = [&](std::vector<ValueId> args) {
    owner_region().blocks.push_back(Block{std::move(args), {}});
    block = static_cast<int>(owner_region().blocks.size()) - 1;
    for (ValueId v : owner_region().blocks.back().args) {
      Value& val = f.values[static_cast<size_t>(v)];
      val.owner_op = owner;
      val.owner_region = owner == kNoId ? -1 : region_index;
      val.owner_block = block;
    }
  };
  if (peek() != '^') start_block(entry_args);
  while (true) {
    char c = peek();
    if (c == '}') {
      ++p_;
      break;
    }
    if (c == '\0') fail_here("unexpected end of file inside a region (missing '}')");
    if (c == '^') {
      if (!entry_args.empty()) fail_here("this op's region cannot have block labels");
      ++p_;
      suffix_id();
      std::vector<ValueId> args;
      if (eat('(')) {
        if (!eat(')')) {
          do {
            ws();
            size_t off = p_;
            expect('%', "block argument");
            std::string n = suffix_id();
            expect(':', "after block argument name");
            ValueId v = new_value(f, n, type());
            f.values[static_cast<size_t>(v)].arg_index = static_cast<int>(args.size());
            int node = opt_loc();
            pending_.push_back({cur_fn_, true, v, node, loc_at(off)});
            define(n, v, 1, off);
            args.push_back(v);
          } while (eat(','));
          expect(')', "closing block arguments");
        }
      }
      expect(':', "after block label");
      start_block(std::move(args));
      continue;
    }
    ctx_.push_back(Ctx{owner, owner == kNoId ? -1 : region_index, block});
    op(f);
    ctx_.pop_back();
  }
  scopes_.pop_back();
}

void Parser::op(Function& f) {
  DepthGuard g(*this);
  ws();
  size_t start = p_;
  std::vector<std::pair<std::string, int>> res;
  if (peek() == '%') {
    do {
      ws();
      size_t off = p_;
      expect('%', "result name");
      std::string n = suffix_id();
      int count = 1;
      if (eat(':')) {
        int64_t c = integer();
        if (c < 1 || c > 4096) fail(off, "bad result count");
        count = static_cast<int>(c);
      }
      res.emplace_back(n, count);
    } while (eat(','));
    expect('=', "after result names");
  }
  ws();
  size_t name_off = p_;
  Op o;
  o.id = static_cast<OpId>(f.ops.size());
  if (peek() == '"') {
    o.name = string_lit();
  } else {
    if (!peek_ident_start()) fail_here("expected an operation, found " + describe_next());
    o.name = ident();
  }
  if (o.name.find('.') == std::string::npos)
    fail(name_off, "expected a dialect-qualified operation name, found '" + o.name + "'");
  const Ctx& c = ctx_.back();
  o.parent_op = c.op;
  o.parent_region = c.region;
  o.parent_block = c.block;
  OpId id = o.id;
  f.ops.push_back(std::move(o));
  // Register in its block now so that the block lists ops in program order.
  Region& reg = c.op == kNoId ? f.body : at(f, c.op).regions[static_cast<size_t>(c.region)];
  reg.blocks[static_cast<size_t>(c.block)].ops.push_back(id);
  for (const auto& [n, count] : res)
    for (int i = 0; i < count; ++i) {
      ValueId v = new_value(f, n, Type{});
      Value& val = f.values[static_cast<size_t>(v)];
      val.def_op = id;
      val.result_index = static_cast<int>(at(f, id).results.size());
      at(f, id).results.push_back(v);
    }
  const std::string name = at(f, id).name;
  if (s_[name_off] == '"')
    generic_op(f, id, start);
  else if (name == "scf.for")
    for_op(f, id, start);
  else if (name == "scf.if")
    if_op(f, id, start);
  else if (name == "scf.while")
    // Its `{ before } do { after }` regions are not parsed; say so at the op instead of at the
    // first brace ("expected an operation, found '{'").
    fail(name_off,
         "scf.while (a Python `while` loop in the kernel, e.g. a spin lock on tl.atomic_cas) is "
         "not supported; only `for` loops (scf.for) and `if` (scf.if) are");
  else
    custom_op(f, id, start);
  finish_op(f, id, start);
  ValueId next = at(f, id).results.empty() ? 0 : at(f, id).results[0];
  for (const auto& [n, count] : res) {
    define(n, next, count, start);
    next += count;
  }
}

void Parser::generic_op(Function& f, OpId id, size_t start) {
  (void)start;
  expect('(', "opening the operand list");
  if (!eat(')')) {
    do at(f, id).operands.push_back(use(f));
    while (eat(','));
    expect(')', "closing the operand list");
  }
  for (size_t i = 0; i < at(f, id).operands.size(); ++i) at(f, id).operand_segments.push_back(1);
  if (peek() == '[') fail_here("successor blocks are not supported");
  if (peek() == '<') {
    ++p_;
    expect('{', "opening properties");
    dict_entries(at(f, id).attrs);
    expect('>', "closing properties");
  }
  if (peek() == '(') {
    ++p_;
    int r = 0;
    do {
      at(f, id).regions.emplace_back();
      region(f, id, r++, {});
    } while (eat(','));
    expect(')', "closing the region list");
  }
  if (peek() == '{') {
    ++p_;
    dict_entries(at(f, id).attrs);
  }
  expect(':', "before the generic op's function type");
  expect('(', "opening the operand types");
  std::vector<Type> ins;
  if (!eat(')')) {
    do ins.push_back(type());
    while (eat(','));
    expect(')', "closing the operand types");
  }
  if (ins.size() != at(f, id).operands.size())
    fail_here("operand type count does not match operand count");
  if (!eat_arrow()) fail_here("expected '->' in the generic op's function type");
  size_t off = (ws(), p_);
  std::vector<Type> outs;
  if (eat('(')) {
    if (!eat(')')) {
      do outs.push_back(type());
      while (eat(','));
      expect(')', "closing the result types");
    }
  } else {
    outs.push_back(type());
  }
  set_result_types(f, id, outs, off);
}

void Parser::custom_op(Function& f, OpId id, size_t start) {
  (void)start;
  const std::string name = at(f, id).name;
  int positional = 0;
  // tt.elementwise_inline_asm opens with its asm string: a string elsewhere ends the op (a
  // generic-form op follows), so this one is read before the loop.
  if (name == "tt.elementwise_inline_asm" && peek() == '"')
    at(f, id).attrs.emplace_back("asm_string", attribute(false));
  // Elements: operands (alone or in [] groups), keywords, `k = v`, attr dicts, literals.
  while (true) {
    char c = peek();
    if (c == '\0' || c == '}' || c == ':' || c == '^' || c == '"' || peek_word("loc")) break;
    if (c == ',') {
      ++p_;
      continue;
    }
    if (c == '%') {
      if (result_list_ahead()) break;
      at(f, id).operands.push_back(use(f));
      at(f, id).operand_segments.push_back(1);
      continue;
    }
    if (c == '[' || c == '(') {
      char close = c == '[' ? ']' : ')';
      size_t save = p_;
      ++p_;
      if (peek() != '%' && peek() != close) {
        p_ = save;
        Attribute a = attribute(false);
        at(f, id).attrs.emplace_back(positional_name(name, positional), std::move(a));
        ++positional;
        continue;
      }
      int n = 0;
      if (!eat(close)) {
        do {
          at(f, id).operands.push_back(use(f));
          ++n;
        } while (eat(','));
        expect(close, "closing an operand list");
      }
      at(f, id).operand_segments.push_back(n);
      continue;
    }
    if (c == '{') {
      ++p_;
      dict_entries(at(f, id).attrs);
      continue;
    }
    if (peek_ident_start()) {
      size_t save = p_;
      std::string w = ident();
      if (w.find('.') != std::string::npos) {  // the next op (this one had no location)
        p_ = save;
        break;
      }
      if (peek() == '=' && peek_raw(1) != '=') {
        ++p_;
        at(f, id).attrs.emplace_back(w, attribute());
        continue;
      }
      if (peek_raw() == '<' && w != "dense" && w != "array" && w != "tensor") {  // fastmath<fast>
        Attribute a;
        a.kind = Attribute::Kind::Dialect;
        a.text = w;
        ++p_;
        if (!eat('>')) {
          do a.params.push_back(attribute());
          while (eat(','));
          expect('>', "closing " + w + "<");
        }
        at(f, id).attrs.emplace_back(w, std::move(a));
        continue;
      }
      p_ = save;
      Attribute a = attribute(name == "arith.constant");
      at(f, id).attrs.emplace_back(positional_name(name, positional++), std::move(a));
      continue;
    }
    Attribute a = attribute(name == "arith.constant");
    at(f, id).attrs.emplace_back(positional_name(name, positional++), std::move(a));
  }
  // The type signature: types separated by ',', '*', 'to', '->', lists in parentheses, and the
  // elided `<...>` forms of tt.make_tensor_descriptor.
  std::vector<Type> types;
  size_t arrow = std::string::npos, to = std::string::npos;
  size_t sig_off = (ws(), p_);
  if (eat(':')) {
    auto item = [&]() {
      if (eat('(')) {
        if (!eat(')')) {
          do types.push_back(type());
          while (eat(','));
          expect(')', "closing a type list");
        }
      } else if (peek() == '<') {
        ++p_;
        Type inner = type();
        expect('>', "closing an elided type");
        Type t;
        if (inner.kind == Type::Kind::Tensor) {
          t.kind = Type::Kind::TensorDesc;
          t.name = "!tt.tensordesc";
        } else {
          t.kind = Type::Kind::Ptr;
          t.name = "!tt.ptr";
        }
        t.elem.push_back(std::move(inner));
        types.push_back(std::move(t));
      } else {
        types.push_back(type());
      }
    };
    item();
    while (true) {
      if (eat(',') || eat('*')) {
        item();
      } else if (eat_arrow()) {
        if (arrow != std::string::npos) fail_here("two '->' in a type signature");
        arrow = types.size();
        item();
      } else if (eat_word("to")) {
        to = types.size();
        item();
      } else {
        break;
      }
    }
  }
  Op& o = at(f, id);
  if (o.results.empty()) return;
  size_t n = o.results.size();
  std::vector<Type> out;
  if (name == "arith.constant") {
    const Attribute* v = o.attr("value");
    if (v != nullptr && v->kind == Attribute::Kind::Bool && v->type.empty()) {
      // `arith.constant true`: MLIR prints an i1 constant as a bare bool (a while loop's
      // condition, a lock's spin in Triton's layer-norm backward).
      Type i1;
      i1.kind = Type::Kind::Integer;
      i1.name = "i1";
      i1.bits = 1;
      out.push_back(i1);
    } else {
      if (!v || v->type.empty()) fail(sig_off, "arith.constant without a typed value");
      out.push_back(v->type[0]);
    }
  } else if (types.empty()) {
    fail(sig_off, "expected ':' and the type signature of '" + name + "'");
  } else if (name == "arith.cmpi" || name == "arith.cmpf") {
    Type i1;
    i1.kind = Type::Kind::Integer;
    i1.name = "i1";
    i1.bits = 1;
    out.push_back(with_element(types.back(), i1));
  } else if (name == "tt.load") {
    const Type& p = types[0];
    const Type& e = p.element_type();
    if (e.kind != Type::Kind::Ptr || e.elem.empty()) fail(sig_off, "tt.load of a non-pointer");
    out.push_back(with_element(p, e.elem[0]));
  } else if (name == "tt.addptr") {
    out.push_back(types[0]);
  } else if (name == "tt.split" && arrow != std::string::npos && types.size() == arrow + 1) {
    // `%lo, %hi = tt.split %x : T -> R`: both halves have the one printed type R.
    out.assign(n, types[arrow]);
  } else if (arrow != std::string::npos) {
    out.assign(types.begin() + static_cast<long>(arrow), types.end());
  } else if (to != std::string::npos) {
    out.assign(types.begin() + static_cast<long>(to), types.end());
  } else if (types.size() >= n) {
    out.assign(types.end() - static_cast<long>(n), types.end());
  } else {
    out = types;  // too few: set_result_types reports the counts
  }
  set_result_types(f, id, out, sig_off);
}

void Parser::for_op(Function& f, OpId id, size_t start) {
  (void)start;
  ws();
  size_t off = p_;
  expect('%', "induction variable");
  std::string iv = suffix_id();
  expect('=', "after the induction variable");
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && !eat_word("to")) fail_here("expected 'to' in scf.for");
    if (i == 2 && !eat_word("step")) fail_here("expected 'step' in scf.for");
    at(f, id).operands.push_back(use(f));
    at(f, id).operand_segments.push_back(1);
  }
  std::vector<std::string> names;
  std::vector<size_t> offs;
  std::vector<Type> types;
  if (eat_word("iter_args")) {
    expect('(', "after iter_args");
    int n = 0;
    do {
      ws();
      offs.push_back(p_);
      expect('%', "iter_args name");
      names.push_back(suffix_id());
      expect('=', "in iter_args");
      at(f, id).operands.push_back(use(f));
      ++n;
    } while (eat(','));
    expect(')', "closing iter_args");
    at(f, id).operand_segments.push_back(n);
    if (!eat_arrow()) fail_here("expected '->' after iter_args");
    if (eat('(')) {
      do types.push_back(type());
      while (eat(','));
      expect(')', "closing scf.for result types");
    } else {
      types.push_back(type());
    }
    if (types.size() != names.size()) fail(off, "scf.for iter_args and result types differ");
  } else {
    at(f, id).operand_segments.push_back(0);
  }
  set_result_types(f, id, types, off);
  Type ivt;
  if (eat(':')) {
    ivt = type();
  } else {
    ivt = scalar_or_fail("index", off);
  }
  std::vector<ValueId> args;
  args.push_back(new_value(f, iv, ivt));
  for (size_t i = 0; i < names.size(); ++i) args.push_back(new_value(f, names[i], types[i]));
  at(f, id).regions.emplace_back();
  // Block arguments are visible inside the region only: give them their own scope there.
  scopes_.emplace_back();
  for (size_t i = 0; i < args.size(); ++i) {
    f.values[static_cast<size_t>(args[i])].arg_index = static_cast<int>(i);
    pending_.push_back({cur_fn_, true, args[i], -1, loc_at(i == 0 ? off : offs[i - 1])});
    define(f.values[static_cast<size_t>(args[i])].name, args[i], 1, i == 0 ? off : offs[i - 1]);
  }
  region(f, id, 0, args);
  scopes_.pop_back();
  if (peek() == '{') {
    ++p_;
    dict_entries(at(f, id).attrs);
  }
}

void Parser::if_op(Function& f, OpId id, size_t start) {
  (void)start;
  at(f, id).operands.push_back(use(f));
  at(f, id).operand_segments.push_back(1);
  size_t off = (ws(), p_);
  std::vector<Type> types;
  if (eat_arrow()) {
    if (eat('(')) {
      do types.push_back(type());
      while (eat(','));
      expect(')', "closing scf.if result types");
    } else {
      types.push_back(type());
    }
  }
  set_result_types(f, id, types, off);
  at(f, id).regions.emplace_back();
  region(f, id, 0, {});
  if (eat_word("else")) {
    at(f, id).regions.emplace_back();
    region(f, id, 1, {});
  }
  if (peek() == '{') {
    ++p_;
    dict_entries(at(f, id).attrs);
  }
}

}  // namespace sched2cu::ttgir::detail
