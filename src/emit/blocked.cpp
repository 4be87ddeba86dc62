// The blocked world of the value model (docs/emitter.md, "Blocked layouts"): register tensors
// in #ttg.blocked layouts and their slices, as the runtime's BTile / BRow / BCol
// (runtime/sched2cu/blocked.cuh). Layouts come from the TTGIR encodings, with one choice of the
// emitter: an encoding that spreads warps along the columns of tiles nobody reduces along the
// rows gets its warps moved to the rows, so that row reductions stay inside a warp (no shared
// memory, no barrier). The op-table entries of optable.cpp and lower_mem.cpp hand every op whose
// values are blocked to the lowerings here. Nothing here reads a schedule decision.
#include <algorithm>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

std::vector<int64_t> ints(const Ctx& c, const ttgir::Attribute& enc, const char* key, int op) {
  const ttgir::Attribute* a = enc.get(key);
  if (a == nullptr) c.fail(op, std::string("blocked layout without ") + key);
  return a->as_int_array();
}

const ttgir::Attribute* resolved_encoding(const Ctx& c, const ttgir::Type& t) {
  return c.m.encoding_of(t);
}

// The blocked parent of a slice layout (nullptr when the parent is not #ttg.blocked).
const ttgir::Attribute* slice_parent(const Ctx& c, const ttgir::Type& t) {
  const ttgir::Attribute* p = c.m.encoding_param(t, "parent");
  if (p == nullptr) return nullptr;
  const ttgir::Attribute& rp = c.m.resolve(*p);
  return rp.kind == ttgir::Attribute::Kind::Dialect && rp.text == "ttg.blocked" ? &rp : nullptr;
}

// The rank-2 tensor values of encoding `key` (a layout choice must suit every one of them).
std::vector<const ttgir::Value*> rank2_of(const Ctx& c, const std::string& key) {
  std::vector<const ttgir::Value*> out;
  for (const auto& v : c.f.values) {
    const ttgir::Type& t = v.type;
    if (t.kind != ttgir::Type::Kind::Tensor || t.shape.size() != 2) continue;
    const ttgir::Attribute* e = resolved_encoding(c, t);
    if (e != nullptr && e->str() == key) out.push_back(&v);
  }
  return out;
}

// Which axes the rank-2 tensors of encoding `key` are reduced along (bit 0: axis 0, bit 1: axis 1).
int reduced_axes(const Ctx& c, const std::string& key) {
  int axes = 0;
  for (const ttgir::Value* v : rank2_of(c, key))
    for (int u : v->users) {
      const ttgir::Op& uo = c.op(u);
      const ttgir::Attribute* ax = uo.attr("axis");
      if (uo.name == "tt.reduce" && ax != nullptr) axes |= 1 << ax->as_int();
    }
  return axes;
}

// Whether every rank-2 tensor of encoding `key` with more than one entry along `dim` covers
// `per` x `n` entries along it (so that `n` warps can be placed there).
bool fits_along(const Ctx& c, const std::string& key, int dim, int64_t per, int n) {
  for (const ttgir::Value* v : rank2_of(c, key)) {
    const int64_t x = v->type.shape[static_cast<size_t>(dim)];
    if (x > 1 && x % (per * n) != 0) return false;
  }
  return true;
}

// The emitter's second choice: an encoding whose tensors go through pointer loads or stores with
// fewer than 16 bytes per thread per run gets wider runs (sizePerThread along the last dimension)
// when every tensor of the encoding still covers whole CTA tiles, so that bload / bstore can move
// 16-byte vectors. Returns the new S1 (or `s1` unchanged).
int widened_s1(const Ctx& c, const ttgir::Attribute& enc, int s1, int t1, int w1) {
  const std::string key = enc.str();
  int min_bytes = 0;
  std::vector<int64_t> lasts;  // last-dimension extents of the encoding's tensors
  for (const auto& v : c.f.values) {
    const ttgir::Type& t = v.type;
    if (t.kind != ttgir::Type::Kind::Tensor || t.shape.empty()) continue;
    const ttgir::Attribute* e = resolved_encoding(c, t);
    if (e == nullptr) continue;
    const bool own = e->str() == key;
    const ttgir::Attribute* parent = own ? nullptr : slice_parent(c, t);
    const ttgir::Attribute* dim = parent ? c.m.encoding_param(t, "dim") : nullptr;
    const bool col_slice = parent && parent->str() == key && dim && dim->as_int() == 0;
    if (!own && !col_slice) continue;
    lasts.push_back(t.shape.back());
    if (!own) continue;
    for (int u : v.users) {
      const ttgir::Op& uo = c.op(u);
      if ((uo.name == "tt.load" || uo.name == "tt.store") && uo.operands.at(0) == v.id) {
        const ttgir::Type& p = t.element_type();
        const int b = p.kind == ttgir::Type::Kind::Ptr && !p.elem.empty()
                          ? std::max(1, p.elem[0].bits / 8)
                          : 0;
        if (b > 0) min_bytes = min_bytes == 0 ? b : std::min(min_bytes, b);
      }
    }
  }
  if (min_bytes == 0 || s1 * min_bytes >= 16) return s1;
  const int want = 16 / min_bytes;
  for (int64_t n : lasts)
    if (n % (static_cast<int64_t>(want) * t1 * w1) != 0) return s1;
  return want;
}

