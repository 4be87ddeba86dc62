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

// Whether the emitter moves encoding `enc`'s warps from the columns to the rows: every rank-2
// tensor of the encoding with more than one row has rows for four warps, and none is reduced
// along axis 0 (which would then cross warps instead).
bool warps_to_rows(const Ctx& c, const ttgir::Attribute& enc, int op) {
  const auto spt = ints(c, enc, "sizePerThread", op), tpw = ints(c, enc, "threadsPerWarp", op),
             wpc = ints(c, enc, "warpsPerCTA", op);
  if (wpc.size() != 2 || wpc[1] == 1) return false;
  const std::string key = enc.str();
  for (const auto& v : c.f.values) {
    const ttgir::Type& t = v.type;
    if (t.kind != ttgir::Type::Kind::Tensor || t.shape.size() != 2) continue;
    const ttgir::Attribute* e = resolved_encoding(c, t);
    if (e == nullptr || e->str() != key) continue;
    if (t.shape[0] > 1 && t.shape[0] % (spt[0] * tpw[0] * 4) != 0) return false;
    for (int u : v.users) {
      const ttgir::Op& uo = c.op(u);
      const ttgir::Attribute* ax = uo.attr("axis");
      if (uo.name == "tt.reduce" && ax != nullptr && ax->as_int() == 0) return false;
    }
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

BLayout params_of(const Ctx& c, const ttgir::Attribute& enc, int op) {
  const auto spt = ints(c, enc, "sizePerThread", op), tpw = ints(c, enc, "threadsPerWarp", op),
             wpc = ints(c, enc, "warpsPerCTA", op);
  BLayout b;
  int64_t warps = 1;
  for (int64_t w : wpc) warps *= w;
  if (warps != 4)
    c.fail(op, "blocked layouts over " + S(warps) +
                   " warps are not implemented (one warpgroup of 4 warps holds a blocked tensor)");
  if (spt.size() == 1) {
    b.S1 = static_cast<int>(spt[0]);
    b.T1 = static_cast<int>(tpw[0]);
    b.W1 = static_cast<int>(wpc[0]);
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
  if (warps_to_rows(c, enc, op)) {
    b.W0 = 4;
    b.W1 = 1;
  }
  b.S1 = widened_s1(c, enc, b.S1, b.T1, b.W1);
  return b;
}

}  // namespace

std::string BLayout::text() const {
  return "BLay<" + S(R) + ", " + S(C) + ", " + S(S0) + ", " + S(S1) + ", " + S(T0) + ", " + S(T1) +
         ", " + S(W0) + ", " + S(W1) + ">";
}

bool is_blocked_type(const Ctx& c, const ttgir::Type& t) {
  if (t.kind != ttgir::Type::Kind::Tensor) return false;
  const std::string k = c.m.encoding_kind(t);
  if (k == "ttg.blocked") return true;
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
  if (k == "ttg.blocked") {
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
  return v;
}

std::string blocked_ctype(const Val& v) {
  const char* k = v.lay == Lay::BTile ? "BTile<" : v.lay == Lay::BRow ? "BRow<" : "BCol<";
  return k + v.cty + ", " + v.blay.text() + ">";
}

// Whether two values' elements sit in the same threads and slots (a convert_layout between them
// moves nothing).
bool same_distribution(const Val& a, const Val& b) {
  if (a.lay != b.lay) return false;
  const BLayout &x = a.blay, &y = b.blay;
  const bool rows = x.R == y.R && x.S0 == y.S0 && x.T0 == y.T0 && x.W0 == y.W0;
  const bool cols = x.C == y.C && x.S1 == y.S1 && x.T1 == y.T1 && x.W1 == y.W1;
  // The lane and warp split must match too: T1 and W1 fix T0 and W0.
  if (a.lay == Lay::BRow) return x.R == y.R && x.S0 == y.S0 && x.T0 == y.T0 && x.W0 == y.W0;
  if (a.lay == Lay::BCol) return x.C == y.C && x.S1 == y.S1 && x.T1 == y.T1 && x.W1 == y.W1;
  return rows && cols;
}

}  // namespace sched2cu::emit
