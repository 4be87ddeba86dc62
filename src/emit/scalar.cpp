// Scalar ops (index math, program ids, float constants) as expressions with value references,
// their host-side form (descriptor shapes computed from kernel arguments), and the IR facts
// shared by every lowering: C++ element and scalar types, swizzle and transposition of shared
// layouts. Every op kind not handled here is an error at its TTGIR line; nothing is guessed.
#include <cctype>
#include <functional>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

int elem_bytes(const std::string& e) {
  if (e == "f16" || e == "bf16" || e == "i16") return 2;
  if (e == "f32" || e == "i32") return 4;
  if (e == "f8E4M3FN" || e == "f8E5M2" || e == "i8") return 1;
  return 0;
}

std::string cuda_elem(const Ctx& c, const std::string& e, int op) {
  if (e == "f16") return "__half";
  if (e == "bf16") return "__nv_bfloat16";
  if (e == "f8E4M3FN") return "__nv_fp8_e4m3";
  if (e == "f8E5M2") return "__nv_fp8_e5m2";
  c.fail(op, "element type " + e + " has no wgmma/TMA lowering");
}

std::string scalar_ctype(const Ctx& c, const ttgir::Type& t, int op) {
  using K = ttgir::Type::Kind;
  if (t.kind == K::Integer) {
    if (t.bits == 1) return "bool";
    if (t.bits <= 32) return "int";
    if (t.bits == 64) return "long long";
  }
  if (t.kind == K::Index) return "long long";
  if (t.kind == K::Float && t.name == "f32") return "float";
  // 16-bit floats: math on them runs in f32 (the lambdas take floats) and rounds on assignment.
  if (t.kind == K::Float && t.name == "f16") return "__half";
  if (t.kind == K::Float && t.name == "bf16") return "__nv_bfloat16";
  if (t.kind == K::Ptr) return elem_ctype(c, t, op);
  c.fail(op, "no scalar lowering for type " + t.str());
}

std::string unsigned_ctype(const ttgir::Type& t) {
  if (t.kind == ttgir::Type::Kind::Integer && t.bits == 1) return "bool";
  if (t.bits == 64 || t.kind == ttgir::Type::Kind::Index) return "unsigned long long";
  if (t.bits == 16) return "unsigned short";
  if (t.bits == 8) return "unsigned char";
  return "unsigned";
}

std::string float_literal(const Ctx& c, const ttgir::Attribute& a, int op) {
  if (a.kind == ttgir::Attribute::Kind::Integer) return std::to_string(a.ival) + ".0f";
  if (a.kind != ttgir::Attribute::Kind::Float) c.fail(op, "expected a float constant");
  if (a.text.rfind("0x", 0) == 0) return "__uint_as_float(" + a.text + "u)";
  return a.text + "f";
}

bool is_zero_literal(const ttgir::Attribute& a) {
  if (a.kind == ttgir::Attribute::Kind::Integer) return a.ival == 0;
  // +0.0 only: -0.0 (0x80000000) as an accumulator start would change the sign of an exact zero
  // sum, which scale-d = 0 would not reproduce.
  if (a.kind != ttgir::Attribute::Kind::Float || a.text.empty() || a.text[0] == '-') return false;
  if (a.text.rfind("0x", 0) == 0) return std::stoull(a.text, nullptr, 16) == 0;
  return std::stod(a.text) == 0.0;
}

