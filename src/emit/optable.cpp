// The op table: one lowering per op name, whether the op sits inside a scheduled loop or after
// it (the expander only decides where and for which iteration the statements run). This file
// holds the views, scalars, constants, elementwise math and reductions; memory ops are in
// lower_mem.cpp and MMAs in lower_mma.cpp. An op missing from the table is an error naming it.
#include <algorithm>
#include <cctype>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

void lower_descriptor_load(Lower& L, const ttgir::Op& o, Lowered& out);   // lower_mem.cpp
void lower_descriptor_store(Lower& L, const ttgir::Op& o, Lowered& out);  // lower_mem.cpp
void lower_local_alloc(Lower& L, const ttgir::Op& o, Lowered& out);       // lower_mem.cpp
void lower_mma(Lower& L, const ttgir::Op& o, Lowered& out);               // lower_mma.cpp
void lower_reshape(Lower& L, const ttgir::Op& o, Lowered& out);           // acc_split.cpp
void lower_split(Lower& L, const ttgir::Op& o, Lowered& out);             // acc_split.cpp

namespace {

// A scalar op: one declaration of its result.
void lower_scalar(Lower& L, const ttgir::Op& o, Lowered& out) {
  const int res = o.results.at(0);
  // Blocked tensors never get here (lower_blocked takes them); an accumulator-layout tile does
  // when no tile lowering of the op exists (tt.fp_to_fp of the MMA result to fp8, say).
  if (L.c.type(res).kind == ttgir::Type::Kind::Tensor)
    L.c.fail(o.id, o.name + " of a " + L.c.type(res).str() +
                       " tile is not implemented (this op is lowered for scalars and blocked "
                       "tensors only)");
  out.body.push_back(
      decl(scalar_ctype(L.c, L.c.type(res), o.id), res, scalar_expr(L, o), true, L.c.note(o.id)));
  Val v;
  v.lay = Lay::Scalar;
  v.elem = L.c.type(res).name;
  v.cty = scalar_ctype(L.c, L.c.type(res), o.id);
  v.storage = res;
  L.set(res, v);
}

// The lambda text of an elementwise op over f32 elements x0, x1, ... (nullptr: not elementwise).
const char* element_fn(const std::string& n) {
  static const std::map<std::string, const char*> m = {
      {"arith.addf", "x0 + x1"},
      {"arith.subf", "x0 - x1"},
      {"arith.mulf", "x0 * x1"},
      {"arith.divf", "fast_div(x0, x1)"},  // div.full.f32, as Triton lowers f32 division
      {"arith.maxnumf", "fmaxf(x0, x1)"},  // maxnum: a NaN operand loses
      {"arith.minnumf", "fminf(x0, x1)"},
      // maximum/minimum: a NaN operand wins
      {"arith.maximumf", "(x0 != x0 || x1 != x1) ? __int_as_float(0x7fc00000) : fmaxf(x0, x1)"},
      {"arith.minimumf", "(x0 != x0 || x1 != x1) ? __int_as_float(0x7fc00000) : fminf(x0, x1)"},
      {"arith.negf", "-x0"},
      {"math.exp2", "fast_exp2(x0)"},  // ex2.approx, as Triton lowers math.exp2 of f32
      {"math.exp", "__expf(x0)"},
      {"math.log2", "fast_log2(x0)"},
      {"math.log", "__logf(x0)"},
      {"math.sqrt", "sqrtf(x0)"},
      {"math.rsqrt", "rsqrtf(x0)"},
      {"math.absf", "fabsf(x0)"},
      // The libdevice-backed math Triton offers (tl.erf, tl.sin, tl.cos, tl.floor, tl.ceil,
      // tl.fma; tanh through libdevice), at CUDA's full-precision functions.
      {"math.erf", "erff(x0)"},
      {"math.tanh", "tanhf(x0)"},
      {"math.sin", "sinf(x0)"},
      {"math.cos", "cosf(x0)"},
      {"math.floor", "floorf(x0)"},
      {"math.ceil", "ceilf(x0)"},
      {"math.fma", "fmaf(x0, x1, x2)"},
      // tl.clamp(x, lo, hi) as PTX's max/min.f32, the non-NaN operand winning (propagateNan =
      // none; float_element_fn spells propagateNan = all).
      {"tt.clampf", "fminf(fmaxf(x0, x1), x2)"},
  };
  auto it = m.find(n);
  return it == m.end() ? nullptr : it->second;
}

std::string lambda(size_t arity, const std::string& body) {
  return lambda_text(arity, "float", body);
}

// Elementwise f32 math on tiles, row or column vectors (operands read through layout adapters),
// or on scalars.
void lower_elementwise(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (is_scalar_op(L.c, o.id)) return lower_scalar(L, o, out);
  const int res = o.results.at(0);
  if (L.c.type(res).element_type().name != "f32")
    L.c.fail(o.id, "elementwise tensor math on " + L.c.type(res).element_type().name +
                       " is not implemented (f32 only)");
  bool uniform = true;
  int zero = -1;
  int staged = -1;
  std::vector<int> box_ops;
  for (int v : o.operands) {
    const Val& a = L.val(v, o.id);
    uniform &= a.lay == Lay::Splat;
    if (a.zero_iter >= 0 && o.name == "arith.mulf") zero = a.zero_iter;
    if (a.staged >= 0) {
      if (staged >= 0 && staged != a.staged)
        L.c.fail(o.id, "operands staged in two different stores' staging");
      staged = a.staged;
      box_ops.insert(box_ops.end(), a.box_ops.begin(), a.box_ops.end());
    }
  }
  if (staged >= 0) {
    // Computed from a staged epilogue operand: evaluated box by box where it is stored.
    Val v = L.from_type(res, o.id);
    if (v.lay != Lay::Acc) L.c.fail(o.id, "math on a staged epilogue operand must be tile math");
    std::sort(box_ops.begin(), box_ops.end());
    box_ops.erase(std::unique(box_ops.begin(), box_ops.end()), box_ops.end());
    box_ops.push_back(o.id);
    v.staged = staged;
    v.box_ops = std::move(box_ops);
    v.storage = res;
    L.set(res, v);
    out.body.push_back(comment(L.c.note(o.id) + ": evaluated box by box where it is stored"));
    return;
  }
  const std::string fn = lambda(o.operands.size(), float_element_fn(o));
  if (uniform) {
    // A uniform tensor: compute its one value as a scalar.
    Text call = "(" + fn + ")(";
    for (size_t i = 0; i < o.operands.size(); ++i) {
      const Val& a = L.val(o.operands[i], o.id);
      call += (i ? ", " : "") + (a.scalar.empty() ? R(a.scalar_value) : Text(a.scalar));
    }
    out.body.push_back(decl("float", res, call + ")", true, L.c.note(o.id)));
    Val v;
    v.lay = Lay::Splat;
    v.elem = "f32";
    v.scalar_value = res;
    v.storage = res;
    L.set(res, v);
    return;
  }
  Val v = L.from_type(res, o.id);
  v.zero_iter = zero;
  for (int a : o.operands)
    if (L.has(a) && L.val(a, o.id).lay == Lay::Acc && L.val(a, o.id).col_parts != v.col_parts)
      L.c.fail(o.id, "operand %" + L.c.f.value(a).name +
                         " is distributed over the warpgroups differently from the result (rows "
                         "against columns): a layout conversion is missing");
  const char* map = v.lay == Lay::Acc   ? "tile_map"
                    : v.lay == Lay::Row ? "row_map"
                    : v.lay == Lay::Col ? "col_map"
                                        : nullptr;
  if (map == nullptr) L.c.fail(o.id, "elementwise math in this layout is not implemented");
  Text call = Text(map) + "(" + R(res) + ", " + fn;
  for (int a : o.operands) call += ", " + L.operand(a, v.lay, o.id);
  out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, L.c.note(o.id)));
  out.body.push_back(code(call + ");", L.c.note(o.id)));
  L.set(res, v);
}

