// Launch-grid extents as expression trees over the kernel's parameters (the schedule graph's
// `launch.grid`): integers, parameter names, the device's SM count, + - * /, cdiv and min. The
// scheduler derives them from the IR, `--grid` spells them as text, the emitter prints them as
// host C++, the harness evaluates them (to launch Triton's kernel on the generated kernel's
// grid) and the validator checks that every parameter exists. Plain data; never evaluated on
// strings with regular expressions.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace sched2cu::sgraph {

struct GridExpr {
  enum class Kind { Int, Param, NumSms, Add, Sub, Mul, Div, Cdiv, Min };
  Kind kind = Kind::Int;
  long long value = 0;         // Int
  std::string param;           // Param: a kernel parameter name
  std::vector<GridExpr> args;  // binary operators: exactly two

  static GridExpr integer(long long v);
  static GridExpr parameter(std::string name);
  static GridExpr num_sms();
  static GridExpr binary(Kind k, GridExpr a, GridExpr b);

  bool is_int(long long v) const { return kind == Kind::Int && value == v; }
  bool operator==(const GridExpr& o) const;
};

// Operator name as written in JSON and text ("add", "sub", "mul", "div", "cdiv", "min").
const char* grid_op_name(GridExpr::Kind k);

// Text form, the syntax --grid accepts: "cdiv(N_CTX, 128)", "Z * H", "num_sms", "4",
// "min(132, cdiv(M, 128) * cdiv(N, 256))".
std::string to_text(const GridExpr& e);

// Parses the text form (integers, identifiers, num_sms, + - * /, cdiv(a, b), min(a, b),
// parentheses).
// Throws sched2cu::Error naming `what` and the column of the first bad character.
GridExpr parse_grid_expr(const std::string& text, const std::string& what);

// Host C++ expression of type long long: a parameter P is spelled `param_prefix + P`, the SM
// count `num_sms`; cdiv(a, b) is (a + b - 1) / b; a * b is sched2cu_host_mul(a, b) of
// sched2cu/abi.h, which saturates instead of overflowing; min(a, b) is
// sched2cu_host_min(a, b).
std::string to_cxx(const GridExpr& e, const std::string& param_prefix, const std::string& num_sms);

// The value of `e` as the generated launcher computes it (long long arithmetic, `/` truncating,
// cdiv(a, b) = (a + b - 1) / b), with `param(name)` the value of a kernel parameter and `num_sms`
// what the SM count stands for (the launcher's `ctas_per_sm * num_sms`). The harness launches a
// Triton kernel on this grid so that it runs the generated kernel's programs. Throws
// sched2cu::Error naming the expression on a division by zero or an overflow; `param` may throw.
long long evaluate(const GridExpr& e, const std::function<long long(const std::string&)>& param,
                   long long num_sms);

// Parameters the expression names, in order of appearance (for validation).
void collect_params(const GridExpr& e, std::vector<std::string>& out);
bool uses_num_sms(const GridExpr& e);

}  // namespace sched2cu::sgraph
