// Op lowerings of the blocked world (docs/emitter.md, "Blocked layouts"): the op-table entries
// hand an op here when its values are blocked tensors. Views (splats, expand_dims, broadcast,
// conversions between equal distributions) cost nothing; elementwise math of any element type
// runs through bmap; reductions shuffle within warps and cross warps through the role's scratch;
// pointer loads and stores take 16-byte runs where contiguity is proven here and alignment and
// masks allow at run time (TMA-loaded tiles and tile stores through staging: blocked_smem.cpp).
// An op this file cannot lower fails with its location.
#include <algorithm>
#include <set>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

bool is_blocked_lay(Lay l) {
  return l == Lay::BTile || l == Lay::BRow || l == Lay::BCol || l == Lay::BRowB || l == Lay::BColB;
}

bool blocked_op(const Lower& L, const ttgir::Op& o) {
  // A load's bytes (never registers); TMA loads and stores and yields keep their own table
  // entries, which handle blocked tiles themselves (lower_mem.cpp, the expander's carries).
  if (o.name == "ttg.local_alloc" || o.name == "tt.descriptor_load" ||
      ttgir::is_descriptor_store(o.name) || o.name == "scf.yield")
    return false;
  bool blocked_operand = false;
  for (int v : o.operands) {
    auto it = L.vals.find(v);
    if (it == L.vals.end()) continue;
    const Lay l = it->second.lay;
    // The wgmma world converts its tiles to blocked layouts only to store them (optable.cpp).
    if (l == Lay::Acc || l == Lay::Row || l == Lay::Col || l == Lay::RowB || l == Lay::ColB ||
        l == Lay::DotA)
      return false;
    blocked_operand |= is_blocked_lay(l);
  }
  if (o.results.empty()) return blocked_operand;
  for (int r : o.results)
    if (is_blocked_type(L.c, L.c.type(r))) return true;
  return blocked_operand;
}

Text blocked_bar(const Ctx& c) {
  return c.blocked_warps > 4 ? Text(S(c.bar_role())) : S(c.bar_warpgroup()) + " + wg";
}

Text splat_text(const Val& v) {
  Text x = v.scalar.empty() ? R(v.scalar_value) : Text(v.scalar);
  if (!v.cty.empty() && v.cty.back() == '*') return "static_cast<" + v.cty + ">(" + x + ")";
  return x;
}

// The `start` of a make_range in layout `v`: an accumulator row vector counts the rows of its
// warpgroup's slice of the tile (slice * rows in a role split along the rows).
Text range_start(const Lower& L, const Val& v, long long start) {
  if (v.blay.mma_row && L.split()) return S(start) + " + slice * " + S(v.blay.R);
  return S(start);
}

int cty_bytes(const std::string& t) {
  if (!t.empty() && t.back() == '*') return 8;
  if (t == "bool") return 1;
  if (t == "__half" || t == "__nv_bfloat16") return 2;
  if (t == "long long") return 8;
  return 4;
}

// Scratch of `bytes` per warpgroup (per role when the layout spans several), as a T* expression
// (kernel.cpp places it).
Text scratch(Ctx& c, long long bytes, const std::string& cty) {
  c.scratch_bytes = std::max(c.scratch_bytes, (bytes + 15) / 16 * 16);
  if (c.blocked_warps > 4) c.role_scratch.insert(c.blocked_role);
  return "reinterpret_cast<" + cty + "*>(scratch)";
}

