// TTGIR parser, lexical layer: scanner and types (see parser_impl.h; attributes are in
// parse_attr.cpp).
// Must never read past the input, recurse without bound, or accept a type it cannot size: every
// problem is a sched2cu::Error at the file:line:col where it was found.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "parser_impl.h"

namespace sched2cu::ttgir::detail {

namespace {
constexpr int kMaxDepth = 200;
constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr int64_t kMaxNumel = int64_t{1} << 40;

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Text ends up in JSON (strings, and type and attribute spellings kept verbatim), which must be
// UTF-8: the offset of the first byte that is not part of a valid UTF-8 sequence, or npos.
size_t first_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 9;
    if (n == 9 || i + n >= s.size() + (n ? 0 : 1)) return i;
    uint32_t cp = n == 0 ? c : c & (0x3f >> n);
    for (size_t k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static const uint32_t min_cp[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}
bool valid_utf8(const std::string& s) { return first_invalid_utf8(s) == std::string_view::npos; }
}  // namespace

DepthGuard::DepthGuard(Parser& p) : p_(p) {
  if (++p_.depth_ > kMaxDepth) p_.fail_here("nesting deeper than " + std::to_string(kMaxDepth));
}

Parser::Parser(std::string_view text, std::string file) : s_(text), file_(std::move(file)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < s_.size(); ++i)
    if (s_[i] == '\n') line_starts_.push_back(i + 1);
  // Raw bytes are checked once here (escapes inside strings are checked where decoded). A NUL
  // byte is valid UTF-8 but no TTGIR text: the lexer would read it as the end of the input.
  if (size_t nul = s_.find('\0'); nul != std::string_view::npos)
    fail(nul, "NUL byte (0x00) in the input: a TTGIR file is text");
  if (size_t bad = first_invalid_utf8(s_); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X",
                  static_cast<unsigned>(static_cast<unsigned char>(s_[bad])));
    fail(bad, std::string("invalid UTF-8 byte ") + hex);
  }
}

SourceLoc Parser::loc_at(size_t off) const {
  off = std::min(off, s_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), off);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  size_t col = off - line_starts_[line - 1] + 1;
  return SourceLoc{file_, static_cast<int>(line), static_cast<int>(col)};
}

void Parser::fail(size_t off, const std::string& msg) const { throw Error(loc_at(off), msg); }

void Parser::fail_here(const std::string& msg) {
  ws();
  fail(p_, msg);
}

void Parser::ws() {
  while (p_ < s_.size()) {
    char c = s_[p_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++p_;
    } else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '/') {
      while (p_ < s_.size() && s_[p_] != '\n') ++p_;
    } else {
      break;
    }
  }
}

bool Parser::at_end() {
  ws();
  return p_ >= s_.size();
}

char Parser::peek() {
  ws();
  return p_ < s_.size() ? s_[p_] : '\0';
}

