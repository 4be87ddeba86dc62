// Epilogue lowering of register-tile ops other than the store: a `tt.descriptor_load` the
// scheduler gave no shared memory (its value is consumed in registers, in the accumulator
// layout) becomes direct global loads per warpgroup slice; `arith.extf` of such a 16-bit tile is
// a view; elementwise f32 arithmetic on accumulator-layout tiles becomes the runtime's register
// tile ops. Reads the graph (which loads have buffers) and the IR; never decides a schedule, and
// fails with the op for every shape it cannot lower.
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

std::string S(long long v) { return std::to_string(v); }

// The integer value of an arith.constant, if `v` is one.
bool const_int_is(const Ctx& c, int v, long long want) {
  const ttgir::Op* d = c.f.def_op(v);
  if (d == nullptr || d->name != "arith.constant") return false;
  const ttgir::Attribute* a = d->attr("value");
  return a != nullptr && a->kind == ttgir::Attribute::Kind::Integer && a->ival == want;
}

std::string tile_decl(const Tile& t) {
  return (t.packed.empty() ? "AccTile<" : "PackedTile<") + S(t.rows) + ", " + S(t.cols) + "> " +
         t.var + ";";
}

// `tt.descriptor_load` without a shared-memory buffer: the load feeds only convert_layouts to the
// accumulator layout, so warpgroup k loads its [rows/split, cols] slice straight from global
// memory into a packed 16-bit tile (half the registers of f32), with TMA's bounds semantics.
std::vector<Stmt> lower_register_load(Ctx& c, const sgraph::Role& r, int op) {
  const ttgir::Op& o = c.op(op);
  const ttgir::Value& res = c.f.value(o.results.at(0));
  for (int u : res.users) {
    const ttgir::Op& uo = c.op(u);
    if (uo.name != "ttg.convert_layout" ||
        c.m.encoding_kind(c.type(uo.results.at(0))) != "ttg.nvidia_mma")
      c.fail(op,
             "a load without a shared-memory buffer must feed only ttg.convert_layout to the "
             "#nvidia_mma accumulator layout (consumed in registers)");
  }
  if (res.users.empty()) c.fail(op, "load without users");
  const ttgir::Op* mk = c.f.def_op(o.operands.at(0));
  if (mk == nullptr || mk->name != "tt.make_tensor_descriptor")
    c.fail(op, "its descriptor is not a tt.make_tensor_descriptor of the kernel");
  const ttgir::Type& t = c.type(o.results.at(0));
  if (t.shape.size() != 2 || o.operands.size() != 3 || mk->operands.size() != 5)
    c.fail(op, "register loads of rank other than 2 are not implemented");
  const std::string elem = t.element_type().name;
  if (elem_bytes(elem) != 2) c.fail(op, "register loads of " + elem + " are not implemented");
  if (!const_int_is(c, mk->operands[4], 1))
    c.fail(op, "the descriptor's innermost stride must be the constant 1");
  bool param = false;
  for (const auto& p : c.g.kernel.params) param |= p.value == mk->operands[0];
  if (!param) c.fail(op, "the descriptor base must be a kernel pointer argument");
  Tile tile;
  tile.var = c.ident(o.results.at(0));
  tile.rows = split_rows(c, r, static_cast<int>(t.shape[0]), op);
  tile.cols = static_cast<int>(t.shape[1]);
  tile.elem = elem;
  tile.packed = elem;
  if (tile.rows % 64 != 0 || tile.cols % 8 != 0 || tile.cols > 256)
    c.fail(op, "tile [" + S(tile.rows) + " rows per warpgroup, " + S(tile.cols) +
                   "] is not an accumulator-layout tile (rows % 64, cols % 8, cols <= 256)");
  const std::string T = cuda_elem(c, elem, op);
  std::string row = c.ident(o.operands[1]);
  if (r.split_parts > 1) row += " + slice * " + S(tile.rows);
  c.tiles[o.results[0]] = tile;
  return {code(tile_decl(tile), c.note(op) + ": " + S(tile.rows) + " rows per warpgroup, " +
                                    "accumulator layout, no shared memory"),
          code("packed_load_global<" + T + ">(" + tile.var + ", static_cast<const " + T + "*>(" +
                   c.ident(mk->operands[0]) + "), " + c.ident(mk->operands[3]) + ", " + row + ", " +
                   c.ident(o.operands[2]) + ", " + c.ident(mk->operands[1]) + ", " +
                   c.ident(mk->operands[2]) + ");",
               "global -> registers, out of bounds reads 0 (TMA semantics)")};
}

