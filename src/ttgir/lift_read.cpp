// The reading half of lifting pointer tiles (lift_read.h; docs/ttgir.md, "Pointer tiles lifted
// to descriptors"): a pointer tile as base + Σ_d index_d · stride_d with index_d = [start +]
// arange(0, n) [% wrap], a mask as a conjunction of `index < bound` per dimension, a
// loop-carried pointer's update as a step along one dimension. Must never accept what it cannot
// prove equal to a tensor-map access; never edits the IR.
#include "lift_read.h"

#include <algorithm>

namespace sched2cu::ttgir::lift {

std::optional<int64_t> TileReader::const_int(ValueId v) const {
  const Op* d = def(v);
  if (d == nullptr || d->name != "arith.constant") return std::nullopt;
  const Attribute* a = d->attr("value");
  if (a == nullptr) return std::nullopt;
  if (a->kind == Attribute::Kind::Integer) return a->ival;
  if (a->kind == Attribute::Kind::Dense && a->elems.size() == 1 &&
      a->elems[0].kind == Attribute::Kind::Integer)
    return a->elems[0].ival;
  return std::nullopt;
}

ValueId TileReader::narrow(ValueId v) const { return f_.through_sign_extensions(v); }

ValueId TileReader::splat_of(ValueId v) const {
  const Op* d = def(narrow(v));
  if (d != nullptr && d->name == "tt.splat") return narrow(d->operands.at(0));
  return kNoId;
}

Index TileReader::index(ValueId v) const {
  const Op* d = def(narrow(v));
  if (d == nullptr) throw Fail{"the index " + name(v) + " is not computed in the kernel"};
  if (d->name == "tt.make_range") {
    const Attribute *st = d->attr("start"), *en = d->attr("end");
    if (st == nullptr || en == nullptr || st->ival != 0)
      throw Fail{"a tl.arange that does not start at 0"};
    return Index{kNoId, en->ival, kNoId};
  }
  if (d->name == "arith.addi") {
    for (int k = 0; k < 2; ++k) {
      const ValueId s = splat_of(d->operands.at(k));
      if (s == kNoId) continue;
      Index i = index(d->operands.at(1 - k));
      if (i.start != kNoId || i.wrap != kNoId) break;
      i.start = s;
      return i;
    }
    throw Fail{"an index that is not `start + tl.arange(0, n)`"};
  }
  if (d->name == "arith.remsi") {
    const ValueId w = splat_of(d->operands.at(1));
    Index i = index(d->operands.at(0));
    if (w == kNoId || i.wrap != kNoId) throw Fail{"an index taken modulo a non-scalar"};
    i.wrap = w;
    return i;
  }
  throw Fail{"an index computed by " + d->name + " (only start + tl.arange(0, n), % n)"};
}

void TileReader::offsets(ValueId v, std::vector<Term>& out) const {
  const Op* d = def(narrow(v));
  if (d == nullptr) throw Fail{"an offset that is not computed in the kernel"};
  if (d->name == "tt.broadcast") return offsets(d->operands.at(0), out);
  if (d->name == "tt.splat") {  // a scalar added to every element (dim -1)
    out.push_back(Term{-1, Index{narrow(d->operands.at(0)), 0, kNoId}, kNoId});
    return;
  }
  if (d->name == "tt.expand_dims") {
    const Attribute* ax = d->attr("axis");
    if (ax == nullptr) throw Fail{"expand_dims without an axis"};
    out.push_back(Term{ax->ival == 1 ? 0 : 1, index(d->operands.at(0)), kNoId});
    return;
  }
  if (d->name == "arith.muli") {
    for (int k = 0; k < 2; ++k) {
      const ValueId s = splat_of(d->operands.at(k));
      if (s == kNoId) continue;
      std::vector<Term> t;
      offsets(d->operands.at(1 - k), t);
      if (t.size() != 1 || t[0].stride != kNoId) break;
      t[0].stride = s;
      out.push_back(t[0]);
      return;
    }
    throw Fail{"an offset multiplied by something other than one scalar stride"};
  }
  if (d->name == "arith.addi") {
    offsets(d->operands.at(0), out);
    offsets(d->operands.at(1), out);
    return;
  }
  throw Fail{"an offset computed by " + d->name};
}

ValueId TileReader::pointer(ValueId v, std::vector<Term>& out) const {
  const Op* d = def(v);
  if (d == nullptr) throw Fail{"the pointer tile is not computed in the kernel"};
  if (d->name == "tt.splat") {
    const ValueId b = d->operands.at(0);
    if (std::find(f_.args.begin(), f_.args.end(), b) == f_.args.end())
      throw Fail{"the base pointer " + name(b) + " is not a kernel argument"};
    return b;
  }
  if (d->name == "tt.broadcast") return pointer(d->operands.at(0), out);
  if (d->name == "tt.addptr") {
    const ValueId b = pointer(d->operands.at(0), out);
    offsets(d->operands.at(1), out);
    return b;
  }
  throw Fail{"the pointer tile is computed by " + d->name};
}

void TileReader::mask(ValueId v, std::vector<Cond>& out) const {
  const Op* d = def(v);
  if (d == nullptr) throw Fail{"the mask is not computed in the kernel"};
  if (d->name == "tt.broadcast") return mask(d->operands.at(0), out);
  if (d->name == "arith.andi") {
    mask(d->operands.at(0), out);
    mask(d->operands.at(1), out);
    return;
  }
  if (d->name == "arith.cmpi") {
    const Attribute* p = d->attr("predicate");
    const std::string pred = p == nullptr ? "" : p->text;
    ValueId lhs = d->operands.at(0), rhs = d->operands.at(1);
    if (pred == "sgt") std::swap(lhs, rhs);
    const ValueId bound = splat_of(rhs);
    if ((pred == "slt" || pred == "sgt") && bound != kNoId) {
      std::vector<Term> t;
      offsets(lhs, t);
      // `index + scalar`: the scalar starts the index (one that has no start of its own).
      if (t.size() == 2 && t[0].dim < 0) std::swap(t[0], t[1]);
      if (t.size() == 2 && t[1].dim < 0 && t[0].dim >= 0 && t[0].idx.start == kNoId &&
          t[0].idx.wrap == kNoId) {
        t[0].idx.start = t[1].idx.start;
        t.pop_back();
      }
      if (t.size() == 1 && t[0].dim >= 0 && t[0].stride == kNoId) {
        out.push_back(Cond{t[0].dim, t[0].idx, bound});
        return;
      }
    }
  }
  throw Fail{"a mask term that is not `index < bound` along one dimension"};
}

// A loop-carried pointer's update `p + inc`: inc = c · stride_d steps dimension d by c; with the
// columns contiguous, a plain inc steps the columns.
void TileReader::step(Tile& t, ValueId inc) const {
  ValueId s = splat_of(inc);
  if (s == kNoId) {
    if (const auto c = const_int(inc)) {
      t.step_dim = 1;
      t.step_const = *c;
      return;
    }
    throw Fail{"the pointer advances by a tile that is not one scalar"};
  }
  const Op* d = def(s);
  for (int dim = 0; dim < 2; ++dim) {  // c · stride_d, or stride_d itself
    const ValueId st = dim == 0 ? t.row_stride : t.col_stride;
    if (st == kNoId) continue;
    if (d != nullptr && d->name == "arith.muli")
      for (int k = 0; k < 2; ++k)
        if (narrow(d->operands.at(k)) == st) {
          t.step_dim = dim;
          t.step = narrow(d->operands.at(1 - k));
          return;
        }
    if (s == st) {
      t.step_dim = dim;
      t.step_const = 1;
      return;
    }
  }
  t.step_dim = 1;
  t.step = s;
}

// The extent of each dimension: the bound of its mask term, or the modulus of a wrapped index.
void TileReader::bound(Tile& t, const std::vector<Cond>& conds, bool is_load) const {
  const ForLoop* L = nullptr;
  ForLoop loop;
  if (t.loop != kNoId) {
    loop = f_.for_loop(t.loop);
    L = &loop;
  }
  for (int d = 0; d < 2; ++d) {
    const Cond* c = nullptr;
    for (const auto& x : conds)
      if (x.dim == d) {
        if (c != nullptr) throw Fail{"two mask terms bound dimension " + std::to_string(d)};
        c = &x;
      }
    const Index& ix = t.idx[d];
    if (c == nullptr) {
      // A wrap bounds only the first iteration's index: a pointer stepped past it reads on.
      if (ix.wrap != kNoId && t.step_dim == d)
        throw Fail{"a wrapped index (% n) along the dimension the pointer steps"};
      if (ix.wrap == kNoId || !is_load)
        throw Fail{std::string(d == 0 ? "rows" : "columns") +
                   " have no bound (a mask `offs < n` or an index `% n`): a tensor map needs "
                   "the tensor's extent"};
      t.extent[d] = ix.wrap;
      continue;
    }
    if (ix.wrap != kNoId) throw Fail{"an index both wrapped (% n) and masked"};
    if (t.step_dim != d) {
      if (!(c->idx == ix)) throw Fail{"a mask whose index differs from the pointer's"};
      t.extent[d] = c->bound;
      continue;
    }
    // Stepped dimension: `[start +] arange < bound - offset` or `arange + offset < bound`, the
    // offset this iteration's step sum. A start (split-K's `pid_k * BLOCK_K + arange`) is the
    // first iteration's coordinate: `start + arange < bound - offset` is `start + offset + arange
    // < bound`, the global index against the extent.
    if (L == nullptr) throw Fail{"a stepped dimension outside a loop"};
    const auto same = [&](ValueId a, ValueId b, int64_t bc) {
      if (a == kNoId) return const_int(b) == bc;
      return a == b || (const_int(a) && const_int(a) == const_int(b));
    };
    const bool lb0 = const_int(L->lb) == 0;
    const auto step_sum = [&](ValueId off) {
      bool ok = off == L->iv && lb0 && same(t.step, L->step, t.step_const);
      if (const Op* mo = def(off);
          mo != nullptr && mo->name == "arith.muli" && lb0 && const_int(L->step) == 1)
        for (int k = 0; k < 2; ++k)
          ok |= narrow(mo->operands.at(k)) == L->iv &&
                same(t.step, narrow(mo->operands.at(1 - k)), t.step_const);
      return ok;
    };
    const Op* sub = def(c->bound);
    if (c->idx == ix && sub != nullptr && sub->name == "arith.subi" &&
        step_sum(narrow(sub->operands.at(1)))) {
      t.extent[d] = narrow(sub->operands.at(0));
    } else if (ix.start == kNoId && c->idx.start != kNoId && step_sum(c->idx.start)) {
      t.extent[d] = c->bound;
    } else {
      throw Fail{
          "the mask of the stepped dimension is not `[start +] tl.arange(0, n) < bound - k * "
          "step` or `tl.arange(0, n) + k * step < bound`"};
    }
  }
  for (int d = 0; d < 2; ++d)
    if (const Op* e = def(t.extent[d]); e != nullptr && f_.enclosing_for(e->id) != kNoId)
      throw Fail{"the extent " + name(t.extent[d]) + " is computed inside a loop"};
}

Tile TileReader::analyze(OpId op, bool is_load) const {
  const Op& o = f_.op(op);
  Tile t;
  t.op = op;
  const ValueId ptr = o.operands.at(0);
  const Type& pt = f_.value(ptr).type;
  if (pt.kind != Type::Kind::Tensor || pt.shape.size() != 2) throw Fail{"not a 2-D pointer tile"};
  t.shape = pt.shape;
  if (pt.element_type().elem.empty()) throw Fail{"not a tile of typed pointers"};
  t.elem = pt.element_type().elem[0].str();
  t.bits = pt.element_type().elem[0].bits;
  std::vector<Term> terms;
  const Value& pv = f_.value(ptr);
  ValueId inc = kNoId;
  if (pv.def_op == kNoId && pv.owner_op != kNoId && f_.op(pv.owner_op).name == "scf.for") {
    const ForLoop L = f_.for_loop(pv.owner_op);
    const size_t k = static_cast<size_t>(pv.arg_index - 1);
    const Op* y = def(L.yielded.at(k));
    if (y == nullptr || y->name != "tt.addptr" || y->operands.at(0) != ptr)
      throw Fail{"the loop-carried pointer is not advanced by `ptrs += step`"};
    inc = y->operands.at(1);
    t.loop = pv.owner_op;
    t.base = pointer(L.inits.at(k), terms);
  } else {
    t.base = pointer(ptr, terms);
    t.loop = f_.enclosing_for(op);
  }
  if (terms.size() != 2 || terms[0].dim < 0 || terms[1].dim < 0 || terms[0].dim == terms[1].dim)
    throw Fail{"the pointer tile is not `base + rows * stride + cols`"};
  for (const auto& x : terms) t.idx[x.dim] = x.idx;
  const Term& rows = terms[0].dim == 0 ? terms[0] : terms[1];
  const Term& cols = terms[0].dim == 1 ? terms[0] : terms[1];
  if (cols.stride != kNoId) {
    // A stride given at launch: the launcher checks it is 1 (a tensor map reads the last
    // dimension contiguous); anything computed in the kernel is refused.
    if (std::find(f_.args.begin(), f_.args.end(), cols.stride) == f_.args.end())
      throw Fail{"the columns' stride " + name(cols.stride) +
                 " is computed in the kernel: a tensor map reads the last dimension contiguous "
                 "(stride 1)"};
    t.col_stride = cols.stride;
  }
  if (rows.stride == kNoId) throw Fail{"the rows' stride is the constant 1"};
  t.row_stride = rows.stride;
  if (inc != kNoId) step(t, inc);
  std::vector<Cond> conds;
  const size_t mask_at = is_load ? 1 : 2;
  if (o.operands.size() > mask_at) mask(o.operands.at(mask_at), conds);
  if (is_load && o.operands.size() > 2) {
    const Op* other = def(o.operands.at(2));
    const Attribute* a = other == nullptr ? nullptr : other->attr("value");
    const bool zero = other != nullptr && other->name == "arith.constant" && a != nullptr &&
                      a->kind == Attribute::Kind::Dense && a->elems.size() == 1 &&
                      a->elems[0].as_double() == 0.0;
    if (!zero) throw Fail{"masked-off elements read a value other than 0 (TMA reads zeros)"};
  }
  bound(t, conds, is_load);
  // The descriptor takes 32-bit extents and strides, and its coordinates are 32-bit: a value
  // computed in 64 bits is used only as a tile's start (truncated, as TMA's coordinates are).
  const auto i32 = [&](ValueId v) {
    const Type& ty = f_.value(v).type;
    return ty.kind == Type::Kind::Integer && ty.bits == 32;
  };
  for (ValueId v : {t.extent[0], t.extent[1], t.row_stride, t.col_stride, t.step})
    if (v != kNoId && !i32(v))
      throw Fail{"the extent, stride or step " + name(v) + " is computed in " +
                 std::to_string(f_.value(v).type.bits) + " bits (a tensor map takes 32)"};
  return t;
}

// The stores an MMA result reaches through elementwise ops (rows stay rows), or, with `stop`,
// the first op that is neither.
std::vector<OpId> TileReader::reached_stores(ValueId from, std::vector<std::string>* stop) const {
  std::vector<OpId> stores;
  std::vector<ValueId> work{from};
  std::vector<ValueId> seen;
  while (!work.empty()) {
    const ValueId v = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
    seen.push_back(v);
    for (OpId u : f_.value(v).users) {
      const Op& o = f_.op(u);
      const bool elementwise = o.name.rfind("arith.", 0) == 0 || o.name.rfind("math.", 0) == 0 ||
                               o.name == "ttg.convert_layout" || o.name == "tt.fp_to_fp" ||
                               o.name == "ttng.warp_group_dot_wait";
      if (o.name == "ttng.warp_group_dot" && o.operands.size() > 2 && o.operands.at(2) == v) {
        work.push_back(o.results.at(0));
      } else if (o.name == "scf.yield" && o.parent_op != kNoId) {
        const Op& p = f_.op(o.parent_op);
        for (size_t k = 0; k < o.operands.size(); ++k)
          if (o.operands.at(k) == v && p.name == "scf.for") work.push_back(p.results.at(k));
      } else if (elementwise) {
        for (ValueId r : o.results) work.push_back(r);
      } else if ((o.name == "tt.store" || o.name == "tt.atomic_rmw" ||
                  is_descriptor_store(o.name)) &&
                 o.operands.size() > 1 &&
                 o.operands.at(is_descriptor_store(o.name) ? o.operands.size() - 1 : 1) == v) {
        stores.push_back(u);
      } else if (stop != nullptr) {
        stop->push_back(o.name);
      }
    }
  }
  return stores;
}

// A wrapped index reads other rows instead of zeros past the extent: equal only when those rows
// reach no output. The MMA result must flow elementwise into stores bounded by the same extent.
void TileReader::prove_wraps(const Tile& t, const std::vector<Tile>& stores) const {
  for (int d = 0; d < 2; ++d) {
    if (t.idx[d].wrap == kNoId) continue;
    const ValueId loaded = f_.op(t.op).results.at(0);
    for (OpId a : f_.value(loaded).users) {
      const Op& alloc = f_.op(a);
      if (alloc.name != "ttg.local_alloc") throw Fail{"a wrapped tile read by " + alloc.name};
      // The MMA reads the tile as loaded, or transposed by a memdesc_trans view.
      std::vector<std::pair<OpId, bool>> readers;  // (op, through a transpose)
      for (OpId u : f_.value(alloc.results.at(0)).users) {
        const Op& r = f_.op(u);
        if (r.name == "ttg.memdesc_trans")
          for (OpId v : f_.value(r.results.at(0)).users) readers.emplace_back(v, true);
        else
          readers.emplace_back(u, false);
      }
      for (const auto& reader : readers) {
        const Op& dot = f_.op(reader.first);
        const bool trans = reader.second;
        if (dot.name != "ttng.warp_group_dot" || dot.operands.size() < 2)
          throw Fail{"a wrapped tile read by " + dot.name};
        const auto reads = [&](size_t k) {
          const ValueId x = dot.operands.at(k);
          if (!trans) return x == alloc.results.at(0);
          const Op* tr = def(x);
          return tr != nullptr && tr->name == "ttg.memdesc_trans" &&
                 tr->operands.at(0) == alloc.results.at(0);
        };
        const int operand = reads(0) ? 0 : (reads(1) ? 1 : -1);
        if (operand < 0) throw Fail{"a wrapped tile read by " + dot.name};
        const int out_dim = operand == 0 ? 0 : 1;
        const int dd = trans ? 1 - d : d;  // the wrapped dimension as the MMA sees it
        if ((operand == 0 && dd != 0) || (operand == 1 && dd != 1))
          throw Fail{
              "the contraction dimension is wrapped (% n): the wrapped elements would be "
              "summed"};
        std::vector<std::string> stop;
        const auto reached = reached_stores(dot.results.at(0), &stop);
        if (!stop.empty())
          throw Fail{"rows wrapped by % " + name(t.idx[d].wrap) + " reach " + stop[0] +
                     " (only elementwise ops and stores bounded by the same extent)"};
        for (OpId s : reached) {
          const Tile* st = nullptr;
          for (const auto& x : stores)
            if (x.op == s) st = &x;
          if (st == nullptr || st->extent[out_dim] != t.idx[d].wrap ||
              st->idx[out_dim].start != t.idx[d].start)
            throw Fail{"a store of the MMA result is not bounded by " + name(t.idx[d].wrap) +
                       " along the wrapped dimension"};
        }
      }
    }
  }
}

}  // namespace sched2cu::ttgir::lift
