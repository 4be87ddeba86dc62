// The value model of the current role (docs/emitter.md, "Register values and layouts"): layouts
// derived from TTGIR encodings, C++ register types, and the operand adapters through which an
// elementwise op reads each operand at the result's elements. Also the op-table driver.
#include <optional>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

Lowered Lower::lower(int op) {
  const ttgir::Op& o = c.op(op);
  const auto& t = op_table();
  auto it = t.find(o.name);
  if (it == t.end()) c.fail(op, "no lowering for this op (not in the emitter's op table)");
  Lowered out;
  // A deferred quad sum read by an op that needs its value: reduce it across the quad, in place,
  // once (every view of the same variable sees the reduced value afterwards).
  const bool makes_partial = !o.results.empty() && (c.quad_partials.count(o.results[0]) != 0 ||
                                                    c.col_partials.count(o.results[0]) != 0);
  for (int v : o.operands) {
    auto vi = vals.find(v);
    if (makes_partial || vi == vals.end() || !vi->second.partial) continue;
    const int st = vi->second.storage;
    if (vi->second.lay == Lay::BCol) {
      // Placed by plan_col_partials outside the loop the sum accumulates in.
      out.body.push_back(reduce_col_partial(*this, vi->second, op));
    } else {
      if (c.loop_of_op(op) >= 0)
        c.fail(op, "internal: a deferred quad sum is needed inside a scheduled loop");
      out.body.push_back(
          code("row_quad_reduce(" + R(st) + ", [](float x0, float x1) { return x0 + x1; });",
               c.note(op) + " reads a deferred quad sum: reduced here"));
    }
    for (auto& [id, x] : vals)
      if (x.storage == st) x.partial = false;
  }
  materialize_smem_tiles(*this, o, out);
  if (acc_expr_op(*this, o))
    lower_acc_expr(*this, o, out);
  else if (blocked_op(*this, o))
    lower_blocked(*this, o, out);
  else
    it->second(*this, o, out);
  return out;
}

const Val& Lower::val(int value, int op) const {
  auto it = vals.find(value);
  if (it == vals.end())
    c.fail(op, "operand %" + c.f.value(value).name + " has no lowered value in role " + r.name);
  return it->second;
}

int Lower::split_rows(int rows, int op) const {
  if (r.split_dim < 0) return rows;
  if (r.split_dim != 0)
    c.fail(op, "a role split along dim " + S(r.split_dim) + " is not implemented");
  if (rows % r.split_parts != 0) c.fail(op, "tile rows do not split evenly across warpgroups");
  return rows / r.split_parts;
}

bool has_mma_parent(const Ctx& c, const ttgir::Type& t) {
  const ttgir::Attribute* p = c.m.encoding_param(t, "parent");
  if (p == nullptr) return false;
  const ttgir::Attribute& rp = c.m.resolve(*p);
  return rp.kind == ttgir::Attribute::Kind::Dialect && rp.text == "ttg.nvidia_mma";
}

int mma_col_warps(const Ctx& c, const ttgir::Type& t, int op) {
  const ttgir::Attribute* w = c.m.encoding_param(t, "warpsPerCTA");
  const auto wpc = w ? w->as_int_array() : std::vector<int64_t>{};
  if (wpc.size() != 2) c.fail(op, "an #nvidia_mma layout without a rank-2 warpsPerCTA");
  if (wpc[1] > 1 && wpc[0] != 4)
    c.fail(op, "an #nvidia_mma layout with warpsPerCTA [" + S(wpc[0]) + ", " + S(wpc[1]) +
                   "]: a column split needs whole warpgroups along the rows ([4, n])");
  return static_cast<int>(wpc[1]);
}