// The lanes along the columns (T1, at most the encoding's) that let all NW warps sit along the
// columns of every tensor of encoding `key` with whole CTA tiles along the rows; 0 if none does.
int lanes_for_columns(const Ctx& c, const std::string& key, const BLayout& b, int NW) {
  for (int t1 = b.T1; t1 >= 1; t1 /= 2)
    if (fits_along(c, key, 1, static_cast<int64_t>(b.S1) * t1, NW) &&
        fits_along(c, key, 0, static_cast<int64_t>(b.S0) * (32 / t1), 1))
      return t1;
  return 0;
}

BLayout params_of(const Ctx& c, const ttgir::Attribute& enc, int op) {
  const auto spt = ints(c, enc, "sizePerThread", op), tpw = ints(c, enc, "threadsPerWarp", op),
             wpc = ints(c, enc, "warpsPerCTA", op);
  BLayout b;
  const int NW = c.blocked_warps;
  b.NW = NW;
  if (spt.size() == 1) {
    // A rank-1 tensor spreads over every warp of its role, whatever the encoding's count.
    b.S1 = static_cast<int>(spt[0]);
    b.T1 = static_cast<int>(tpw[0]);
    b.W0 = 1;
    b.W1 = NW;
    b.S1 = widened_s1(c, enc, b.S1, b.T1, b.W1);
    return b;
  }
  if (spt.size() != 2) c.fail(op, "blocked layouts of rank above 2 are not implemented");
  const auto order = ints(c, enc, "order", op);
  if (order != std::vector<int64_t>{1, 0})
    c.fail(op, "blocked layouts with order other than [1, 0] are not implemented");
  b.S0 = static_cast<int>(spt[0]);
  b.S1 = static_cast<int>(spt[1]);
  b.T0 = static_cast<int>(tpw[0]);
  b.T1 = static_cast<int>(tpw[1]);
  b.W0 = static_cast<int>(wpc[0]);
  b.W1 = static_cast<int>(wpc[1]);
  // The encoding's warps are Triton's for the whole CTA; the role holding the tensor has NW.
  // Reductions decide where they go: rows when nothing reduces along axis 0 (row sums stay in a
  // warp), columns when only axis 0 is reduced, else the encoding's split rescaled.
  const std::string key = enc.str();
  const int axes = reduced_axes(c, key);
  if ((axes & 1) == 0 && fits_along(c, key, 0, int64_t{b.S0} * b.T0, NW)) {
    b.W0 = NW;
    b.W1 = 1;
  } else if (const int t1 = axes == 1 ? lanes_for_columns(c, key, b, NW) : 0; t1 > 0) {
    // Column sums stay in a warp too: warps (and, where needed, lanes) move to the columns.
    b.T1 = t1;
    b.T0 = 32 / t1;
    b.W0 = 1;
    b.W1 = NW;
  } else {
    while (b.W0 * b.W1 > NW) (b.W1 > 1 ? b.W1 : b.W0) /= 2;
    while (b.W0 * b.W1 < NW)
      (fits_along(c, key, 0, int64_t{b.S0} * b.T0, b.W0 * 2) ? b.W0 : b.W1) *= 2;
  }
  b.S1 = widened_s1(c, enc, b.S1, b.T1, b.W1);
  return b;
}

}  // namespace