namespace {

const std::map<std::string, std::string>& binops() {
  static const std::map<std::string, std::string> m = {
      {"arith.addi", "+"},  {"arith.subi", "-"},   {"arith.muli", "*"}, {"arith.divsi", "/"},
      {"arith.remsi", "%"}, {"arith.andi", "&"},   {"arith.ori", "|"},  {"arith.xori", "^"},
      {"arith.shli", "<<"}, {"arith.shrsi", ">>"}, {"arith.addf", "+"}, {"arith.subf", "-"},
      {"arith.mulf", "*"},  {"arith.divf", "/"}};
  return m;
}

std::string cmp_op(const std::string& pred) {
  static const std::map<std::string, std::string> m = {
      {"eq", "=="}, {"ne", "!="},  {"slt", "<"}, {"sle", "<="}, {"sgt", ">"},  {"sge", ">="},
      {"ult", "<"}, {"ule", "<="}, {"ugt", ">"}, {"uge", ">="}, {"oeq", "=="}, {"one", "!="},
      {"olt", "<"}, {"ole", "<="}, {"ogt", ">"}, {"oge", ">="}};
  auto it = m.find(pred);
  return it == m.end() ? "" : it->second;
}

std::string keyword(const ttgir::Attribute* a) {
  if (a == nullptr) return "";
  if (a->kind == ttgir::Attribute::Kind::Keyword || a->kind == ttgir::Attribute::Kind::String)
    return a->text;
  if (a->kind == ttgir::Attribute::Kind::Integer) return std::to_string(a->ival);
  return "";
}

// Literal text of a scalar arith.constant.
std::string const_literal(const Ctx& c, int op) {
  const ttgir::Op& o = c.op(op);
  const ttgir::Attribute* v = o.attr("value");
  const ttgir::Type& t = c.type(o.results.at(0));
  if (v == nullptr) c.fail(op, "constant without a value");
  if (v->kind == ttgir::Attribute::Kind::Integer || v->kind == ttgir::Attribute::Kind::Bool) {
    if (t.kind == ttgir::Type::Kind::Integer && t.bits == 1) return v->ival ? "true" : "false";
    if (t.kind == ttgir::Type::Kind::Integer && t.bits == 64) return std::to_string(v->ival) + "LL";
    return std::to_string(v->ival);
  }
  if (v->kind == ttgir::Attribute::Kind::Float) return float_literal(c, *v, op);
  c.fail(op, "unsupported constant " + v->text);
}

}  // namespace

bool is_scalar_op(const Ctx& c, int op) {
  const ttgir::Op& o = c.op(op);
  if (o.results.empty() || !o.regions.empty()) return false;
  for (int r : o.results)
    if (!c.type(r).is_scalar()) return false;
  for (int v : o.operands)
    if (!c.type(v).is_scalar()) return false;
  return true;
}