namespace {

// The bases of one #ttg.linear sub-layout ("register", "lane", ...) as integer pairs; nullopt when
// absent or not pairs.
std::optional<std::vector<std::vector<int64_t>>> linear_bases(const Ctx& c, const ttgir::Type& t,
                                                              const char* key) {
  const ttgir::Attribute* a = c.m.encoding_param(t, key);
  if (a == nullptr || a->kind != ttgir::Attribute::Kind::Array) return std::nullopt;
  std::vector<std::vector<int64_t>> out;
  for (const auto& e : a->elems) {
    if (e.kind != ttgir::Attribute::Kind::Array) return std::nullopt;
    out.push_back(e.as_int_array());
  }
  return out;
}

}  // namespace

bool is_acc_linear(const Ctx& c, const ttgir::Type& t) {
  // The accumulator layout of a [R, C] tile with its warps along the rows, written as a
  // #ttg.linear (what Triton leaves on a tl.split of an accumulator's column halves): register
  // bits pick the column pair and the row half, then the 8-column groups; lanes the column pair
  // and the row within 8; warps 16-row slabs (acc_row / acc_col of runtime/sched2cu/regtile.cuh).
  if (c.m.encoding_kind(t) != "ttg.linear" || t.shape.size() != 2) return false;
  const int64_t rows = t.shape[0], cols = t.shape[1];
  auto pow2 = [](int64_t x) { return x > 0 && (x & (x - 1)) == 0; };
  if (!pow2(rows) || !pow2(cols) || rows < 64 || cols < 8 || cols > 256) return false;
  std::vector<std::vector<int64_t>> reg = {{0, 1}, {8, 0}}, warp;
  for (int64_t x = 8; x < cols; x *= 2) reg.push_back({0, x});
  for (int64_t x = 16; x < rows; x *= 2) warp.push_back({x, 0});
  const std::vector<std::vector<int64_t>> lane = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  const auto block = linear_bases(c, t, "block");
  return linear_bases(c, t, "register") == reg && linear_bases(c, t, "lane") == lane &&
         linear_bases(c, t, "warp") == warp && block && block->empty();
}