// Every user, through layout-conversion views, stores the value (so a truncf can stay a view).
bool only_stored(const Ctx& c, int value) {
  for (int u : c.f.value(value).users) {
    const ttgir::Op& uo = c.op(u);
    if (ttgir::is_descriptor_store(uo.name)) continue;
    if (uo.name == "ttg.convert_layout" && only_stored(c, uo.results.at(0))) continue;
    return false;
  }
  return true;
}

// Whether every user of `value` stores it through a pointer tile (tt.store's value operand).
bool only_pointer_stored(const Ctx& c, int value) {
  const auto& users = c.f.value(value).users;
  for (int u : users) {
    const ttgir::Op& uo = c.op(u);
    if (uo.name != "tt.store" || uo.operands.size() < 2 || uo.operands[1] != value) return false;
  }
  return !users.empty();
}

void lower_truncf(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (is_scalar_op(L.c, o.id)) return lower_scalar(L, o, out);
  const int res = o.results.at(0);
  const Val& a = L.val(o.operands.at(0), o.id);
  const std::string to = L.c.type(res).element_type().name;
  if (a.lay != Lay::Acc || a.packed || elem_bytes(to) != 2)
    L.c.fail(o.id, "truncf is implemented for f32 accumulator-layout tiles to 16 bits");
  Val v = a;
  v.elem = to;
  if (a.staged >= 0 && !only_stored(L.c, res))
    L.c.fail(o.id, "a staged epilogue operand's result must only be stored");
  if (only_stored(L.c, res)) {
    v.convert_on_store = true;  // converted box by box where it is stored (no registers)
    L.set(res, v);
    out.body.push_back(comment(L.c.note(o.id) + ": " + to + " view, converted where stored"));
    return;
  }
  const std::string T = cuda_elem(L.c, to, o.id);
  v.packed = true;
  v.packed_t = T;
  v.storage = res;
  v.zero_iter = -1;
  out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, L.c.note(o.id)));
  out.body.push_back(code("tile_map_packed<" + T + ">(" + R(res) + ", " + lambda(1, "x0") + ", " +
                              L.operand(o.operands[0], Lay::Acc, o.id) + ");",
                          L.c.note(o.id)));
  L.set(res, v);
}