namespace {

// The expression of a scalar-kind op over operand texts arg(i), its result of C++ type `ty`.
Text expr_over(const Ctx& c, const ttgir::Op& o, const std::string& ty,
               const std::function<Text(size_t)>& arg) {
  const int op = o.id;
  const std::string& n = o.name;
  if (n == "arith.constant") return const_literal(c, op);
  if (n == "tt.get_program_id" || n == "tt.get_num_programs") {
    std::string ax = keyword(o.attr("axis"));
    std::string d = ax == "x" || ax == "0"   ? "x"
                    : ax == "y" || ax == "1" ? "y"
                    : ax == "z" || ax == "2" ? "z"
                                             : "";
    if (d.empty()) c.fail(op, "unknown axis");
    // Program ids come from the rasterization prologue; extents are kernel parameters (the
    // launched grid may be linearized).
    return (n == "tt.get_program_id" ? "program_id_" : "num_programs_") + d;
  }
  if (n == "arith.extsi" || n == "arith.trunci" || n == "arith.index_cast" || n == "arith.sitofp" ||
      n == "arith.fptosi" || n == "arith.extf" || n == "arith.truncf")
    return "static_cast<" + ty + ">(" + arg(0) + ")";
  // Unsigned ops read their operands as the unsigned type of their width (the C++ types of
  // integers are signed): an i32 of 0xffffffff is 4294967295 to them, not -1.
  auto u = [&](size_t i) {
    return "static_cast<" + unsigned_ctype(c.type(o.operands.at(i)).element_type()) + ">(" +
           arg(i) + ")";
  };
  auto as_ty = [&](const Text& e) { return "static_cast<" + ty + ">(" + e + ")"; };
  if (n == "arith.extui" || n == "arith.uitofp") return as_ty(u(0));
  if (n == "tt.fp_to_fp") {
    // Float conversions through CUDA's types: to fp8 by the __nv_fp8 constructors, which round
    // to nearest even and saturate to the largest finite value (cvt.rn.satfinite, as Triton
    // lowers rtne on sm_90); any other rounding mode is refused.
    const std::string r = keyword(o.attr("rounding"));
    if (!r.empty() && r != "rtne")
      c.fail(op, "tt.fp_to_fp with rounding " + r + " is not implemented");
    return as_ty(arg(0));
  }
  if (n == "tt.bitcast" || n == "arith.bitcast") {
    // The same 32 bits read as another type (Triton's random numbers: Philox's u32 as i32).
    const ttgir::Type& from = c.type(o.operands.at(0)).element_type();
    const ttgir::Type& to = c.type(o.results.at(0)).element_type();
    if (from.str() == to.str()) return arg(0);
    if (from.bits == 32 && to.bits == 32 && from.kind == ttgir::Type::Kind::Integer &&
        to.kind == ttgir::Type::Kind::Float)
      return "__int_as_float(" + arg(0) + ")";
    if (from.bits == 32 && to.bits == 32 && from.kind == ttgir::Type::Kind::Float &&
        to.kind == ttgir::Type::Kind::Integer)
      return "__float_as_int(" + arg(0) + ")";
    c.fail(op, "bitcast from " + from.str() + " to " + to.str() + " is not implemented");
  }
  if (n == "arith.fptoui")
    return as_ty("static_cast<" + unsigned_ctype(c.type(o.results.at(0)).element_type()) + ">(" +
                 arg(0) + ")");
  if (n == "arith.shrui") return as_ty(u(0) + " >> " + arg(1));
  if (n == "arith.divui") return as_ty(u(0) + " / " + u(1));
  if (n == "arith.remui") return as_ty(u(0) + " % " + u(1));
  if (n == "arith.minui") return as_ty("min(" + u(0) + ", " + u(1) + ")");
  if (n == "arith.maxui") return as_ty("max(" + u(0) + ", " + u(1) + ")");
  if (n == "tt.mulhiui") {
    const bool wide = c.type(o.operands.at(0)).element_type().bits == 64;
    return as_ty(std::string(wide ? "__umul64hi(" : "__umulhi(") + u(0) + ", " + u(1) + ")");
  }
  if (binops().count(n)) return arg(0) + " " + binops().at(n) + " " + arg(1);
  if (n == "arith.minsi") return "min(" + arg(0) + ", " + arg(1) + ")";
  if (n == "arith.maxsi") return "max(" + arg(0) + ", " + arg(1) + ")";
  if (n == "arith.maxnumf") return "fmaxf(" + arg(0) + ", " + arg(1) + ")";
  if (n == "arith.minnumf") return "fminf(" + arg(0) + ", " + arg(1) + ")";
  if (n == "arith.ceildivsi") {
    // MLIR's signed ceiling division, for either sign (`(a + b - 1) / b` is only right for
    // a >= 0 < b: a tile count left to a program past the last tile is negative).
    return "ceil_div_signed<" + ty + ">(" + arg(0) + ", " + arg(1) + ")";  // common.cuh
  }
  if (n == "arith.cmpi" || n == "arith.cmpf") {
    const std::string pred = keyword(o.attr("predicate"));
    std::string p = cmp_op(pred);
    if (p.empty()) c.fail(op, "unknown predicate");
    if (n == "arith.cmpi" && !pred.empty() && pred[0] == 'u') return u(0) + " " + p + " " + u(1);
    return arg(0) + " " + p + " " + arg(1);
  }
  if (n == "arith.select") return arg(0) + " ? " + arg(1) + " : " + arg(2);
  if (n == "tt.addptr") return "static_cast<" + ty + ">(" + arg(0) + ") + " + arg(1);
  if (const std::string body = float_element_fn(o); !body.empty()) {
    // Float math the op table spells over x0, x1, ...: called on the operands.
    Text args;
    for (size_t i = 0; i < o.operands.size(); ++i) args += (i ? Text(", ") : Text()) + arg(i);
    return "(" + lambda_text(o.operands.size(), "float", body) + ")(" + args + ")";
  }
  c.fail(op, "no scalar lowering for this op");
}

}  // namespace

Text element_expr(const Ctx& c, const ttgir::Op& o, const std::string& ty,
                  const std::function<Text(size_t)>& arg) {
  return expr_over(c, o, ty, arg);
}

