// Grid expressions: constructors, text form and its recursive-descent parser, host C++ form.
// The parser is the only reader of the text syntax (used by `schedule --grid`); the JSON form is
// read by json_io.cpp.
#include "sched2cu/sgraph/grid_expr.h"

#include <cctype>
#include <climits>

#include "sched2cu/common/diag.h"

namespace sched2cu::sgraph {

GridExpr GridExpr::integer(long long v) {
  GridExpr e;
  e.kind = Kind::Int;
  e.value = v;
  return e;
}
GridExpr GridExpr::parameter(std::string name) {
  GridExpr e;
  e.kind = Kind::Param;
  e.param = std::move(name);
  return e;
}
GridExpr GridExpr::num_sms() {
  GridExpr e;
  e.kind = Kind::NumSms;
  return e;
}
GridExpr GridExpr::binary(Kind k, GridExpr a, GridExpr b) {
  GridExpr e;
  e.kind = k;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

bool GridExpr::operator==(const GridExpr& o) const {
  return kind == o.kind && value == o.value && param == o.param && args == o.args;
}

const char* grid_op_name(GridExpr::Kind k) {
  switch (k) {
    case GridExpr::Kind::Add:
      return "add";
    case GridExpr::Kind::Sub:
      return "sub";
    case GridExpr::Kind::Mul:
      return "mul";
    case GridExpr::Kind::Div:
      return "div";
    case GridExpr::Kind::Cdiv:
      return "cdiv";
    case GridExpr::Kind::Min:
      return "min";
    default:
      return "";
  }
}

namespace {

int precedence(GridExpr::Kind k) {
  return k == GridExpr::Kind::Add || k == GridExpr::Kind::Sub   ? 1
         : k == GridExpr::Kind::Mul || k == GridExpr::Kind::Div ? 2
                                                                : 3;
}

const char* symbol(GridExpr::Kind k) {
  switch (k) {
    case GridExpr::Kind::Add:
      return " + ";
    case GridExpr::Kind::Sub:
      return " - ";
    case GridExpr::Kind::Mul:
      return " * ";
    default:
      return " / ";
  }
}

// Text of `e` as an operand of an operator of precedence `outer` (right operand: `right`).
std::string text(const GridExpr& e, int outer, bool right) {
  using K = GridExpr::Kind;
  switch (e.kind) {
    case K::Int:
      return std::to_string(e.value);
    case K::Param:
      return e.param;
    case K::NumSms:
      return "num_sms";
    case K::Cdiv:
    case K::Min:
      return std::string(grid_op_name(e.kind)) + "(" + text(e.args[0], 0, false) + ", " +
             text(e.args[1], 0, false) + ")";
    default: {
      const int p = precedence(e.kind);
      std::string s = text(e.args[0], p, false) + symbol(e.kind) + text(e.args[1], p, true);
      // Left-associative operators: a right operand of equal precedence needs parentheses.
      return p < outer || (right && p == outer) ? "(" + s + ")" : s;
    }
  }
}

struct Parser {
  const std::string& s;
  const std::string& what;
  size_t i = 0;

  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(what + ": error: grid expression \"" + s + "\", column " + std::to_string(i + 1) +
                ": " + msg);
  }
  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    skip();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  GridExpr expr() {
    GridExpr a = term();
    for (;;) {
      if (eat('+'))
        a = GridExpr::binary(GridExpr::Kind::Add, a, term());
      else if (eat('-'))
        a = GridExpr::binary(GridExpr::Kind::Sub, a, term());
      else
        return a;
    }
  }
  GridExpr term() {
    GridExpr a = atom();
    for (;;) {
      if (eat('*'))
        a = GridExpr::binary(GridExpr::Kind::Mul, a, atom());
      else if (eat('/'))
        a = GridExpr::binary(GridExpr::Kind::Div, a, atom());
      else
        return a;
    }
  }
  GridExpr atom() {
    skip();
    if (i >= s.size()) fail("expected a number, a parameter, num_sms, cdiv(...), min(...) or '('");
    if (eat('(')) {
      GridExpr e = expr();
      if (!eat(')')) fail("expected ')'");
      return e;
    }
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      long long v = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        if (v > (1LL << 40)) fail("number too large");
        v = v * 10 + (s[i++] - '0');
      }
      return GridExpr::integer(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      std::string id = s.substr(start, i - start);
      if (id == "num_sms") return GridExpr::num_sms();
      if (id == "cdiv" || id == "min") {
        if (!eat('(')) fail("expected '(' after " + id);
        GridExpr a = expr();
        if (!eat(',')) fail("expected ',' in " + id + "(a, b)");
        GridExpr b = expr();
        if (!eat(')')) fail("expected ')'");
        return GridExpr::binary(id == "min" ? GridExpr::Kind::Min : GridExpr::Kind::Cdiv, a, b);
      }
      return GridExpr::parameter(id);
    }
    fail(std::string("unexpected '") + c + "'");
  }
};

}  // namespace