namespace {

bool rows_match(const BLayout& a, const BLayout& b) {
  return a.R == b.R && a.S0 == b.S0 && a.T0 == b.T0 && a.W0 == b.W0 && a.mma_row == b.mma_row;
}
bool cols_match(const BLayout& a, const BLayout& b) {
  return a.C == b.C && a.S1 == b.S1 && a.T1 == b.T1 && a.W1 == b.W1;
}

void b_elementwise(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  Val v = blocked_val(c, res, o.id);
  const std::string fbody = float_element_fn(o);
  const bool half = v.elem == "f16" || v.elem == "bf16";
  if (!fbody.empty() && v.elem != "f32" && !half)
    c.fail(o.id, "elementwise math on " + v.elem + " tensors is not implemented");
  const std::string body = !fbody.empty() ? fbody : element_expr(c, o, v.cty);
  std::string fn = lambda_text(o.operands.size(), "auto", body);
  if (!fbody.empty() && half) {
    // f16 / bf16 math in f32, rounded once per op: for + - * / and sqrt this is the correctly
    // rounded 16-bit result (f32's 24 bits are at least 2p + 2 for p = 11 and 8, so the double
    // rounding is exact); exp, log and the like are computed in f32 by Triton too.
    fn = "[](";
    std::string conv;
    for (size_t i = 0; i < o.operands.size(); ++i) {
      const std::string k = S(static_cast<long long>(i));
      fn.append(i ? ", " : "").append(v.cty).append(" a").append(k);
      conv.append("const float x")
          .append(k)
          .append(" = static_cast<float>(a")
          .append(k)
          .append("); ");
    }
    fn += ") { " + conv + "return " +
          std::string(v.elem == "f16" ? "__float2half_rn" : "__float2bfloat16_rn") + "(" + body +
          "); }";
  }
  bool uniform = true;
  for (int a : o.operands) uniform &= L.val(a, o.id).lay == Lay::Splat;
  if (uniform) {  // a uniform tensor: its one value as a scalar
    Text call = "(" + fn + ")(";
    for (size_t i = 0; i < o.operands.size(); ++i)
      call += (i ? ", " : "") + splat_text(L.val(o.operands[i], o.id));
    out.body.push_back(decl(v.cty, res, call + ")", true, c.note(o.id)));
    Val s;
    s.lay = Lay::Splat;
    s.elem = v.elem;
    s.cty = v.cty;
    s.scalar_value = res;
    s.storage = res;
    L.set(res, s);
    return;
  }
  // Contiguity along the last dimension (pointer and index arithmetic): a sum keeps the run of
  // its non-uniform side; anything else keeps only uniformity.
  const bool add = o.name == "tt.addptr" || o.name == "arith.addi";
  const bool sub = o.name == "arith.subi";
  if (o.operands.size() == 2 && (add || sub)) {
    const Val &a = L.val(o.operands[0], o.id), &b = L.val(o.operands[1], o.id);
    if (b.uniform_cols || b.lay == Lay::Splat) v.contig = a.contig;
    if (add && (a.uniform_cols || a.lay == Lay::Splat)) v.contig = b.contig;
  }
  v.uniform_cols = true;
  for (int a : o.operands) {
    const Val& x = L.val(a, o.id);
    v.uniform_cols &= x.uniform_cols || x.lay == Lay::Splat;
  }
  Text call = "bmap(" + R(res) + ", " + fn;
  for (int a : o.operands) call += ", " + adapter(L, a, v, o.id);
  out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
  out.body.push_back(code(call + ");", c.note(o.id)));
  L.set(res, v);
}

void b_constant(Lower& L, const ttgir::Op& o, Lowered&) {
  const ttgir::Attribute* a = o.attr("value");
  if (a == nullptr || a->kind != ttgir::Attribute::Kind::Dense || a->elems.size() != 1)
    L.c.fail(o.id, "tensor constants other than splats are not implemented");
  const ttgir::Type& e = L.c.type(o.results.at(0)).element_type();
  Val v;
  v.lay = Lay::Splat;
  v.elem = e.name;
  v.cty = elem_ctype(L.c, e, o.id);
  const ttgir::Attribute& x = a->elems[0];
  if (e.kind == ttgir::Type::Kind::Float && x.kind == ttgir::Attribute::Kind::Float &&
      x.text.rfind("0x", 0) == 0 && e.bits == 16) {
    // A hex spelling is the bit pattern of the element type (0xFC00: f16 -inf), not of an f32.
    v.scalar = std::string(e.name == "bf16" ? "__ushort_as_bfloat16" : "__ushort_as_half") +
               "(static_cast<unsigned short>(" + x.text + "u))";
  } else if (e.kind == ttgir::Type::Kind::Float) {
    v.scalar = float_literal(L.c, x, o.id);
    if (v.cty != "float") v.scalar = "static_cast<" + v.cty + ">(" + v.scalar + ")";
  } else if (v.cty == "bool") {
    v.scalar = x.ival ? "true" : "false";
  } else {
    v.scalar = S(x.ival) + (v.cty == "long long" ? "LL" : "");
  }
  v.storage = o.results[0];
  L.set(o.results[0], v);
}

void b_splat(Lower& L, const ttgir::Op& o, Lowered&) {
  const Val& s = L.val(o.operands.at(0), o.id);
  if (s.lay != Lay::Scalar) L.c.fail(o.id, "splat of a non-scalar");
  Val v;
  v.lay = Lay::Splat;
  v.elem = L.c.type(o.results.at(0)).element_type().name;
  v.cty = elem_ctype(L.c, L.c.type(o.results[0]).element_type(), o.id);
  v.scalar_value = o.operands[0];
  v.storage = o.results[0];
  v.uniform_cols = true;
  L.set(o.results[0], v);
}

void b_range(Lower& L, const ttgir::Op& o, Lowered& out) {
  const int res = o.results.at(0);
  Val v = blocked_val(L.c, res, o.id);
  const ttgir::Attribute* st = o.attr("start");
  const ttgir::Attribute* en = o.attr("end");
  if (st == nullptr || en == nullptr) L.c.fail(o.id, "make_range without start/end");
  if (v.lay == Lay::BTile || v.lay == Lay::BCol) v.contig = static_cast<int>(en->ival - st->ival);
  if (v.lay == Lay::BRow) v.contig = 1;
  out.decls.push_back(decl(blocked_ctype(v), res, {}, false, L.c.note(o.id)));
  out.body.push_back(
      code("brange(" + R(res) + ", " + range_start(L, v, st->ival) + ");", L.c.note(o.id)));
  L.set(res, v);
}

void b_expand_dims(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v = L.val(o.operands.at(0), o.id);
  const ttgir::Attribute* ax = o.attr("axis");
  const long long axis = ax ? ax->as_int() : -1;
  if (v.lay == Lay::BRow && axis == 1) {
    v.lay = Lay::BRowB;
    v.uniform_cols = true;
  } else if (v.lay == Lay::BCol && axis == 0) {
    v.lay = Lay::BColB;
  } else if (v.lay != Lay::Splat) {
    L.c.fail(o.id, "expand_dims of this layout is not implemented");
  }
  L.set(o.results.at(0), v);
}

void b_broadcast(Lower& L, const ttgir::Op& o, Lowered&) {
  Val v = L.val(o.operands.at(0), o.id);
  const bool same = L.c.type(o.operands[0]).shape == L.c.type(o.results.at(0)).shape;
  // A one-row tile holds one value per column, as a column vector does: broadcast it as one.
  if (v.lay == Lay::BTile && !same && v.blay.R == 1 && L.c.type(o.operands[0]).shape.size() == 2)
    v.lay = Lay::BColB;
  // A one-column tile holds one value per row, as a row vector does (`brow` reads its column
  // slot 0; the accumulator's rows reach accumulator tiles through `mrow_bcast`).
  if (v.lay == Lay::BTile && !same && v.blay.C == 1 && L.c.type(o.operands[0]).shape.size() == 2)
    v.lay = Lay::BRowB;
  if (!(v.lay == Lay::BRowB || v.lay == Lay::BColB || v.lay == Lay::Splat ||
        (v.lay == Lay::BTile && same)))
    L.c.fail(o.id,
             "broadcast of a materialized tile is not implemented (only of row/column "
             "vectors and splats)");
  const bool to_acc = !is_blocked_type(L.c, L.c.type(o.results[0]));
  if (to_acc && !(v.lay == Lay::BColB && v.blay.mma_col) &&
      !(v.lay == Lay::BRowB && v.blay.mma_row))
    L.c.fail(o.id,
             "only accumulator-layout row and column vectors broadcast into accumulator tiles");
  if (!to_acc && (v.lay == Lay::BRowB || v.lay == Lay::BColB)) {
    // The vector's layout seen through the result tile's: the dimension it spans is its own.
    const Val r = blocked_val(L.c, o.results[0], o.id);
    if ((v.lay == Lay::BRowB && !rows_match(v.blay, r.blay)) ||
        (v.lay == Lay::BColB && !cols_match(v.blay, r.blay)))
      L.c.fail(o.id, "the broadcast vector's layout differs from the tile's");
  }
  L.set(o.results.at(0), v);
}

void b_load(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  const Val& p = L.val(o.operands.at(0), o.id);
  if (p.lay == Lay::Scalar) {
    // A scalar load (every thread reads the one address; the memory system serves it once).
    Text x = "*" + R(p.storage);
    if (o.operands.size() > 1)
      x = "(" + R(o.operands[1]) + " ? *" + R(p.storage) + " : " +
          (o.operands.size() > 2 ? R(o.operands[2]) : Text("0")) + ")";
    Val s;
    s.lay = Lay::Scalar;
    s.elem = c.type(res).name;
    s.cty = scalar_ctype(c, c.type(res), o.id);
    s.storage = res;
    out.body.push_back(decl(s.cty, res, x, true, c.note(o.id)));
    L.set(res, s);
    return;
  }
  Val v = blocked_val(c, res, o.id);
  if (p.lay != v.lay) c.fail(o.id, "the pointers of a load must be a tensor of pointers");
  if (c.lazy_loads.count(o.id) != 0) {
    // Read where it is used (lazy_loads.cpp): the address of element 0, and the vector's lines
    // brought into L1 now, where the schedule placed the load, so the uses hit.
    v.lazy = true;
    v.storage = res;
    const long long n = v.lay == Lay::BRow ? v.blay.R : v.blay.C;
    out.decls.push_back(decl(L.ctype(v, o.id), res, {}, false, c.note(o.id)));
    out.body.push_back(code(R(res) + " = " + lazy_base(L, o.operands[0], o.id) + ";",
                            c.note(o.id) + ": read where used"));
    out.body.push_back(code("prefetch_l1(" + R(res) + ", " + S(n) + " * sizeof(" + v.cty + "));",
                            "its lines into L1"));
    L.set(res, v);
    return;
  }
  if (c.affine_loads.count(o.id) != 0) {
    // Held in registers, read from its affine address (lazy_loads.cpp): no pointer vector.
    out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
    out.body.push_back(code("bload_at(" + R(res) + ", " + lazy_base(L, o.operands[0], o.id) + ");",
                            c.note(o.id) + ": from its affine address"));
    L.set(res, v);
    return;
  }
  adapter(L, o.operands[0], v, o.id);  // layout check
  const Text mask =
      o.operands.size() > 1 ? adapter(L, o.operands[1], v, o.id) : Text("bsplat(true)");
  const Text other = o.operands.size() > 2 ? adapter(L, o.operands[2], v, o.id)
                                           : Text("bsplat(static_cast<" + v.cty + ">(0))");
  const int run = run_of(p, v);
  out.decls.push_back(decl(blocked_ctype(v), res, {}, false, c.note(o.id)));
  out.body.push_back(code(
      "bload<" + S(run) + ">(" + R(res) + ", " + R(p.storage) + ", " + mask + ", " + other + ");",
      c.note(o.id) + (run > 1 ? ": runs of " + S(run) + " when aligned" : "")));
  L.set(res, v);
}

// A row vector of the accumulator stored through the pointer tile `splat(base) + [splat(start) +]
// tl.arange(0, rows)` (rows: the whole tile's), optionally masked by `that offset < splat(bound)`:
// lane 0 of each quad writes its rows (row_store_global). Anything else is refused.
void row_store(Lower& L, const ttgir::Op& o, const Val& x, Lowered& out) {
  Ctx& c = L.c;
  const auto def = [&](int v) { return c.f.def_op(c.f.through_sign_extensions(v)); };
  const auto splat_of = [&](int v) -> int {
    const ttgir::Op* d = def(v);
    return d != nullptr && d->name == "tt.splat" ? c.f.through_sign_extensions(d->operands.at(0))
                                                 : -1;
  };
  const auto refuse = [&](const std::string& why) {
    c.fail(o.id,
           "a row vector stored through pointers needs the pointers `splat(base) + start + "
           "tl.arange(0, rows)`" +
               (why.empty() ? std::string() : ": " + why));
  };
  const ttgir::Op* ap = def(o.operands.at(0));
  if (ap == nullptr || ap->name != "tt.addptr") refuse("");
  const int base = splat_of(ap->operands.at(0));
  if (base < 0) refuse("the base is not one pointer");
  const int offs = c.f.through_sign_extensions(ap->operands.at(1));
  const ttgir::Op* od = def(offs);
  int start = -1;
  const ttgir::Op* range = od;
  if (od != nullptr && od->name == "arith.addi")
    for (int k = 0; k < 2 && start < 0; ++k)
      if (const int s = splat_of(od->operands.at(k)); s >= 0) {
        start = s;
        range = def(od->operands.at(1 - k));
      }
  const long long rows = static_cast<long long>(x.rows) * L.r.split_parts;
  const ttgir::Attribute* r0 = range ? range->attr("start") : nullptr;
  const ttgir::Attribute* r1 = range ? range->attr("end") : nullptr;
  if (range == nullptr || range->name != "tt.make_range" || !r0 || !r1 || r0->ival != 0 ||
      r1->ival != rows)
    refuse("the offsets are not start + tl.arange(0, " + S(rows) + ")");
  Text limit = S(rows);
  if (o.operands.size() > 2) {
    const ttgir::Op* m = def(o.operands[2]);
    const ttgir::Attribute* pred = m ? m->attr("predicate") : nullptr;
    if (m == nullptr || m->name != "arith.cmpi" || pred == nullptr || pred->text != "slt" ||
        c.f.through_sign_extensions(m->operands.at(0)) != offs || splat_of(m->operands.at(1)) < 0)
      refuse("the mask is not `offsets < bound`");
    limit = R(splat_of(m->operands.at(1))) + (start >= 0 ? " - " + R(start) : Text());
  }
  const Val& p = L.val(o.operands.at(0), o.id);
  const std::string T = p.cty.substr(0, p.cty.size() - 1);
  Text dst = "static_cast<" + T + "*>(" + R(base) + ")";
  if (start >= 0) dst += " + " + R(start);
  if (L.split()) {
    dst += " + slice * " + S(x.rows);
    limit = "(" + limit + ") - slice * " + S(x.rows);
  }
  out.body.push_back(
      code("row_store_global<" + T + ">(" + dst + ", " + R(x.storage) + ", " + limit + ");",
           c.note(o.id) + ": a row vector, one lane per row"));
  out.body.back().global_write = true;
}

void b_store(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (const Val& x = L.val(o.operands.at(1), o.id); x.lay == Lay::Row)
    return row_store(L, o, x, out);
  const Val& p = L.val(o.operands.at(0), o.id);
  if (p.lay == Lay::Scalar || p.lay == Lay::Splat) {
    // A scalar store (`tl.store(y + row, tl.sum(x))`), or a uniform tensor's (every element the
    // same pointer, value and mask: `tl.store(s + pid + tl.arange(0, 1), ...)`, one write):
    // every thread holds the value; one thread per warpgroup writes it. The pointer is a
    // kernel's void* or a computed `T* const`.
    const Val& x = L.val(o.operands.at(1), o.id);
    auto uniform = [](const Val& v) { return v.lay == Lay::Scalar || v.lay == Lay::Splat; };
    if (!uniform(x)) c.fail(o.id, "a store through a scalar pointer needs a scalar value");
    if (p.cty.empty() || p.cty.back() != '*')
      c.fail(o.id, "internal: a scalar pointer without a type");
    auto text = [&](const Val& v) { return v.lay == Lay::Scalar ? R(v.storage) : splat_text(v); };
    Text cond = "thread_idx_in_warpgroup() == 0";
    if (o.operands.size() > 2) {
      const Val& m = L.val(o.operands[2], o.id);
      if (!uniform(m)) c.fail(o.id, "a store through one pointer needs one mask value");
      cond += " && " + text(m);
    }
    out.body.push_back(
        code("if (" + cond + ") *static_cast<" + p.cty + ">(" + text(p) + ") = " + text(x) + ";",
             c.note(o.id) + ": one thread per warpgroup"));
    out.body.back().global_write = true;
    return;
  }
  if (p.lay != Lay::BTile) c.fail(o.id, "the pointers of a store must be a tensor of pointers");
  Val data = p;  // the stored elements' layout is the pointers'
  data.cty = p.cty.substr(0, p.cty.size() - 1);
  const Text x = adapter(L, o.operands.at(1), p, o.id);
  const Text mask =
      o.operands.size() > 2 ? adapter(L, o.operands[2], p, o.id) : Text("bsplat(true)");
  const int run = run_of(p, data);
  out.body.push_back(
      code("bstore<" + S(run) + ">(" + R(p.storage) + ", " + x + ", " + mask + ");", c.note(o.id)));
  out.body.back().global_write = true;
}

}  // namespace

