// Epilogue lowering of register-tile ops other than the store: a `tt.descriptor_load` the
// scheduler gave no shared memory (its value is consumed in registers, in the accumulator
// layout) becomes direct global loads per warpgroup slice; `arith.extf` of such a 16-bit tile is
// a view; elementwise f32 arithmetic on accumulator-layout tiles becomes the runtime's register
// tile ops. A chain of these that only feeds a tt.descriptor_store and contains a register load
// is fused into the store's chunk loop instead (lazy values, computed per TMA box with the loads
// one box ahead), so the whole loaded tile is never live beside the accumulator. Reads the graph
// (which loads have buffers) and the IR; never decides a schedule, and fails with the op for every
// shape it cannot lower.
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
// Validates the load and returns its tile (not yet recorded).
Tile register_load_tile(Ctx& c, const sgraph::Role& r, int op) {
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
  return tile;
}

// The global load of a validated register load into `dst`, starting at column `col`.
Stmt register_load_call(Ctx& c, const sgraph::Role& r, int op, const std::string& dst, int rows,
                        const std::string& col) {
  const ttgir::Op& o = c.op(op);
  const ttgir::Op* mk = c.f.def_op(o.operands.at(0));
  const std::string T = cuda_elem(c, c.type(o.results.at(0)).element_type().name, op);
  std::string row = c.ident(o.operands[1]);
  if (r.split_parts > 1) row += " + slice * " + S(rows);
  return code("packed_load_global<" + T + ">(" + dst + ", static_cast<const " + T + "*>(" +
                  c.ident(mk->operands[0]) + "), " + c.ident(mk->operands[3]) + ", " + row + ", " +
                  col + ", " + c.ident(mk->operands[1]) + ", " + c.ident(mk->operands[2]) + ");",
              "global -> registers, out of bounds reads 0 (TMA semantics)");
}

std::vector<Stmt> lower_register_load(Ctx& c, const sgraph::Role& r, int op) {
  const ttgir::Op& o = c.op(op);
  Tile tile = register_load_tile(c, r, op);
  c.tiles[o.results[0]] = tile;
  return {code(tile_decl(tile), c.note(op) + ": " + S(tile.rows) + " rows per warpgroup, " +
                                    "accumulator layout, no shared memory"),
          register_load_call(c, r, op, tile.var, tile.rows, c.ident(o.operands[2]))};
}

const Tile& tile_of(const Ctx& c, int value, int op) {
  auto it = c.tiles.find(value);
  if (it == c.tiles.end()) c.fail(op, "operand is not a register tile of this role");
  return it->second;
}

// Elementwise f32 arithmetic of two accumulator-layout tiles a, b into a new tile `dvar`. A
// packed 16-bit operand (a register load viewed as f32) is widened on the fly as the second
// operand of an *_packed op; otherwise (both packed, or the first of a subtraction) it is widened
// first into `<name>_f32` (an indexed chunk buffer `x[i]` is named after `x`).
std::vector<Stmt> binary_stmts(Ctx& c, int op, const std::string& fn, bool commutative, Tile a,
                               Tile b, const std::string& dvar, Tile& d) {
  const ttgir::Op& o = c.op(op);
  if (o.operands.size() != 2 || c.type(o.results.at(0)).element_type().name != "f32")
    c.fail(op, "only f32 elementwise tile arithmetic is implemented");
  if (a.elem != "f32" || b.elem != "f32")
    c.fail(op, "operand is a 16-bit view of a tile (no f32 arithmetic on it)");
  if (a.rows != b.rows || a.cols != b.cols) c.fail(op, "operand tiles differ in shape");
  std::vector<Stmt> out;
  if (!a.packed.empty() && b.packed.empty() && commutative) std::swap(a, b);
  auto widen = [&](Tile& x, const std::string& suffix) {
    if (x.packed.empty()) return;
    Tile w = x;
    w.var = x.var.substr(0, x.var.find('[')) + suffix;
    w.packed.clear();
    out.push_back(code(tile_decl(w)));
    out.push_back(
        code("acc_unpack<" + cuda_elem(c, x.packed, op) + ">(" + w.var + ", " + x.var + ");",
             "widen to f32"));
    x = w;
  };
  widen(a, "_f32");
  d = a;
  d.var = dvar;
  d.elem = "f32";
  d.lazy_op = -1;
  out.push_back(code(tile_decl(d), c.note(op)));
  if (b.packed.empty()) {
    out.push_back(code(fn + "(" + d.var + ", " + a.var + ", " + b.var + ");"));
  } else {
    out.push_back(code(fn + "_packed<" + cuda_elem(c, b.packed, op) + ">(" + d.var + ", " + a.var +
                           ", " + b.var + ");",
                       "second operand widened on the fly"));
  }
  return out;
}

struct BinaryFn {
  const char* op;
  const char* fn;
  bool commutative;
};
constexpr BinaryFn kBinary[] = {
    {"arith.addf", "acc_add", true},
    {"arith.subf", "acc_sub", false},
    {"arith.mulf", "acc_mul", true},
    {"arith.maxnumf", "acc_max", true},  // fmaxf: maxnum semantics (NaN loses)
};
const BinaryFn* binary_fn(const std::string& name) {
  for (const auto& b : kBinary)
    if (name == b.op) return &b;
  return nullptr;
}

bool is_register_load(const Ctx& c, const ttgir::Op& o) {
  return o.name == "tt.descriptor_load" && buffer_produced_by(c, o.id) == nullptr;
}

// Ops a fused chain may contain: register loads, widening, elementwise math, views.
bool fusable(const Ctx& c, const ttgir::Op* d) {
  return d != nullptr &&
         (is_register_load(c, *d) || d->name == "arith.extf" || d->name == "arith.truncf" ||
          d->name == "ttg.convert_layout" || binary_fn(d->name) != nullptr);
}