char Parser::peek_raw(size_t ahead) const { return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0'; }

bool Parser::eat(char c) {
  if (peek() != c) return false;
  ++p_;
  return true;
}

std::string Parser::describe_next() {
  ws();
  if (p_ >= s_.size()) return "end of file";
  size_t e = p_;
  while (e < s_.size() && e - p_ < 16 && s_[e] != '\n' && s_[e] != ' ') ++e;
  if (e == p_) e = p_ + 1;
  return "'" + std::string(s_.substr(p_, e - p_)) + "'";
}

void Parser::expect(char c, const std::string& what) {
  if (!eat(c))
    fail_here("expected '" + std::string(1, c) + "' " + what + ", found " + describe_next());
}

bool Parser::eat_arrow() {
  ws();
  if (peek_raw() == '-' && peek_raw(1) == '>') {
    p_ += 2;
    return true;
  }
  return false;
}

bool Parser::peek_word(std::string_view w) {
  ws();
  if (s_.substr(p_, w.size()) != w) return false;
  return !is_ident_char(peek_raw(w.size()));
}

bool Parser::eat_word(std::string_view w) {
  if (!peek_word(w)) return false;
  p_ += w.size();
  return true;
}

bool Parser::peek_ident_start() {
  char c = peek();
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string Parser::ident() {
  if (!peek_ident_start()) fail_here("expected an identifier, found " + describe_next());
  size_t b = p_;
  while (p_ < s_.size() && is_ident_char(s_[p_])) ++p_;
  return std::string(s_.substr(b, p_ - b));
}

std::string Parser::suffix_id() {
  size_t b = p_;
  while (p_ < s_.size() && (is_ident_char(s_[p_]) || s_[p_] == '-')) ++p_;
  if (b == p_) fail(b, "expected a name, found " + describe_next());
  return std::string(s_.substr(b, p_ - b));
}

std::string Parser::string_lit() {
  ws();
  size_t b = p_;
  if (peek_raw() != '"') fail(b, "expected a string, found " + describe_next());
  ++p_;
  std::string out;
  while (true) {
    if (p_ >= s_.size() || s_[p_] == '\n') fail(b, "unterminated string");
    char c = s_[p_++];
    if (c == '"') break;
    if (c == '\\') {
      if (p_ >= s_.size()) fail(b, "unterminated string");
      char e = s_[p_++];
      auto hex = [](char h) -> int {
        if (is_digit(h)) return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      if (e == 'n')
        out += '\n';
      else if (e == 't')
        out += '\t';
      else if (e == '"' || e == '\\')
        out += e;
      else if (hex(e) >= 0 && p_ < s_.size() && hex(s_[p_]) >= 0)
        out += static_cast<char>(hex(e) * 16 + hex(s_[p_++]));
      else
        fail(p_ - 2, "bad escape in string");
    } else {
      out += c;
    }
  }
  if (!valid_utf8(out)) fail(b, "string is not valid UTF-8");
  return out;
}

int64_t Parser::integer() {
  ws();
  size_t b = p_;
  if (peek_raw() == '-') ++p_;
  while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s_.data() + b, s_.data() + p_, v);
  if (ec != std::errc() || ptr != s_.data() + p_) fail(b, "expected an integer");
  return v;
}

// ---------------------------------------------------------------- types

Type Parser::scalar_or_fail(const std::string& n, size_t off) {
  Type t;
  t.name = n;
  // iN, and MLIR's explicitly signed siN / unsigned uiN (Triton's int8 tensor descriptors).
  const size_t digits = n.rfind("si", 0) == 0 || n.rfind("ui", 0) == 0 ? 2 : 1;
  if (n.size() > digits && (digits == 2 || n[0] == 'i') &&
      std::all_of(n.begin() + static_cast<std::ptrdiff_t>(digits), n.end(), is_digit)) {
    t.kind = Type::Kind::Integer;
    if (n.size() > 5 + digits) fail(off, "integer type too wide: " + n);
    t.bits = std::stoi(n.substr(digits));
    if (t.bits < 1 || t.bits > 128) fail(off, "unsupported integer width: " + n);
    return t;
  }
  static const std::map<std::string, int> floats = {
      {"f16", 16},       {"bf16", 16},         {"f32", 32},    {"f64", 64},
      {"tf32", 32},      {"f8E4M3FN", 8},      {"f8E5M2", 8},  {"f8E4M3FNUZ", 8},
      {"f8E5M2FNUZ", 8}, {"f8E4M3B11FNUZ", 8}, {"f4E2M1FN", 4}};
  if (auto it = floats.find(n); it != floats.end()) {
    t.kind = Type::Kind::Float;
    t.bits = it->second;
    return t;
  }
  if (n == "index") {
    t.kind = Type::Kind::Index;
    t.bits = 64;
    return t;
  }
  if (n == "none") {
    t.kind = Type::Kind::None;
    return t;
  }
  fail(off, "unknown type '" + n + "'");
}

void Parser::dims(std::vector<int64_t>& out) {
  // `128x64x` prefix of a shaped type; stops before the element type.
  int64_t numel = 1;
  while (true) {
    ws();
    if (peek_raw() == '?') fail(p_, "dynamic dimensions are not supported");
    if (!is_digit(peek_raw())) return;
    size_t b = p_;
    while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
    if (peek_raw() != 'x') {
      p_ = b;
      return;
    }
    int64_t d = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + b, s_.data() + p_, d);
    if (ec != std::errc() || d > kMaxDim) fail(b, "dimension too large");
    numel *= std::max<int64_t>(d, 1);
    if (numel > kMaxNumel) fail(b, "shape has too many elements");
    out.push_back(d);
    ++p_;  // 'x'
  }
}

std::string Parser::balanced_text(char open, char close) {
  ws();
  size_t b = p_;
  if (peek_raw() != open) return "";
  int level = 0;
  while (p_ < s_.size()) {
    char c = s_[p_++];
    if (c == open) ++level;
    if (c == close && --level == 0) return std::string(s_.substr(b, p_ - b));
  }
  fail(b, std::string("unbalanced '") + open + "'");
}

Type Parser::type() {
  DepthGuard g(*this);
  ws();
  size_t off = p_;
  char c = peek_raw();
  if (c == '!') {
    ++p_;
    std::string n = suffix_id();
    if (n.find('.') == std::string::npos) {
      auto it = type_aliases_.find(n);
      if (it == type_aliases_.end()) fail(off, "undefined type alias !" + n);
      return it->second;
    }
    Type t;
    t.name = "!" + n;
    if (n == "tt.ptr") {
      t.kind = Type::Kind::Ptr;
      expect('<', "after !tt.ptr");
      t.elem.push_back(type());
      if (eat(',')) t.address_space = static_cast<int>(integer());
      expect('>', "closing !tt.ptr");
    } else if (n == "tt.tensordesc") {
      t.kind = Type::Kind::TensorDesc;
      expect('<', "after !tt.tensordesc");
      t.elem.push_back(type());
      if (t.elem[0].kind != Type::Kind::Tensor) fail(off, "!tt.tensordesc of a non-tensor type");
      expect('>', "closing !tt.tensordesc");
    } else if (n == "ttg.memdesc") {
      t.kind = Type::Kind::MemDesc;
      expect('<', "after !ttg.memdesc");
      dims(t.shape);
      t.elem.push_back(type());
      while (eat(',')) {
        if (eat_word("mutable")) {
          t.mutable_memory = true;
        } else if (is_digit(peek())) {
          dims(t.alloc_shape);
          size_t b = p_;
          int64_t last = integer();  // the final dim has no trailing 'x'
          if (last < 0 || last > kMaxDim) fail(b, "dimension too large");
          t.alloc_shape.push_back(last);
        } else if (t.encoding.empty()) {
          t.encoding.push_back(attribute());
        } else if (t.memory_space.empty()) {
          t.memory_space.push_back(attribute());
        } else {
          fail_here("unexpected " + describe_next() + " in !ttg.memdesc");
        }
      }
      expect('>', "closing !ttg.memdesc");
    } else if (n == "ttg.async.token") {
      t.kind = Type::Kind::AsyncToken;
    } else {
      t.kind = Type::Kind::Other;
      t.name += balanced_text('<', '>');
    }
    return t;
  }
  if (!peek_ident_start()) fail(off, "expected a type, found " + describe_next());
  // Identifiers may not contain '<', so `tensor<` splits cleanly.
  size_t b = p_;
  while (p_ < s_.size() && (is_ident_char(s_[p_]) && s_[p_] != '.')) ++p_;
  std::string n(s_.substr(b, p_ - b));
  if (n == "tensor") {
    Type t;
    t.kind = Type::Kind::Tensor;
    t.name = "tensor";
    expect('<', "after tensor");
    dims(t.shape);
    t.elem.push_back(type());
    if (!t.elem[0].is_scalar() && t.elem[0].kind != Type::Kind::Ptr)
      fail(off, "tensor element must be a scalar or pointer type");
    if (eat(',')) t.encoding.push_back(attribute());
    expect('>', "closing tensor type");
    return t;
  }
  return scalar_or_fail(n, off);
}

}  // namespace sched2cu::ttgir::detail