// tt.fp_to_fp of an f32 accumulator tile to fp8 (an fp8 epilogue: `acc.to(tl.float8e4nv)`):
// converted box by box where it is stored, as acc_store_box rounds it (rtne, saturating; any
// other rounding is refused). Scalars and blocked tensors have their own lowerings.
void lower_fp_to_fp(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (is_scalar_op(L.c, o.id)) return lower_scalar(L, o, out);
  const int res = o.results.at(0);
  const Val& a = L.val(o.operands.at(0), o.id);
  const std::string to = L.c.type(res).element_type().name;
  const ttgir::Attribute* r = o.attr("rounding");
  const std::string rounding = r == nullptr ? "" : r->text;
  if (a.lay != Lay::Acc || a.packed || a.elem != "f32" || elem_bytes(to) != 1 ||
      (to != "f8E4M3FN" && to != "f8E5M2"))
    L.c.fail(o.id, "tt.fp_to_fp of a " + L.c.type(res).str() +
                       " tile is implemented from an f32 accumulator tile to f8E4M3FN or f8E5M2");
  if (!rounding.empty() && rounding != "rtne")
    L.c.fail(o.id, "tt.fp_to_fp with rounding " + rounding + " is not implemented");
  if (!only_stored(L.c, res) || a.staged >= 0)
    L.c.fail(o.id,
             "an fp8 accumulator tile must only be stored (fp8 tiles in registers are not "
             "implemented)");
  Val v = a;
  v.elem = to;
  v.convert_on_store = true;
  L.set(res, v);
  out.body.push_back(comment(L.c.note(o.id) + ": " + to + " view, converted where stored"));
}

void lower_extf(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (is_scalar_op(L.c, o.id)) return lower_scalar(L, o, out);
  Val v = L.val(o.operands.at(0), o.id);
  const std::string to = L.c.type(o.results.at(0)).element_type().name;
  if (v.lay != Lay::Acc || !v.packed || to != "f32")
    L.c.fail(o.id, "extf is implemented for 16-bit accumulator-layout tiles to f32");
  v.elem = to;  // widened where it is used (the widen<T> operand adapter)
  L.set(o.results[0], v);
  out.body.push_back(comment(L.c.note(o.id) + ": f32 view, widened where used"));
}