std::string BLayout::text() const {
  if (mma_row) return "MRowLay<" + S(R) + ", " + S(C) + ">";
  return "BLay<" + S(R) + ", " + S(C) + ", " + S(S0) + ", " + S(S1) + ", " + S(T0) + ", " + S(T1) +
         ", " + S(W0) + ", " + S(W1) + (NW == 4 ? std::string() : ", " + S(NW)) + ">";
}

// A column vector of the accumulator layout held in the blocked world: a 1 x N #nvidia_mma
// tensor (what expand_dims of a column slice gives), or a column slice of a type other than f32
// (index math, masks, pointers, 16-bit loads). Its elements sit where the accumulator's columns
// do: per thread N / 4 columns 8 j + 2 (lane % 4) + {0, 1}, which is BLay S1 = 2, T1 = 4,
// replicated over the other lanes and every warp; f32 column slices that accumulator math
// produces stay ColVec, whose slots are the same.
bool is_mma_col(const Ctx& c, const ttgir::Type& t, bool any_elem) {
  if (t.kind != ttgir::Type::Kind::Tensor) return false;
  const std::string k = c.m.encoding_kind(t);
  if (k == "ttg.nvidia_mma") return t.shape.size() == 2 && t.shape[0] == 1;
  if (k != "ttg.slice" || t.shape.size() != 1 || !has_mma_parent(c, t)) return false;
  const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
  return d != nullptr && d->as_int() == 0 && (any_elem || t.element_type().name != "f32");
}

// A row vector of the accumulator layout held in the blocked world: an N x 1 #nvidia_mma tensor
// (what expand_dims of a row slice gives), or a row slice of a type other than f32 (index math,
// masks, pointers); a row slice of f32 that a pointer load produces is one too (blocked_val),
// while f32 row slices of accumulator math (reductions) stay RowVec, whose slots are the same.
// Its elements sit where the accumulator's rows do, a warpgroup's rows per thread: MRowLay.
bool is_mma_row(const Ctx& c, const ttgir::Type& t, bool any_elem) {
  if (t.kind != ttgir::Type::Kind::Tensor) return false;
  const std::string k = c.m.encoding_kind(t);
  if (k == "ttg.nvidia_mma") return t.shape.size() == 2 && t.shape[1] == 1 && t.shape[0] > 1;
  if (k != "ttg.slice" || t.shape.size() != 1 || !has_mma_parent(c, t)) return false;
  const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
  return d != nullptr && d->as_int() == 1 && (any_elem || t.element_type().name != "f32");
}

bool is_blocked_type(const Ctx& c, const ttgir::Type& t) {
  if (t.kind != ttgir::Type::Kind::Tensor) return false;
  const std::string k = c.m.encoding_kind(t);
  if (k == "ttg.blocked") return true;
  if (is_mma_col(c, t, false) || is_mma_row(c, t, false)) return true;
  return k == "ttg.slice" && slice_parent(c, t) != nullptr;
}

std::string elem_ctype(const Ctx& c, const ttgir::Type& e, int op) {
  using K = ttgir::Type::Kind;
  if (e.kind == K::Integer) {
    if (e.bits == 1) return "bool";
    if (e.bits <= 32) return "int";
    if (e.bits == 64) return "long long";
  }
  if (e.kind == K::Float) {
    if (e.name == "f32") return "float";
    if (e.name == "f16") return "__half";
    if (e.name == "bf16") return "__nv_bfloat16";
    if (e.name == "f8E4M3FN") return "__nv_fp8_e4m3";
    if (e.name == "f8E5M2") return "__nv_fp8_e5m2";
  }
  if (e.kind == K::Ptr && !e.elem.empty()) return elem_ctype(c, e.elem[0], op) + "*";
  c.fail(op, "element type " + e.str() + " has no register lowering in blocked layouts");
}