// Every use of `value` is a fusable op whose result again only feeds stores, or a
// tt.descriptor_store of it (as the stored tile).
bool feeds_only_stores(const Ctx& c, int value) {
  const ttgir::Value& v = c.f.value(value);
  if (v.users.empty()) return false;
  for (int u : v.users) {
    const ttgir::Op& uo = c.op(u);
    if (uo.name == "tt.descriptor_store") {
      for (size_t i = 0; i + 1 < uo.operands.size(); ++i)
        if (uo.operands[i] == value) return false;
      continue;
    }
    if (!fusable(c, &uo) || uo.results.size() != 1 || !feeds_only_stores(c, uo.results[0]))
      return false;
  }
  return true;
}

}  // namespace

bool fused_into_store(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (!fusable(c, d) || !feeds_only_stores(c, value)) return false;
  if (is_register_load(c, *d)) return true;
  for (int x : d->operands)
    if (fused_into_store(c, x)) return true;
  return false;
}

FusedChunk lower_fused_chunk(Ctx& c, const sgraph::Role& r, int value, int w, int nbox) {
  FusedChunk fc;
  std::vector<Stmt> loads, math;
  std::map<int, Tile> by_value;        // lazy values already computed for chunk ch
  std::map<std::string, Tile> by_var;  // materialized tiles already cut into chunk ch
  auto chunk_of = [&](auto& self, int v) -> Tile {
    auto memo = by_value.find(v);
    if (memo != by_value.end()) return memo->second;
    const Tile t = c.tiles.at(v);
    Tile x = t;
    x.cols = w;
    x.lazy_op = -1;
    if (t.lazy_op < 0) {
      // A tile computed whole (the accumulator, an unfused load): chunk ch is a register copy of
      // its columns w*ch ..., free after unrolling.
      auto cut = by_var.find(t.var);
      if (cut != by_var.end()) {
        x = cut->second;
        x.elem = t.elem;
        return x;
      }
      x.var = t.var + "_ch";
      math.push_back(code(tile_decl(x), "columns " + S(w) + " * ch ... of " + t.var));
      math.push_back(code(std::string(t.packed.empty() ? "acc" : "packed") + "_extract_cols<" +
                          S(w) + ">(" + x.var + ", " + t.var + ", " + S(w) + " * ch);"));
      by_var[t.var] = x;
      return x;
    }
    const int op = t.lazy_op;
    const ttgir::Op& o = c.op(op);
    if (is_register_load(c, o)) {
      // Double-buffered chunk loads, one chunk ahead: chunk ch + 1's loads are in flight while
      // chunk ch is computed, converted and stored.
      const std::string buf = t.var + "_ch";
      fc.pre.push_back(code("PackedTile<" + S(t.rows) + ", " + S(w) + "> " + buf + "[2];",
                            c.note(op) + ": " + S(w) + "-column chunks, loaded one ahead"));
      fc.pre.push_back(register_load_call(c, r, op, buf + "[0]", t.rows, c.ident(o.operands[2])));
      loads.push_back(
          if_("ch + 1 < " + S(nbox),
              {register_load_call(c, r, op, buf + "[(ch + 1) % 2]", t.rows,
                                  c.ident(o.operands[2]) + " + " + S(w) + " * (ch + 1)")},
              "next chunk's " + t.var));
      x.var = buf + "[ch % 2]";
    } else if (const BinaryFn* b = binary_fn(o.name)) {
      Tile d;
      std::vector<Stmt> s = binary_stmts(c, op, b->fn, b->commutative, self(self, o.operands[0]),
                                         self(self, o.operands[1]), t.var + "_ch", d);
      math.insert(math.end(), s.begin(), s.end());
      x = d;
    } else {  // extf, truncf, convert_layout: a view of the operand's chunk
      x = self(self, o.operands.at(0));
      x.elem = t.elem;
    }
    by_value[v] = x;
    return x;
  };
  fc.var = chunk_of(chunk_of, value).var;
  fc.body = loads;
  fc.body.insert(fc.body.end(), math.begin(), math.end());
  return fc;
}

// Marks the result of `op` lazy when it is fused into a store's chunk loop: its statements are
// dropped (the store emits them per chunk).
void mark_fused(Ctx& c, int op, std::vector<Stmt>& out) {
  const int res = c.op(op).results.at(0);
  if (!fused_into_store(c, res)) return;
  c.tiles.at(res).lazy_op = op;
  out = {comment(c.note(op) + ": fused into the store's chunk loop")};
}

namespace {

std::vector<Stmt> lower_binary(Ctx& c, int op, const BinaryFn& b) {
  const ttgir::Op& o = c.op(op);
  Tile d;
  std::vector<Stmt> out =
      binary_stmts(c, op, b.fn, b.commutative, tile_of(c, o.operands.at(0), op),
                   tile_of(c, o.operands.at(1), op), c.ident(o.results.at(0)), d);
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
  } else if (o.name == "arith.extf") {
    Tile t = tile_of(c, o.operands.at(0), op);
    const std::string to = c.type(o.results.at(0)).element_type().name;
    if (t.packed.empty() || to != "f32")
      c.fail(op, "extf is implemented for 16-bit loaded tiles to f32 only");
    t.elem = to;  // widened where it is used (acc_*_packed / acc_unpack)
    t.lazy_op = -1;
    c.tiles[o.results[0]] = t;
    out = {comment(c.note(op) + ": f32 view of " + t.var + " (widened where used)")};
  } else if (const BinaryFn* b = binary_fn(o.name)) {
    out = lower_binary(c, op, *b);
  } else {
    return false;
  }
  mark_fused(c, op, out);
  return true;
}

}  // namespace sched2cu::emit