// tt.reduce along the rows of an accumulator tile: the combine region becomes the lambda.
void lower_reduce(Lower& L, const ttgir::Op& o, Lowered& out) {
  const ttgir::Attribute* ax = o.attr("axis");
  if (o.operands.size() != 1 || o.results.size() != 1 || o.regions.size() != 1 ||
      o.regions[0].blocks.size() != 1)
    L.c.fail(o.id, "only single-operand reductions are implemented");
  const Val& a = L.val(o.operands[0], o.id);
  if (a.lay != Lay::Acc || a.packed || a.elem != "f32" || a.staged >= 0)
    L.c.fail(o.id, "reductions are implemented over f32 accumulator-layout tiles in registers");
  if (ax == nullptr || ax->as_int() != 1)
    L.c.fail(o.id, "reductions along axis 0 (column vectors) are not implemented yet");
  const ttgir::Block& b = o.regions[0].blocks[0];
  if (b.args.size() != 2) L.c.fail(o.id, "a combine region takes two arguments");
  Text fn = Text("[](float ") + R(b.args[0]) + ", float " + R(b.args[1]) + ") { ";
  for (int id : b.ops) {
    const ttgir::Op& x = L.c.op(id);
    if (x.name == "tt.reduce.return") {
      fn += "return " + R(x.operands.at(0)) + "; }";
      break;
    }
    if (!is_scalar_op(L.c, id)) L.c.fail(id, "a combine region must be plain scalar math");
    fn += "const float " + R(x.results.at(0)) + " = " + scalar_expr(L, x) + "; ";
  }
  const int res = o.results[0];
  Val v = L.from_type(res, o.id);
  if (v.lay != Lay::Row) L.c.fail(o.id, "the result is not a row vector of the tile");
  out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, L.c.note(o.id)));
  // A deferred quad sum (partial.cpp) stops at this lane's partial.
  const char* call = v.partial ? "acc_row_partial(" : "acc_row_reduce(";
  out.body.push_back(code(call + R(res) + ", " + R(a.storage) + ", " + fn + ");", L.c.note(o.id)));
  L.set(res, v);
}

void lower_constant(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (is_scalar_op(L.c, o.id)) return lower_scalar(L, o, out);
  const ttgir::Attribute* a = o.attr("value");
  if (a == nullptr || a->kind != ttgir::Attribute::Kind::Dense || a->elems.size() != 1)
    L.c.fail(o.id, "tensor constants other than splats are not implemented");
  Val v;
  v.lay = Lay::Splat;
  v.elem = L.c.type(o.results[0]).element_type().name;
  if (v.elem != "f32") L.c.fail(o.id, "only f32 splat tensor constants are implemented");
  v.scalar = float_literal(L.c, a->elems[0], o.id);
  v.storage = o.results[0];
  L.set(o.results[0], v);
}

void lower_splat(Lower& L, const ttgir::Op& o, Lowered&) {
  const Val& s = L.val(o.operands.at(0), o.id);
  if (s.lay != Lay::Scalar || s.elem != "f32")
    L.c.fail(o.id, "only f32 scalars are splat into tensors (pointer splats are not implemented)");
  Val v;
  v.lay = Lay::Splat;
  v.elem = "f32";
  v.scalar_value = o.operands[0];
  v.storage = o.results.at(0);
  L.set(o.results[0], v);
}

void lower_expand_dims(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v = L.val(o.operands.at(0), o.id);
  const ttgir::Attribute* ax = o.attr("axis");
  const long long axis = ax ? ax->as_int() : -1;
  if (v.lay == Lay::Row && axis == 1)
    v.lay = Lay::RowB;
  else if (v.lay == Lay::Col && axis == 0)
    v.lay = Lay::ColB;
  else if (v.lay != Lay::Splat)
    L.c.fail(o.id, "expand_dims of this layout is not implemented");
  L.set(o.results.at(0), v);
}

void lower_broadcast(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v = L.val(o.operands.at(0), o.id);
  if (v.lay == Lay::Acc && L.c.type(o.operands[0]).shape != L.c.type(o.results.at(0)).shape)
    L.c.fail(o.id, "broadcast of a tile is not implemented");
  if (v.lay != Lay::RowB && v.lay != Lay::ColB && v.lay != Lay::Splat && v.lay != Lay::Acc)
    L.c.fail(o.id, "broadcast of this layout is not implemented");
  L.set(o.results.at(0), v);
}