std::string to_text(const GridExpr& e) { return text(e, 0, false); }

GridExpr parse_grid_expr(const std::string& s, const std::string& what) {
  Parser p{s, what};
  GridExpr e = p.expr();
  p.skip();
  if (p.i != s.size()) p.fail("unexpected text after the expression");
  return e;
}

std::string to_cxx(const GridExpr& e, const std::string& param_prefix, const std::string& num_sms) {
  using K = GridExpr::Kind;
  auto sub = [&](size_t k) { return to_cxx(e.args[k], param_prefix, num_sms); };
  switch (e.kind) {
    case K::Int:
      return std::to_string(e.value) + "LL";
    case K::Param:
      return param_prefix + e.param;
    case K::NumSms:
      return "static_cast<long long>(" + num_sms + ")";
    case K::Cdiv:
      return "((" + sub(0) + " + " + sub(1) + " - 1) / " + sub(1) + ")";
    case K::Mul:  // saturating: the only operator that can overflow long long here
      return "sched2cu_host_mul(" + sub(0) + ", " + sub(1) + ")";
    case K::Min:
      return "sched2cu_host_min(" + sub(0) + ", " + sub(1) + ")";
    default:
      return "(" + sub(0) + symbol(e.kind) + sub(1) + ")";
  }
}

long long evaluate(const GridExpr& e, const std::function<long long(const std::string&)>& param,
                   long long num_sms) {
  using K = GridExpr::Kind;
  switch (e.kind) {
    case K::Int:
      return e.value;
    case K::Param:
      return param(e.param);
    case K::NumSms:
      return num_sms;
    default:
      break;
  }
  const long long a = evaluate(e.args[0], param, num_sms);
  const long long b = evaluate(e.args[1], param, num_sms);
  long long r = 0;
  bool overflow = false;
  switch (e.kind) {
    case K::Add:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case K::Sub:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case K::Mul:
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    case K::Min:
      r = a < b ? a : b;
      break;
    default:  // Div, Cdiv
      if (b == 0) throw Error("grid expression " + to_text(e) + ": division by zero");
      if (e.kind == K::Div) {
        overflow = a == LLONG_MIN && b == -1;
        r = overflow ? 0 : a / b;
      } else {
        long long t = 0;
        overflow = __builtin_add_overflow(a, b - 1, &t);
        r = overflow ? 0 : t / b;
      }
      break;
  }
  if (overflow) throw Error("grid expression " + to_text(e) + " overflows");
  return r;
}

void collect_params(const GridExpr& e, std::vector<std::string>& out) {
  if (e.kind == GridExpr::Kind::Param) out.push_back(e.param);
  for (const auto& a : e.args) collect_params(a, out);
}

bool uses_num_sms(const GridExpr& e) {
  if (e.kind == GridExpr::Kind::NumSms) return true;
  for (const auto& a : e.args)
    if (uses_num_sms(a)) return true;
  return false;
}

}  // namespace sched2cu::sgraph