Val Lower::from_type(int value, int op) const {
  const ttgir::Type& t = c.type(value);
  Val v;
  v.storage = value;
  v.partial = c.quad_partials.count(value) != 0;
  using K = ttgir::Type::Kind;
  if (t.is_scalar()) {
    v.lay = Lay::Scalar;
    v.elem = t.name;
    if (t.kind == K::Ptr) v.cty = scalar_ctype(c, t, op);
    return v;
  }
  if (t.kind == K::MemDesc) {
    v.lay = Lay::Smem;
    return v;
  }
  if (t.kind == K::TensorDesc) {
    v.lay = Lay::Desc;
    return v;
  }
  if (t.kind != K::Tensor) c.fail(op, "type " + t.str() + " has no register lowering");
  if (is_blocked_type(c, t)) return blocked_val(c, value, op);
  v.elem = t.element_type().name;
  const std::string kind = c.m.encoding_kind(t);
  if ((kind == "ttg.nvidia_mma" && t.shape.size() == 2) || is_acc_linear(c, t)) {
    v.lay = Lay::Acc;
    const int wc = kind == "ttg.nvidia_mma" ? mma_col_warps(c, t, op) : 1;
    if (wc > 1) {
      // Warpgroups side by side along the columns (warpsPerCTA [4, wc]; a warpgroup's four warps
      // are consecutive along the rows): warpgroup k holds every row and columns
      // [k * cols, (k + 1) * cols).
      if (r.split_parts != wc || r.pingpong)
        c.fail(op, "an accumulator tile split over " + S(wc) +
                       " warpgroups along its columns needs a cooperative role of as many "
                       "warpgroups (role " +
                       r.name + " has " + S(r.split_parts) + ")");
      if (t.shape[1] % wc != 0) c.fail(op, "the tile's columns do not split evenly");
      v.rows = static_cast<int>(t.shape[0]);
      v.cols = static_cast<int>(t.shape[1] / wc);
      v.col_parts = wc;
    } else {
      v.rows = split_rows(static_cast<int>(t.shape[0]), op);
      v.cols = static_cast<int>(t.shape[1]);
    }
    if (v.rows % 64 != 0 || v.cols % 8 != 0 || v.cols > 256)
      c.fail(op,
             "an accumulator-layout tile needs rows per warpgroup % 64 == 0 and columns % 8 "
             "== 0, <= 256; got [" +
                 S(v.rows) + ", " + S(v.cols) + "]");
    return v;
  }
  if ((kind == "ttg.slice" || kind == "ttg.dot_op") && has_mma_parent(c, t)) {
    const ttgir::Attribute* p = c.m.encoding_param(t, "parent");
    const ttgir::Attribute* w = c.m.resolve(*p).get("warpsPerCTA");
    const auto wpc = w ? w->as_int_array() : std::vector<int64_t>{};
    if (wpc.size() == 2 && wpc[1] > 1)
      c.fail(op, kind + " of an accumulator layout split along its columns (warpsPerCTA [" +
                     S(wpc[0]) + ", " + S(wpc[1]) +
                     "]) is not implemented (row and column vectors and register A operands of "
                     "such tiles)");
  }
  if (kind == "ttg.slice" && t.shape.size() == 1 && has_mma_parent(c, t)) {
    const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
    const long long dim = d ? d->as_int() : -1;
    if (dim == 1) {
      v.lay = Lay::Row;
      v.rows = split_rows(static_cast<int>(t.shape[0]), op);
      return v;
    }
    if (dim == 0) {
      v.lay = Lay::Col;
      v.cols = static_cast<int>(t.shape[0]);
      return v;
    }
  }
  if (kind == "ttg.dot_op" && t.shape.size() == 2 && has_mma_parent(c, t)) {
    v.lay = Lay::DotA;
    v.rows = split_rows(static_cast<int>(t.shape[0]), op);
    v.cols = static_cast<int>(t.shape[1]);
    return v;
  }
  c.fail(op, "register layout " + (kind.empty() ? std::string("(none)") : kind) + " of " + t.str() +
                 " is not implemented (the emitter holds #nvidia_mma tiles, their row and column "
                 "slices and dot operands in registers)");
}

std::string Lower::ctype(const Val& v, int op) const {
  if (v.lazy) return "const " + v.cty + "*";  // the address of element 0 (lazy_loads.cpp)
  switch (v.lay) {
    case Lay::Scalar:
      if (!v.cty.empty()) return v.cty;
      return v.elem == "f32"   ? "float"
             : v.elem == "i1"  ? "bool"
             : v.elem == "i64" ? "long long"
                               : "int";
    case Lay::Acc:
      return std::string(v.packed ? "PackedTile<" : "AccTile<") + S(v.rows) + ", " + S(v.cols) +
             ">";
    case Lay::Row:
      return "RowVec<" + S(v.rows) + ">";
    case Lay::Col:
      return "ColVec<" + S(v.cols) + ">";
    case Lay::BTile:
    case Lay::BRow:
    case Lay::BCol:
      return blocked_ctype(v);
    default:
      c.fail(op, "internal: no C++ register type for this value's layout");
  }
}

Text Lower::operand(int value, Lay res, int op) const {
  const Val& v = val(value, op);
  if (box_w == 0) return whole_operand(value, res, op);  // which refuses a staged value
  // One stored box: a staged value is the box's own tile; any other operand is read through its
  // whole-tile adapter at the box's columns (a splat is the same in every box).
  if (res != Lay::Acc)
    c.fail(op, "operand %" + c.f.value(value).name + ": only tile math is evaluated box by box");
  if (v.staged >= 0) return "tile(" + R(v.storage) + ")";
  if (v.lay == Lay::Splat) return whole_operand(value, res, op);
  return "box_cols<" + S(box_w) + ">(" + whole_operand(value, res, op) + ", " + box_ix + ")";
}