// ttg.convert_layout: every conversion the emitter supports is a view. To the register A operand
// of an MMA (the accumulator layout of a k16 block is the A fragment layout), to a blocked layout
// that is only stored (the store writes from the source layout), or between equal layouts.
void lower_convert_layout(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (const sgraph::Buffer* b = L.c.buffer_of(o.id)) return lower_exchange(L, o, *b, out);
  Val v = L.val(o.operands.at(0), o.id);
  if (v.reg_trans)
    L.c.fail(o.id,
             "a transposed register tile is only converted through a shared-memory "
             "exchange of the schedule graph");
  const int res = o.results.at(0);
  const std::string to = L.c.m.encoding_kind(L.c.type(res));
  if (to == "ttg.dot_op" && v.lay == Lay::Acc) {
    Val d = L.from_type(res, o.id);
    if (d.rows != v.rows || d.cols != v.cols)
      L.c.fail(o.id, "the dot operand's shape differs from the tile's");
    v.lay = Lay::DotA;
    L.set(res, v);
    return;
  }
  if (to == "ttg.blocked" && only_stored(L.c, res) && (v.lay == Lay::Acc || v.lay == Lay::Row)) {
    L.set(res, v);
    return;
  }
  // A row vector stored through pointers (attention's log-sum-exp, `tl.store(M + offs_m, m_i)`):
  // the store writes it from the row layout (blocked_ops.cpp, row_store).
  if (to == "ttg.blocked" && v.lay == Lay::Row && only_pointer_stored(L.c, res)) {
    L.set(res, v);
    return;
  }
  if (L.c.m.encoding_of(L.c.type(res)) != nullptr &&
      L.c.m.encoding_of(L.c.type(o.operands[0])) != nullptr &&
      L.c.m.encoding_of(L.c.type(res))->str() ==
          L.c.m.encoding_of(L.c.type(o.operands[0]))->str()) {
    L.set(res, v);
    return;
  }
  if (to == "ttg.nvidia_mma" && v.lay == Lay::Acc) {  // e.g. a register load, already in it
    L.set(res, v);
    return;
  }
  L.c.fail(o.id, "layout conversion to " + to +
                     " is not implemented (only views: to the MMA A "
                     "operand, or to a layout that is only stored)");
}

void lower_memdesc_trans(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v = L.val(o.operands.at(0), o.id);
  if (v.lay != Lay::Smem) L.c.fail(o.id, "operand is not a shared-memory buffer");
  v.smem_trans = layout_transposed(L.c, L.c.type(o.results.at(0)), o.id);
  L.set(o.results[0], v);
}

void lower_make_desc(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v;
  v.lay = Lay::Desc;
  v.desc_op = o.id;
  v.storage = o.results.at(0);
  L.set(o.results[0], v);
}

void lower_nothing(Lower&, const ttgir::Op&, Lowered&) {}

}  // namespace