const Tile& tile_of(const Ctx& c, int value, int op) {
  auto it = c.tiles.find(value);
  if (it == c.tiles.end()) c.fail(op, "operand is not a register tile of this role");
  return it->second;
}

// Elementwise f32 arithmetic of two accumulator-layout tiles into a new tile. A packed 16-bit
// operand (a register load viewed as f32) is widened on the fly as the second operand of an
// *_packed op; otherwise (both packed, or the first of a subtraction) it is widened first.
std::vector<Stmt> lower_binary(Ctx& c, int op, const std::string& fn, bool commutative) {
  const ttgir::Op& o = c.op(op);
  if (o.operands.size() != 2 || c.type(o.results.at(0)).element_type().name != "f32")
    c.fail(op, "only f32 elementwise tile arithmetic is implemented");
  Tile a = tile_of(c, o.operands[0], op), b = tile_of(c, o.operands[1], op);
  if (a.elem != "f32" || b.elem != "f32")
    c.fail(op, "operand is a 16-bit view of a tile (no f32 arithmetic on it)");
  if (a.rows != b.rows || a.cols != b.cols) c.fail(op, "operand tiles differ in shape");
  std::vector<Stmt> out;
  if (!a.packed.empty() && b.packed.empty() && commutative) std::swap(a, b);
  auto widen = [&](Tile& x, const std::string& suffix) {
    if (x.packed.empty()) return;
    Tile w = x;
    w.var = x.var + suffix;
    w.packed.clear();
    out.push_back(code(tile_decl(w)));
    out.push_back(
        code("acc_unpack<" + cuda_elem(c, x.packed, op) + ">(" + w.var + ", " + x.var + ");",
             "widen to f32"));
    x = w;
  };
  widen(a, "_f32");
  Tile d = a;
  d.var = c.ident(o.results[0]);
  d.elem = "f32";
  out.push_back(code(tile_decl(d), c.note(op)));
  if (b.packed.empty()) {
    out.push_back(code(fn + "(" + d.var + ", " + a.var + ", " + b.var + ");"));
  } else {
    out.push_back(code(fn + "_packed<" + cuda_elem(c, b.packed, op) + ">(" + d.var + ", " + a.var +
                           ", " + b.var + ");",
                       "second operand widened on the fly"));
  }
  c.tiles[o.results[0]] = d;
  return out;
}

}  // namespace

bool lower_register_tile_op(Ctx& c, const sgraph::Role& r, int op, std::vector<Stmt>& out) {
  const ttgir::Op& o = c.op(op);
  if (o.name == "tt.descriptor_load") {
    if (buffer_produced_by(c, op) != nullptr)
      c.fail(op, "function-scope (resident) TMA loads are not implemented yet");
    for (int u : c.f.value(o.results.at(0)).users)
      if (buffer_produced_by(c, u) != nullptr)
        c.fail(op, "function-scope (resident) TMA loads are not implemented yet");
    out = lower_register_load(c, r, op);
    return true;
  }
  if (o.name == "arith.extf") {
    Tile t = tile_of(c, o.operands.at(0), op);
    const std::string to = c.type(o.results.at(0)).element_type().name;
    if (t.packed.empty() || to != "f32")
      c.fail(op, "extf is implemented for 16-bit loaded tiles to f32 only");
    t.elem = to;  // widened where it is used (acc_*_packed / acc_unpack)
    c.tiles[o.results[0]] = t;
    out = {comment(c.note(op) + ": f32 view of " + t.var + " (widened where used)")};
    return true;
  }
  static const std::pair<const char*, std::pair<const char*, bool>> kBinary[] = {
      {"arith.addf", {"acc_add", true}},
      {"arith.subf", {"acc_sub", false}},
      {"arith.mulf", {"acc_mul", true}},
      {"arith.maxnumf", {"acc_max", true}},  // fmaxf: maxnum semantics (NaN loses)
  };
  for (const auto& [name, fn] : kBinary)
    if (o.name == name) {
      out = lower_binary(c, op, fn.first, fn.second);
      return true;
    }
  return false;
}

}  // namespace sched2cu::emit