// The adapter through which a blocked result of layout `res` reads operand `value`.
Text adapter(const Lower& L, int value, const Val& res, int op) {
  const Val& v = L.val(value, op);
  if (v.blk_trans)
    L.c.fail(op, "operand %" + L.c.f.value(value).name +
                     " is a transposed tile (tt.trans), which only a ttg.convert_layout reads");
  if (v.lay == Lay::Splat) return "bsplat(" + splat_text(v) + ")";
  const BLayout &a = v.blay, &r = res.blay;
  bool ok = false;
  std::string t;
  switch (res.lay) {
    case Lay::BTile:
      if (v.lay == Lay::BTile) ok = rows_match(a, r) && cols_match(a, r), t = "btile";
      if (v.lay == Lay::BRowB) ok = rows_match(a, r), t = "brow";
      if (v.lay == Lay::BColB) ok = cols_match(a, r), t = "bcol";
      break;
    case Lay::BRow:
      if (v.lay == Lay::BRow) ok = rows_match(a, r), t = "brow";
      break;
    case Lay::BCol:
      if (v.lay == Lay::BCol) ok = cols_match(a, r), t = "bcol";
      break;
    default:
      break;
  }
  if (!ok)
    L.c.fail(op, "operand %" + L.c.f.value(value).name +
                     ": its layout does not match the result's (a layout conversion is missing)");
  if (v.lazy) {  // read where used (lazy_loads.cpp): this thread's elements, from memory
    if (t == "btile") L.c.fail(op, "internal: a read-at-use vector used as a tile");
    return t + "_at<" + v.blay.text() + ">(" + R(v.storage) + ")";
  }
  return t + "(" + R(v.storage) + ")";
}