const std::map<std::string, LowerFn>& op_table() {
  static const std::map<std::string, LowerFn> t = [] {
    std::map<std::string, LowerFn> m = {
        {"arith.constant", lower_constant},
        {"arith.truncf", lower_truncf},
        {"arith.extf", lower_extf},
        {"tt.reduce", lower_reduce},
        {"tt.splat", lower_splat},
        {"tt.expand_dims", lower_expand_dims},
        {"tt.broadcast", lower_broadcast},
        {"ttg.convert_layout", lower_convert_layout},
        {"ttg.memdesc_trans", lower_memdesc_trans},
        {"tt.trans", lower_trans},
        {"tt.reshape", lower_reshape},
        {"tt.split", lower_split},
        {"ttg.local_alloc", lower_local_alloc},
        {"tt.make_tensor_descriptor", lower_make_desc},
        {"tt.descriptor_load", lower_descriptor_load},
        {"tt.descriptor_reduce", lower_descriptor_store},
        {"tt.descriptor_store", lower_descriptor_store},
        {"ttng.warp_group_dot", lower_mma},
        {"scf.yield", lower_nothing},  // loop-carried values: the expander's carries
        {"tt.return", lower_nothing},
        // The pointer world: only blocked tensors use these (Lower::lower hands them over).
        {"tt.make_range", lower_blocked},
        {"tt.load", lower_blocked},
        {"tt.atomic_rmw", lower_atomic},
        {"tt.store", lower_blocked},
        {"tt.scan", lower_blocked},
    };
    for (const char* n :
         {"arith.addi",        "arith.subi",          "arith.muli",      "arith.divsi",
          "arith.remsi",       "arith.andi",          "arith.ori",       "arith.xori",
          "arith.shli",        "arith.shrsi",         "arith.minsi",     "arith.maxsi",
          "arith.minui",       "arith.maxui",         "arith.ceildivsi", "arith.cmpi",
          "arith.cmpf",        "arith.select",        "arith.extsi",     "arith.extui",
          "arith.trunci",      "arith.index_cast",    "arith.sitofp",    "arith.fptosi",
          "tt.get_program_id", "tt.get_num_programs", "tt.addptr",       "arith.shrui",
          "arith.divui",       "arith.remui",         "arith.uitofp",    "arith.fptoui",
          "tt.mulhiui",        "tt.bitcast",          "arith.bitcast"})
      m[n] = lower_scalar;
    m["tt.fp_to_fp"] = lower_fp_to_fp;
    for (const char* n :
         {"arith.addf",    "arith.subf",     "arith.mulf",     "arith.divf", "arith.maxnumf",
          "arith.minnumf", "arith.maximumf", "arith.minimumf", "arith.negf", "math.exp2",
          "math.exp",      "math.log2",      "math.log",       "math.sqrt",  "math.rsqrt",
          "math.absf",     "math.erf",       "math.tanh",      "math.sin",   "math.cos",
          "math.floor",    "math.ceil",      "math.fma",       "tt.clampf"})
      m[n] = lower_elementwise;
    // libdevice calls (tl.extra.cuda.libdevice): elementwise f32 math once their function is known.
    m["tt.extern_elementwise"] = [](Lower& L, const ttgir::Op& o, Lowered& out) {
      check_extern(L.c, o);
      lower_elementwise(L, o, out);
    };
    return m;
  }();
  return t;
}

bool is_elementwise(const std::string& op_name) { return element_fn(op_name) != nullptr; }

std::pair<int, int> operand_range(const std::string& n) {
  if (const char* f = element_fn(n)) {
    // The highest x<i> the expression reads, plus one (an x inside a word or a hex literal,
    // as in fmaxf or 0x7fc00000, is not an operand).
    int arity = 0;
    for (const char* p = f; *p != '\0'; ++p) {
      const bool word = p != f && (std::isalnum(static_cast<unsigned char>(p[-1])) || p[-1] == '_');
      if (*p == 'x' && !word && std::isdigit(static_cast<unsigned char>(p[1])))
        arity = std::max(arity, p[1] - '0' + 1);
    }
    return {arity, arity};
  }
  static const std::map<std::string, int> m = {
      {"arith.constant", 0},   {"tt.get_program_id", 0},  {"tt.get_num_programs", 0},
      {"arith.extsi", 1},      {"arith.extui", 1},        {"arith.trunci", 1},
      {"arith.index_cast", 1}, {"arith.sitofp", 1},       {"arith.uitofp", 1},
      {"arith.fptosi", 1},     {"arith.fptoui", 1},       {"arith.extf", 1},
      {"arith.truncf", 1},     {"tt.fp_to_fp", 1},        {"tt.bitcast", 1},
      {"arith.bitcast", 1},    {"tt.splat", 1},           {"tt.expand_dims", 1},
      {"tt.broadcast", 1},     {"ttg.convert_layout", 1}, {"ttg.memdesc_trans", 1},
      {"tt.trans", 1},         {"tt.reshape", 1},         {"tt.split", 1},
      {"tt.make_range", 0},    {"arith.addi", 2},         {"arith.subi", 2},
      {"arith.muli", 2},       {"arith.divsi", 2},        {"arith.remsi", 2},
      {"arith.andi", 2},       {"arith.ori", 2},          {"arith.xori", 2},
      {"arith.shli", 2},       {"arith.shrsi", 2},        {"arith.shrui", 2},
      {"arith.minsi", 2},      {"arith.maxsi", 2},        {"arith.minui", 2},
      {"arith.maxui", 2},      {"arith.divui", 2},        {"arith.remui", 2},
      {"arith.ceildivsi", 2},  {"arith.cmpi", 2},         {"arith.cmpf", 2},
      {"tt.addptr", 2},        {"tt.mulhiui", 2},         {"arith.select", 3}};
  if (const auto it = m.find(n); it != m.end()) return {it->second, it->second};
  // Optional operands: a mask and an other value (tt.load), a mask (tt.store, tt.atomic_rmw), the
  // use-accumulator flag (warp_group_dot), indices of the descriptor's rank.
  static const std::map<std::string, std::pair<int, int>> ranges = {
      {"tt.load", {1, 3}},
      {"tt.store", {2, 3}},
      {"tt.atomic_rmw", {2, 3}},
      {"ttng.warp_group_dot", {3, 4}},
      {"tt.descriptor_load", {2, -1}},
      {"tt.descriptor_store", {3, -1}},
      {"tt.descriptor_reduce", {3, -1}},
      {"tt.make_tensor_descriptor", {3, -1}},
      {"tt.reduce", {1, -1}},
      {"tt.scan", {1, -1}},
      {"ttg.local_alloc", {0, 1}}};
  if (const auto it = ranges.find(n); it != ranges.end()) return it->second;
  return {-1, -1};
}