Text scalar_expr(Lower& L, const ttgir::Op& o) {
  const std::string ty = scalar_ctype(L.c, L.c.type(o.results.at(0)), o.id);
  return expr_over(L.c, o, ty, [&](size_t i) { return R(o.operands.at(i)); });
}

std::string element_expr(const Ctx& c, const ttgir::Op& o, const std::string& ty) {
  if (o.name == "arith.constant" || o.name == "tt.get_program_id" ||
      o.name == "tt.get_num_programs")
    c.fail(o.id, "internal: not an elementwise op");
  Text t = expr_over(c, o, ty, [](size_t i) { return Text("x" + S(static_cast<long long>(i))); });
  std::string s;
  for (const auto& p : t.pieces()) s += p.s;
  return s;
}

namespace {
// The operands an op host_expr computes reads: 0 for a constant, 1 for an integer cast, 2 for
// integer arithmetic; -1 for any other op (not computable on the host).
int host_arity(const std::string& n) {
  if (n == "arith.constant") return 0;
  if (n == "arith.extsi" || n == "arith.extui" || n == "arith.index_cast" || n == "arith.trunci")
    return 1;
  if (n == "arith.muli" || n == "arith.addi" || n == "arith.subi" || n == "arith.divsi") return 2;
  return -1;
}
}  // namespace

std::string host_expr(const Ctx& c, int value, int user_op) {
  const ttgir::Value& v = c.f.value(value);
  for (const auto& p : c.g.kernel.params)
    if (p.value == value) return "arg_" + p.name;
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr)
    c.fail(user_op, "descriptor operand %" + v.name + " is not computable on the host");
  auto sub = [&](size_t i) { return host_expr(c, d->operands.at(i), user_op); };
  const std::string& n = d->name;
  switch (host_arity(n)) {
    // std::string("(") +: `"(" + std::string&&` trips GCC 12's -Wrestrict (a false positive).
    case 0:
      return std::string("(") + const_literal(c, d->id) + ")";
    case 1:
      return sub(0);
    case 2:
      // A product of three i32 arguments overflows long long: it saturates (sched2cu/abi.h), and
      // the descriptor encode or the extent check refuses it.
      if (n == "arith.muli") return "sched2cu_host_mul(" + sub(0) + ", " + sub(1) + ")";
      return std::string("(") + sub(0) + " " + binops().at(n) + " " + sub(1) + ")";
    default:
      c.fail(user_op, "operand %" + v.name + " (" + n +
                          ") must be computable on the host from kernel arguments");
  }
}

bool host_computable(const Ctx& c, int value) {
  for (const auto& p : c.g.kernel.params)
    if (p.value == value) return true;
  const ttgir::Op* d = c.f.def_op(value);
  const int arity = d == nullptr ? -1 : host_arity(d->name);
  if (arity < 0 || d->operands.size() < static_cast<size_t>(arity)) return false;
  for (int i = 0; i < arity; ++i)
    if (!host_computable(c, d->operands[static_cast<size_t>(i)])) return false;
  return true;
}

namespace {
const ttgir::Attribute* layout_param(const Ctx& c, const ttgir::Type& t, const char* key, int op) {
  const ttgir::Type* tt = &t;
  if (t.kind == ttgir::Type::Kind::TensorDesc) tt = &t.elem.at(0);
  if (c.m.encoding_kind(*tt) != "ttg.nvmma_shared")
    c.fail(op, "shared-memory layout of " + t.str() + " is not #ttg.nvmma_shared");
  return c.m.encoding_param(*tt, key);
}
}  // namespace

int swizzle_of(const Ctx& c, const ttgir::Type& t, int op) {
  const ttgir::Attribute* a = layout_param(c, t, "swizzlingByteWidth", op);
  int s = a ? static_cast<int>(a->as_int()) : 0;
  if (s != 0 && s != 32 && s != 64 && s != 128)
    c.fail(op, "unsupported swizzle " + std::to_string(s));
  return s;
}

bool layout_transposed(const Ctx& c, const ttgir::Type& t, int op) {
  const ttgir::Attribute* a = layout_param(c, t, "transposed", op);
  return a != nullptr && a->as_int() != 0;
}

}  // namespace sched2cu::emit