Text Lower::whole_operand(int value, Lay res, int op) const {
  const Val& v = val(value, op);
  auto bad = [&](const char* what) {
    c.fail(op, std::string("operand %") + c.f.value(value).name + ": " + what);
  };
  if (v.convert_on_store) bad("a truncated tile is only stored, not computed with");
  if (!v.expr.empty())
    bad("an index or predicate tile of the accumulator layout is read only inside the select "
        "(tl.where) of a float tile or another such tile's math");
  if (v.reg_trans) bad("a transposed register tile is only exchanged through shared memory");
  if (v.staged >= 0)
    bad("a staged epilogue operand exists one stored box at a time: only elementwise math "
        "feeding its store may read it");
  if (v.lay == Lay::Splat)
    return "splat(" + (v.scalar.empty() ? R(v.scalar_value) : Text(v.scalar)) + ")";
  switch (res) {
    case Lay::Acc:
      if (v.lay == Lay::Acc) {
        if (v.elem != "f32") bad("16-bit tiles are widened with arith.extf before arithmetic");
        return v.packed ? "widen<" + v.packed_t + ">(" + R(v.storage) + ")"
                        : "tile(" + R(v.storage) + ")";
      }
      if (v.lay == Lay::RowB) return "row_bcast(" + R(v.storage) + ")";
      if (v.lay == Lay::ColB) return "col_bcast(" + R(v.storage) + ")";
      // A blocked column vector in the accumulator's column layout (blocked.cpp, is_mma_col).
      // A read-at-use vector (lazy_loads.cpp) reads its elements from memory at each use.
      if (v.lay == Lay::BColB && v.blay.mma_col)
        return v.lazy ? "mcol_bcast_at<" + v.blay.text() + ">(" + R(v.storage) + ")"
                      : "mcol_bcast(" + R(v.storage) + ")";
      if (v.lay == Lay::BRowB && v.blay.mma_row)
        return v.lazy ? "mrow_bcast_at<" + v.blay.text() + ">(" + R(v.storage) + ")"
                      : "mrow_bcast(" + R(v.storage) + ")";
      break;
    case Lay::Row:
      if (v.lay == Lay::Row) return "row(" + R(v.storage) + ")";
      break;
    case Lay::Col:
      if (v.lay == Lay::Col) return "col(" + R(v.storage) + ")";
      break;
    default:
      break;
  }
  c.fail(op, "operand %" + c.f.value(value).name +
                 ": its layout does not match the result's (a layout conversion is missing or "
                 "not implemented)");
}

Text Lower::slot_addr(const sgraph::Buffer& b) const {
  if (b.loop < 0) return c.buf_name(b.id);
  return c.buf_name(b.id) + " + Ring<" + S(b.depth) + ">::slot(" + counter_ref(b.loop) + ") * " +
         S(b.bytes) + "u";
}

Access Lower::slot_access(const sgraph::Buffer& b, Access::Engine e, bool write) const {
  Access a;
  a.engine = e;
  a.write = write;
  a.buffer = b.id;
  a.bytes = b.bytes;
  if (b.loop >= 0 && b.ring >= 0) {
    a.ring = c.ring_name(b.loop, b.ring);
    a.depth = b.depth;
    a.index = counter_ref(b.loop);
  }
  return a;
}

Access Lower::staging_access(const sgraph::Buffer& b, Text offset, long long bytes,
                             Access::Engine e, bool write) {
  Access a;
  a.engine = e;
  a.write = write;
  a.buffer = b.id;
  a.offset = std::move(offset);
  a.bytes = bytes;
  return a;
}

const sgraph::Buffer& Lower::smem_of(int value, int op) const {
  const Val& v = val(value, op);
  if (v.lay != Lay::Smem || v.buffer < 0)
    c.fail(op, "operand %" + c.f.value(value).name +
                   " is not a shared-memory buffer of the schedule graph");
  return c.g.buffers.at(static_cast<size_t>(v.buffer));
}

}  // namespace sched2cu::emit
