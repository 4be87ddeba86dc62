// The checker's expression evaluator (see eval.h): a tokenizer and a precedence-climbing parser
// over the printed C++ text, computing in 64-bit integers with C++'s truncating division.
#include "eval.h"

#include <cctype>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/int_math.h"

namespace sched2cu::verify {

bool Env::assign(const std::string& name, std::optional<long long> v) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) {
      f->second = v;
      return true;
    }
  }
  return false;
}

std::optional<long long> Env::get(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return f->second;
  }
  return std::nullopt;
}

bool Env::declared(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (it->count(name)) return true;
  return false;
}

namespace {

using V = std::optional<long long>;

struct Tok {
  enum Kind { Num, Id, Op, End } kind = End;
  std::string s;
  long long n = 0;
  bool real = false;  // a floating-point literal (its value is unknown here)
};

std::vector<Tok> lex(const std::string& e) {
  std::vector<Tok> out;
  size_t i = 0;
  auto bad = [&]() -> void {
    throw Error("verify: cannot parse the expression `" + e + "` at column " +
                std::to_string(i + 1));
  };
  while (i < e.size()) {
    const char ch = e[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      size_t j = i;
      while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '.')) ++j;
      std::string t = e.substr(i, j - i);
      Tok k;
      k.kind = Tok::Num;
      k.s = t;
      if (t.find_first_of(".eEfF") != std::string::npos && t.rfind("0x", 0) != 0) {
        k.real = true;
      } else {
        size_t end = 0;
        k.n = std::stoll(t, &end, 0);
        for (char c : t.substr(end))
          if (c != 'u' && c != 'U' && c != 'l' && c != 'L') bad();
      }
      out.push_back(k);
      i = j;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      size_t j = i;
      while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_' ||
                              e[j] == '.' || (e[j] == ':' && j + 1 < e.size() && e[j + 1] == ':') ||
                              (e[j] == ':' && j > 0 && e[j - 1] == ':')))
        ++j;
      out.push_back({Tok::Id, e.substr(i, j - i)});
      i = j;
      continue;
    }
    static const char* ops[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->"};
    bool two = false;
    for (const char* o : ops)
      if (e.compare(i, 2, o) == 0) {
        out.push_back({Tok::Op, o});
        i += 2;
        two = true;
        break;
      }
    if (two) continue;
    if (std::string("+-*/%<>!?:(),&|^~[]").find(ch) == std::string::npos) bad();
    out.push_back({Tok::Op, std::string(1, ch)});
    ++i;
  }
  out.push_back({Tok::End, ""});
  return out;
}

class Parser {
 public:
  Parser(const std::string& text, const Env& env) : text_(text), t_(lex(text)), env_(env) {}
  V parse() {
    V v = ternary();
    if (peek().kind != Tok::End) fail("unexpected `" + peek().s + "`");
    return v;
  }

 private:
  const std::string& text_;
  std::vector<Tok> t_;
  size_t p_ = 0;
  const Env& env_;

  const Tok& peek() const { return t_[p_]; }
  bool is(const char* op) const { return peek().kind == Tok::Op && peek().s == op; }
  void expect(const char* op) {
    if (!is(op)) fail(std::string("expected `") + op + "`");
    ++p_;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error("verify: cannot parse the expression `" + text_ + "`: " + why);
  }

  V ternary() {
    V c = binary(0);
    if (!is("?")) return c;
    ++p_;
    V a = ternary();
    expect(":");
    V b = ternary();
    if (!c) return (a && b && *a == *b) ? a : std::nullopt;
    return *c ? a : b;
  }

  static int prec(const std::string& op) {
    if (op == "||") return 1;
    if (op == "&&") return 2;
    if (op == "|") return 3;
    if (op == "^") return 4;
    if (op == "&") return 5;
    if (op == "==" || op == "!=") return 6;
    if (op == "<" || op == ">" || op == "<=" || op == ">=") return 7;
    if (op == "<<" || op == ">>") return 8;
    if (op == "+" || op == "-") return 9;
    if (op == "*" || op == "/" || op == "%") return 10;
    return -1;
  }

  V binary(int min_prec) {
    V lhs = unary();
    while (peek().kind == Tok::Op) {
      const std::string op = peek().s;
      const int pr = prec(op);
      if (pr < 0 || pr < min_prec) break;
      ++p_;
      V rhs = binary(pr + 1);
      lhs = apply(op, lhs, rhs);
    }
    return lhs;
  }

  static V apply(const std::string& op, V a, V b) {
    // A known side decides a logical operator on its own.
    if (op == "&&") {
      if ((a && !*a) || (b && !*b)) return 0;
      return a && b ? V(1) : std::nullopt;
    }
    if (op == "||") {
      if ((a && *a) || (b && *b)) return 1;
      return a && b ? V(0) : std::nullopt;
    }
    if (!a || !b) return std::nullopt;
    const long long x = *a, y = *b;
    if (op == "+") return x + y;
    if (op == "-") return x - y;
    if (op == "*") return x * y;
    if (op == "/") return y == 0 ? std::nullopt : V(x / y);
    if (op == "%") return y == 0 ? std::nullopt : V(x % y);
    if (op == "<") return x < y;
    if (op == ">") return x > y;
    if (op == "<=") return x <= y;
    if (op == ">=") return x >= y;
    if (op == "==") return x == y;
    if (op == "!=") return x != y;
    if (op == "&") return x & y;
    if (op == "|") return x | y;
    if (op == "^") return x ^ y;
    if (op == "<<") return y < 0 || y > 62 ? std::nullopt : V(x << y);
    if (op == ">>") return y < 0 || y > 62 ? std::nullopt : V(x >> y);
    return std::nullopt;
  }