// The longest run of column slots a pointer tile moves as one vector: a power of two dividing S1,
// at most 16 bytes, within the proven contiguity.
int run_of(const Val& p, const Val& data) {
  const int bytes = cty_bytes(data.cty);
  int run = 1;
  while (run * 2 <= p.contig && data.blay.S1 % (run * 2) == 0 && run * 2 * bytes <= 16) run *= 2;
  return run;
}

Stmt reduce_col_partial(Lower& L, const Val& v, int op) {
  Ctx& c = L.c;
  const BLayout& l = v.blay;
  const Text scr =
      l.W0 > 1 ? scratch(c, 1LL * l.C * l.W0 * cty_bytes(v.cty), v.cty) : Text("nullptr");
  return code("bcol_partial_reduce(" + R(v.storage) + ", " + lambda_text(2, v.cty, "x0 + x1") +
                  ", " + scr + ", " + blocked_bar(c) + ");",
              c.note(op) + " reads a deferred column sum: reduced here");
}

namespace {
void lower_blocked_op(Lower& L, const ttgir::Op& o, Lowered& out) {
  const std::string& n = o.name;
  if (n == "arith.constant") return b_constant(L, o, out);
  if (n == "tt.splat") return b_splat(L, o, out);
  if (n == "tt.make_range") return b_range(L, o, out);
  if (n == "tt.expand_dims") return b_expand_dims(L, o, out);
  if (n == "tt.broadcast") return b_broadcast(L, o, out);
  if (n == "ttg.convert_layout") return b_convert(L, o, out);
  if (n == "tt.trans") return b_trans(L, o, out);
  if (n == "tt.reduce") return b_reduce(L, o, out);
  if (n == "tt.scan") return b_scan(L, o, out);
  if (n == "tt.load") return b_load(L, o, out);
  if (n == "tt.store") return b_store(L, o, out);
  if (n == "tt.atomic_rmw") return lower_atomic(L, o, out);
  if (n == "tt.extern_elementwise") check_extern(L.c, o);
  if (!float_element_fn(o).empty() || n == "tt.addptr" || n == "arith.extf" ||
      n == "arith.truncf" || n.rfind("arith.", 0) == 0 || n == "tt.mulhiui" || n == "tt.bitcast" ||
      n == "tt.fp_to_fp")
    return b_elementwise(L, o, out);
  L.c.fail(o.id, "no lowering of this op for blocked tensors");
}
}  // namespace

void lower_blocked(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (L.c.folded_ops.count(o.id) != 0) {
    // Pointer arithmetic only loads from affine addresses read (lazy_loads.cpp): its value
    // model alone.
    Lowered none;
    lower_blocked_op(L, o, none);
    out.body.push_back(comment(L.c.note(o.id) + ": folded into the loads from affine addresses"));
    return;
  }
  lower_blocked_op(L, o, out);
}

}  // namespace sched2cu::emit