Val blocked_val(const Ctx& c, int value, int op) {
  const ttgir::Type& t = c.type(value);
  Val v;
  v.storage = value;
  v.elem = t.element_type().name;
  v.cty = elem_ctype(c, t.element_type(), op);
  const std::string k = c.m.encoding_kind(t);
  BLayout b;
  if (is_mma_row(c, t, true)) {
    // A warpgroup's rows: the tensor's rows split as the role splits its accumulator tiles.
    const int parts = c.blocked_role >= 0 ? std::max(1, c.role(c.blocked_role).split_parts) : 1;
    const auto rows = static_cast<int>(t.shape[0]);
    if (rows % parts != 0 || (rows / parts) % 64 != 0)
      c.fail(op, "a row vector of the accumulator layout needs 64-row slabs per warpgroup (" +
                     S(rows) + " rows over " + S(parts) + " warpgroups)");
    b.R = rows / parts;
    b.S0 = 2;
    b.S1 = 1;
    b.T0 = 8;
    b.T1 = 4;
    b.W0 = 4;
    b.W1 = 1;
    b.NW = 4;
    b.mma_row = true;
    b.C = t.shape.size() == 2 ? 1 : 4;
    v.lay = t.shape.size() == 2 ? Lay::BTile : Lay::BRow;
    v.blay = b;
    return v;
  }
  if (is_mma_col(c, t, true)) {
    b.S0 = 1;
    b.S1 = 2;
    b.T0 = 8;
    b.T1 = 4;
    b.W0 = c.blocked_warps;
    b.W1 = 1;
    b.NW = c.blocked_warps;
    b.C = static_cast<int>(t.shape.back());
    if (b.C % 8 != 0) c.fail(op, "a column vector of the accumulator layout needs N % 8 == 0");
    b.mma_col = true;
    if (t.shape.size() == 2) {
      b.R = 1;
      v.lay = Lay::BTile;
    } else {
      b.R = b.ct0();
      v.lay = Lay::BCol;
    }
  } else if (k == "ttg.blocked") {
    b = params_of(c, *resolved_encoding(c, t), op);
    if (t.shape.size() == 1) {
      b.C = static_cast<int>(t.shape[0]);
    } else {
      b.R = static_cast<int>(t.shape[0]);
      b.C = static_cast<int>(t.shape[1]);
    }
    v.lay = Lay::BTile;
  } else {
    const ttgir::Attribute* parent = slice_parent(c, t);
    if (parent == nullptr || t.shape.size() != 1)
      c.fail(op, "slice layout " + t.str() + " has no blocked lowering");
    b = params_of(c, *parent, op);
    const ttgir::Attribute* d = c.m.encoding_param(t, "dim");
    const long long dim = d ? d->as_int() : -1;
    // The dimension a slice drops is canonically one CTA tile long: vectors of one encoding share
    // one C++ type whatever the parent's shape.
    if (dim == 1) {
      v.lay = Lay::BRow;
      b.R = static_cast<int>(t.shape[0]);
      b.C = b.S1 * b.T1 * b.W1;
    } else if (dim == 0) {
      v.lay = Lay::BCol;
      b.C = static_cast<int>(t.shape[0]);
      b.R = b.S0 * b.T0 * b.W0;
    } else {
      c.fail(op, "slice of dim " + S(dim) + " is not implemented");
    }
  }
  auto tiles = [](int n, int ct) { return n % ct == 0 || ct % n == 0; };
  if (!tiles(b.R, b.S0 * b.T0 * b.W0) || !tiles(b.C, b.S1 * b.T1 * b.W1))
    c.fail(op, "tensor " + t.str() + " neither tiles nor replicates its layout's CTA tile");
  v.blay = b;
  v.partial = c.col_partials.count(value) != 0;
  return v;
}

std::string blocked_ctype(const Val& v) {
  const char* k = v.lay == Lay::BTile ? "BTile<" : v.lay == Lay::BRow ? "BRow<" : "BCol<";
  return k + v.cty + ", " + v.blay.text() + ">";
}

// Whether two values' elements sit in the same threads and slots (a convert_layout between them
// moves nothing).
bool same_distribution(const Val& a, const Val& b) {
  if (a.lay != b.lay || a.blay.mma_row != b.blay.mma_row) return false;
  const BLayout &x = a.blay, &y = b.blay;
  const bool rows = x.R == y.R && x.S0 == y.S0 && x.T0 == y.T0 && x.W0 == y.W0;
  const bool cols = x.C == y.C && x.S1 == y.S1 && x.T1 == y.T1 && x.W1 == y.W1;
  // The lane and warp split must match too: T1 and W1 fix T0 and W0.
  if (a.lay == Lay::BRow) return x.R == y.R && x.S0 == y.S0 && x.T0 == y.T0 && x.W0 == y.W0;
  if (a.lay == Lay::BCol) return x.C == y.C && x.S1 == y.S1 && x.T1 == y.T1 && x.W1 == y.W1;
  return rows && cols;
}

}  // namespace sched2cu::emit