  V unary() {
    if (is("-")) {
      ++p_;
      V v = unary();
      return v ? V(-*v) : std::nullopt;
    }
    if (is("+")) {
      ++p_;
      return unary();
    }
    if (is("!")) {
      ++p_;
      V v = unary();
      return v ? V(!*v) : std::nullopt;
    }
    if (is("~")) {
      ++p_;
      V v = unary();
      return v ? V(~*v) : std::nullopt;
    }
    if (is("&") || is("*")) {  // address-of / dereference: pointers are not modelled
      ++p_;
      unary();
      return std::nullopt;
    }
    return postfix();
  }

  // Skips a template argument list `<...>` (static_cast<int>, min<...>).
  void skip_template() {
    int depth = 0;
    do {
      if (peek().kind == Tok::End) fail("unterminated template argument list");
      if (is("<")) ++depth;
      if (is(">")) --depth;
      if (is(">>")) depth -= 2;
      ++p_;
    } while (depth > 0);
  }

  std::vector<V> args() {
    std::vector<V> out;
    expect("(");
    if (is(")")) {
      ++p_;
      return out;
    }
    for (;;) {
      out.push_back(ternary());
      if (is(")")) break;
      expect(",");
    }
    ++p_;
    return out;
  }

  V call(const std::string& f, const std::vector<V>& a) {
    auto all = [&]() {
      for (const V& v : a)
        if (!v) return false;
      return true;
    };
    if ((f == "min" || f == "max") && a.size() == 2) {
      if (!all()) return std::nullopt;
      return f == "min" ? std::min(*a[0], *a[1]) : std::max(*a[0], *a[1]);
    }
    if (f == "static_cast" && a.size() == 1) return a[0];
    if (f == "ceil_div_signed" && a.size() == 2) {  // runtime/sched2cu/common.cuh
      if (!all() || *a[1] == 0) return std::nullopt;
      return sched2cu::ceil_div_signed(*a[0], *a[1]);
    }
    // The leader thread of the process's warpgroup (eval.h).
    if (f == "warpgroup_idx" && a.empty()) return env_.warpgroup;
    if ((f == "thread_idx_in_warpgroup" || f == "warp_idx_in_warpgroup" || f == "lane_idx") &&
        a.empty())
      return 0;
    if (f == "elect_one_sync" && a.empty()) return 1;
    // The modelled CTA is the first of its cluster (docs/verify.md, "Clusters"): the others run
    // the same protocol but skip the global writes and the split sum's shared-memory accesses.
    if (f == "cluster_ctarank" && a.empty()) return 0;
    if (f == "cluster_nctarank" && a.empty()) return env_.cluster;
    if ((f == "split_count" || f == "split_first") && a.size() == 3) {
      if (!all() || *a[2] <= 0) return std::nullopt;
      const long long T = *a[0], n = *a[2], r = *a[1];
      if (r >= n || T <= 0) return f == "split_count" ? 0 : T;
      const long long q = T / n, m = T % n;
      return f == "split_count" ? q + (r < m ? 1 : 0) : r * q + std::min(r, m);
    }
    if (f == "split_outer" && a.size() == 2) {
      if (!all()) return std::nullopt;
      return *a[1] == 0 || *a[0] <= 1 ? *a[0] : 0;
    }
    return std::nullopt;  // any other function: its value is not modelled
  }

  V postfix() {
    const Tok t = peek();
    if (t.kind == Tok::Num) {
      ++p_;
      return t.real ? std::nullopt : V(t.n);
    }
    if (is("(")) {
      ++p_;
      V v = ternary();
      expect(")");
      return v;
    }
    if (t.kind != Tok::Id) fail("unexpected `" + t.s + "`");
    ++p_;
    const std::string id = t.s;
    if (id == "static_cast" || id == "reinterpret_cast") {
      skip_template();
      std::vector<V> a = args();
      return id == "static_cast" && a.size() == 1 ? a[0] : std::nullopt;
    }
    if (id == "ceil_div_signed" && is("<")) skip_template();  // ceil_div_signed<int>(a, b)
    if (is("(")) return call(id, args());
    if (is("[")) {  // indexing: not modelled
      ++p_;
      ternary();
      expect("]");
      return std::nullopt;
    }
    if (is("->")) {  // a member call on a pointer: not modelled
      ++p_;
      postfix();
      return std::nullopt;
    }
    if (id == "threadIdx.x") return 128LL * env_.warpgroup;
    if (id == "true") return 1;
    if (id == "false") return 0;
    return env_.get(id);
  }
};

}  // namespace

std::optional<long long> eval(const std::string& expr, const Env& env) {
  return Parser(expr, env).parse();
}

bool reads_thread_identity(const std::string& expr) {
  for (const char* f : {"threadIdx", "thread_idx_in_warpgroup", "warp_idx_in_warpgroup",
                        "elect_one_sync", "lane_idx"})
    if (expr.find(f) != std::string::npos) return true;
  return false;
}

}  // namespace sched2cu::verify