namespace {

// The libdevice function a tt.extern_elementwise calls, if the emitter has it (empty otherwise).
std::string extern_symbol(const ttgir::Op& o) {
  const ttgir::Attribute* s = o.attr("symbol");
  const ttgir::Attribute* lib = o.attr("libname");
  if (s == nullptr || (lib != nullptr && !lib->text.empty() && lib->text != "libdevice")) return "";
  const auto it = libdevice_f32().find(s->text);
  if (it == libdevice_f32().end() || it->second != static_cast<int>(o.operands.size())) return "";
  return s->text;
}

}  // namespace

bool is_elementwise(const ttgir::Op& o) { return !float_element_fn(o).empty(); }

std::string float_element_fn(const ttgir::Op& o) {
  if (o.name == "tt.clampf") {
    // propagateNan = all (max.NaN / min.NaN): any NaN operand wins; none: the table's form.
    const ttgir::Attribute* p = o.attr("propagateNan");
    if (p != nullptr && p->text == "all")
      return "(x0 != x0 || x1 != x1 || x2 != x2) ? __int_as_float(0x7fc00000) : "
             "fminf(fmaxf(x0, x1), x2)";
  }
  if (o.name == "tt.extern_elementwise") {
    const std::string sym = extern_symbol(o);
    if (sym.empty()) return "";
    std::string call = sym + "(";
    for (size_t i = 0; i < o.operands.size(); ++i)
      call += (i ? ", x" : "x") + S(static_cast<long long>(i));
    return call + ")";
  }
  const char* f = element_fn(o.name);
  return f == nullptr ? "" : f;
}

void check_extern(const Ctx& c, const ttgir::Op& o) {
  bool f32 = true;
  for (int v : o.results) f32 &= c.type(v).element_type().name == "f32";
  if (f32 && !extern_symbol(o).empty()) return;
  // Say what is wrong with it.
  const ttgir::Attribute* s = o.attr("symbol");
  const ttgir::Attribute* lib = o.attr("libname");
  const std::string sym = s == nullptr ? "" : s->text;
  if (lib != nullptr && !lib->text.empty() && lib->text != "libdevice")
    c.fail(o.id, "tt.extern_elementwise of library '" + lib->text + "': only libdevice is lowered");
  const auto it = libdevice_f32().find(sym);
  if (it == libdevice_f32().end())
    c.fail(o.id, "libdevice function '" + sym +
                     "' is not one the emitter calls (the f32 functions of "
                     "runtime/sched2cu/libdevice.cuh)");
  if (it->second != static_cast<int>(o.operands.size()))
    c.fail(o.id, sym + " takes " + S(it->second) + " operands, the op has " +
                     S(static_cast<long long>(o.operands.size())));
  for (int v : o.results)
    if (c.type(v).element_type().name != "f32")
      c.fail(o.id, sym + " of " + c.type(v).element_type().name + " values: f32 only");
}

std::string lambda_text(size_t arity, const std::string& param_type, const std::string& body) {
  std::string s = "[](";
  for (size_t i = 0; i < arity; ++i)
    s += (i ? ", " : "") + param_type + " x" + S(static_cast<long long>(i));
  return s + ") { return " + body + "; }";
}

}  // namespace sched2cu::emit
