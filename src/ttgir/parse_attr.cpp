// TTGIR parser, lexical layer: attributes (numbers, dictionaries, dialect attributes, dense
// and array forms; see parser_impl.h). Must never read past the input or recurse without bound:
// every problem is a sched2cu::Error at the file:line:col where it was found.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "parser_impl.h"

namespace sched2cu::ttgir::detail {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

Attribute Parser::number(bool allow_type_suffix) {
  ws();
  size_t b = p_;
  Attribute a;
  bool is_float = false;
  if (peek_raw() == '-' || peek_raw() == '+') ++p_;
  if (peek_raw() == '0' && (peek_raw(1) == 'x' || peek_raw(1) == 'X')) {
    p_ += 2;
    size_t h = p_;
    while (p_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
    if (p_ == h || p_ - h > 16) fail(b, "bad hexadecimal literal");
  } else {
    size_t d = p_;
    while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
    if (p_ == d) fail(b, "expected a number, found " + describe_next());
    if (peek_raw() == '.') {
      is_float = true;
      ++p_;
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
    }
    if (peek_raw() == 'e' || peek_raw() == 'E') {
      is_float = true;
      ++p_;
      if (peek_raw() == '+' || peek_raw() == '-') ++p_;
      size_t e = p_;
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
      if (e == p_) fail(b, "bad exponent in number");
    }
  }
  a.text = std::string(s_.substr(b, p_ - b));
  size_t save = p_;
  if (allow_type_suffix && eat(':')) {
    if (peek() == ':') {
      p_ = save;
    } else {
      a.type.push_back(type());
    }
  }
  bool hex = a.text.find_first_of("xX") != std::string::npos;
  bool float_typed = !a.type.empty() && a.type[0].kind == Type::Kind::Float;
  if (is_float || (hex && float_typed)) {
    a.kind = Attribute::Kind::Float;
    if (!a.type.empty() && !float_typed) fail(b, "float literal with a non-float type");
    return a;
  }
  a.kind = Attribute::Kind::Integer;
  auto [ptr, ec] = hex ? std::from_chars(a.text.data() + (a.text[0] == '-' ? 3 : 2),
                                         a.text.data() + a.text.size(), a.ival, 16)
                       : std::from_chars(a.text.data() + (a.text[0] == '+' ? 1 : 0),
                                         a.text.data() + a.text.size(), a.ival);
  if (ec != std::errc()) {
    // Wide unsigned patterns (e.g. 0xFFFFFFFFFFFFFFFF) keep their spelling; ival wraps.
    uint64_t u = 0;
    auto r = std::from_chars(a.text.data() + 2, a.text.data() + a.text.size(), u, 16);
    if (!hex || r.ec != std::errc()) fail(b, "integer literal out of range");
    a.ival = static_cast<int64_t>(u);
  }
  if (hex && a.text[0] == '-') a.ival = -a.ival;
  return a;
}

void Parser::dict_entries(std::vector<NamedAttr>& out) {
  // After '{': `key = value` or `key` (unit), comma separated, until '}'.
  if (eat('}')) return;
  do {
    std::string key = peek() == '"' ? string_lit() : ident();
    Attribute v;
    if (eat('=')) v = attribute();
    out.emplace_back(std::move(key), std::move(v));
  } while (eat(','));
  expect('}', "closing attribute dictionary");
}

Attribute Parser::dict_attr() {
  Attribute a;
  a.kind = Attribute::Kind::Dict;
  expect('{', "opening attribute dictionary");
  dict_entries(a.dict);
  return a;
}

Attribute Parser::attribute(bool allow_type_suffix) {
  DepthGuard g(*this);
  char c = peek();
  size_t off = p_;
  Attribute a;
  if (c == '#') {
    ++p_;
    std::string n = suffix_id();
    if (n.find('.') == std::string::npos) {
      a.kind = Attribute::Kind::Alias;
      a.text = n;
      return a;
    }
    a.kind = Attribute::Kind::Dialect;
    a.text = n;
    if (peek_raw() == '<') {
      ++p_;
      if (!eat('>')) {
        do a.params.push_back(attribute());
        while (eat(','));
        expect('>', "closing #" + n);
      }
    }
    return a;
  }
  if (c == '{') return dict_attr();
  if (c == '[') {
    ++p_;
    a.kind = Attribute::Kind::Array;
    if (!eat(']')) {
      do a.elems.push_back(attribute());
      while (eat(','));
      expect(']', "closing array attribute");
    }
    return a;
  }
  if (c == '"') {
    a.kind = Attribute::Kind::String;
    a.text = string_lit();
    if (allow_type_suffix && peek() == ':' && peek_raw(1) != ':') {
      ++p_;
      a.type.push_back(type());
    }
    return a;
  }
  if (c == '@') {
    ++p_;
    a.kind = Attribute::Kind::Symbol;
    a.text = peek_raw() == '"' ? string_lit() : suffix_id();
    return a;
  }
  if (c == '-' || c == '+' || is_digit(c)) return number(allow_type_suffix);
  if (c == '!' || c == '(') {
    a.kind = Attribute::Kind::TypeAttr;
    if (c == '(') fail(off, "function-type attributes are not supported");
    a.type.push_back(type());
    return a;
  }
  if (!peek_ident_start()) fail(off, "expected an attribute, found " + describe_next());
  // `fastmath<fast>`: a dialect attribute printed without its '#dialect.' prefix, which an op's
  // custom form reads for any word followed by '<' (parse_ops.cpp); read the same way here, so
  // that Attribute::str() of one reads back as itself whatever the word (`f8E4M3FN<fast>` was
  // read as a type followed by stray text, found by the fuzzer).
  {
    const size_t save = p_;
    const std::string w = ident();
    if (peek_raw() == '<' && w != "dense" && w != "array" && w != "tensor") {
      ++p_;
      a.kind = Attribute::Kind::Dialect;
      a.text = w;
      if (!eat('>')) {
        do a.params.push_back(attribute());
        while (eat(','));
        expect('>', "closing " + w + "<");
      }
      return a;
    }
    p_ = save;
  }
  if (eat_word("true") || eat_word("false")) {
    a.kind = Attribute::Kind::Bool;
    a.ival = s_[off] == 't';
    return a;
  }
  if (eat_word("unit")) return a;
  if (peek_word("dense") && s_.substr(p_ + 5, 1) == "<") {
    p_ += 6;
    a.kind = Attribute::Kind::Dense;
    // Elements, flattened; nested brackets only group them.
    std::vector<size_t> opens;
    if (!eat('>')) {
      while (true) {
        if (eat('[')) {
          opens.push_back(p_);
          continue;
        }
        if (peek() == '"') {
          Attribute s;
          s.kind = Attribute::Kind::String;
          s.text = string_lit();
          a.elems.push_back(std::move(s));
        } else if (eat_word("true") || eat_word("false")) {
          Attribute bv;
          bv.kind = Attribute::Kind::Bool;
          bv.ival = s_[p_ - 1] == 'e' && s_[p_ - 2] == 'u';
          a.elems.push_back(std::move(bv));
        } else {
          a.elems.push_back(number(false));
        }
        while (!opens.empty() && eat(']')) opens.pop_back();
        if (!eat(',')) break;
      }
      if (!opens.empty()) fail(opens.back(), "unbalanced '[' in dense attribute");
      expect('>', "closing dense<");
    }
    expect(':', "after dense<...> (its type)");
    a.type.push_back(type());
    // Elements of a float tensor may be written as integers (`dense<0>`); keep them typed.
    // Each element carries the element type, so that as_double() decodes hex bit patterns at
    // the right width (dense<0xFC00> : tensor<...xf16>); the printer omits it inside dense<>.
    const Type& et = a.type[0].element_type();
    for (auto& e : a.elems) {
      if (e.kind == Attribute::Kind::Integer && et.kind == Type::Kind::Float)
        e.kind = Attribute::Kind::Float;
      if (e.kind == Attribute::Kind::Integer || e.kind == Attribute::Kind::Float) e.type = {et};
    }
    return a;
  }
  if (peek_word("array") && s_.substr(p_ + 5, 1) == "<") {
    p_ += 6;
    a.kind = Attribute::Kind::DenseArray;
    size_t tb = p_;
    a.text = ident();
    Type et = scalar_or_fail(a.text, tb);
    if (eat(':')) {
      do {
        Attribute e = number(false);
        if (et.kind == Type::Kind::Float) e.kind = Attribute::Kind::Float;
        a.elems.push_back(std::move(e));
      } while (eat(','));
    }
    expect('>', "closing array<");
    return a;
  }
  if (peek_word("tensor")) {
    a.kind = Attribute::Kind::TypeAttr;
    a.type.push_back(type());
    return a;
  }
  if (peek_word("loc")) fail(off, "unexpected location where an attribute was expected");
  std::string w = ident();
  static const char* scalar_types[] = {"f16",   "bf16", "f32",      "f64",   "tf32",
                                       "index", "none", "f8E4M3FN", "f8E5M2"};
  bool is_type =
      std::find(std::begin(scalar_types), std::end(scalar_types), w) != std::end(scalar_types) ||
      (w.size() > 1 && w[0] == 'i' && std::all_of(w.begin() + 1, w.end(), is_digit));
  if (is_type) {
    a.kind = Attribute::Kind::TypeAttr;
    a.type.push_back(scalar_or_fail(w, off));
    return a;
  }
  a.kind = Attribute::Kind::Keyword;
  a.text = w;
  return a;
}

}  // namespace sched2cu::ttgir::detail
