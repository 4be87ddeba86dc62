// Lifting pointer tiles to tensor descriptors (sched2cu/ttgir/lift.h; docs/ttgir.md, "Pointer
// tiles lifted to descriptors"), the rewriting half: with each load and store read by
// lift::TileReader (lift_read.h), adds a tt.make_tensor_descriptor before the loop, turns the op
// into its descriptor form with the coordinates computed before it, and drops the dead pointer
// arithmetic. Must never lift what the reader did not prove equal.
#include "sched2cu/ttgir/lift.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "lift_read.h"
#include "sched2cu/ttgir/edit.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir {
namespace {

using lift::Fail;
using lift::Tile;

const Fail kMalformed{
    "an op it is computed from lacks an operand or a result that op must have (malformed TTGIR)"};

class Lifter {
 public:
  Lifter(Module& m, Function& f) : m_(m), f_(f) {}
  std::vector<std::string> run();

 private:
  std::string name(ValueId v) const { return f_.value(v).name; }
  std::optional<int64_t> const_int(ValueId v) const { return reader_.const_int(v); }
  ValueId constant(OpId before, int64_t v, const std::string& ty);
  ValueId arith(OpId before, const std::string& op, ValueId a, ValueId b);
  ValueId coordinate(const Tile& t, int d, OpId before);
  ValueId descriptor(const Tile& t, OpId before);
  std::string alias_for(const Tile& t);
  void check_transposed_reads(const Tile& t);
  bool read_transposed(const Op& alloc) const;
  bool reduces(const Op& atomic) const;
  std::string describe(const Tile& t, bool is_load) const;

  Module& m_;
  Function& f_;
  lift::TileReader reader_{f_};
  std::map<std::string, ValueId> descs_;
};

ValueId Lifter::constant(OpId before, int64_t v, const std::string& ty) {
  Op c;
  c.name = "arith.constant";
  Attribute a;
  a.kind = Attribute::Kind::Integer;
  a.ival = v;
  a.text = std::to_string(v);
  a.type = {parse_type(ty, "lifted constant")};
  c.attrs.emplace_back("value", a);
  c.loc = f_.op(before).loc;
  const OpId id = insert_before(f_, before, c, "c" + std::to_string(v) + "_" + ty, a.type[0]);
  return f_.op(id).results.at(0);
}

ValueId Lifter::arith(OpId before, const std::string& op, ValueId a, ValueId b) {
  Op o;
  o.name = op;
  o.operands = {a, b};
  o.loc = f_.op(before).loc;
  const OpId id = insert_before(f_, before, o, name(a) + "_lift", f_.value(a).type);
  return f_.op(id).results.at(0);
}

// start_d + ((iv - lb) / step) * step_d, inserted before `before`.
ValueId Lifter::coordinate(const Tile& t, int d, OpId before) {
  ValueId c = t.idx[d].start;
  if (c != kNoId && f_.value(c).type.bits == 64) {
    // A start computed in 64 bits (`pid.to(tl.int64) * BLOCK`): TMA coordinates are 32-bit.
    Op tr;
    tr.name = "arith.trunci";
    tr.operands = {c};
    tr.loc = f_.op(before).loc;
    c = f_.op(insert_before(f_, before, tr, name(c) + "_i32", parse_type("i32", "coordinate")))
            .results.at(0);
  }
  if (t.step_dim == d) {
    const ForLoop L = f_.for_loop(t.loop);
    ValueId it = L.iv;
    if (const_int(L.lb) != 0) it = arith(before, "arith.subi", it, L.lb);
    if (const_int(L.step) != 1) it = arith(before, "arith.divsi", it, L.step);
    const ValueId s = t.step != kNoId ? t.step : constant(before, t.step_const, "i32");
    const ValueId off = arith(before, "arith.muli", it, s);
    c = c == kNoId ? off : arith(before, "arith.addi", c, off);
  }
  return c == kNoId ? constant(before, 0, "i32") : c;
}

std::string Lifter::alias_for(const Tile& t) {
  const int bits = t.bits;
  const int64_t row_bytes = t.shape[1] * bits / 8;
  const int swz = row_bytes >= 128 ? 128 : row_bytes >= 64 ? 64 : row_bytes >= 32 ? 32 : 0;
  if (swz == 0) throw Fail{"rows of " + std::to_string(row_bytes) + " B (a TMA box row needs 32)"};
  std::string key = "shared_lift_" + std::to_string(swz) + "_" + std::to_string(bits);
  for (const auto& [k, v] : m_.aliases)
    if (k == key) return key;
  m_.aliases.emplace_back(
      key,
      parse_attribute("#ttg.nvmma_shared<{swizzlingByteWidth = " + std::to_string(swz) +
                          ", transposed = false, elementBitWidth = " + std::to_string(bits) + "}>",
                      "lifted shared layout"));
  return key;
}

// One descriptor per base, extents, stride and box, made before the outermost op holding `before`.
ValueId Lifter::descriptor(const Tile& t, OpId before) {
  OpId top = before;
  while (f_.op(top).parent_op != kNoId) top = f_.op(top).parent_op;
  const std::string alias = alias_for(t);
  const std::string& elem = t.elem;
  const std::string key = std::to_string(t.base) + "/" + std::to_string(t.extent[0]) + "/" +
                          std::to_string(t.extent[1]) + "/" + std::to_string(t.row_stride) + "/" +
                          std::to_string(t.col_stride) + "/" + std::to_string(t.shape[0]) + "x" +
                          std::to_string(t.shape[1]);
  if (auto it = descs_.find(key); it != descs_.end()) return it->second;
  Op ext;
  ext.name = "arith.extsi";
  ext.operands = {t.row_stride};
  ext.loc = f_.op(t.op).loc;
  const ValueId stride64 = f_.op(insert_before(f_, top, ext, name(t.row_stride) + "_i64",
                                               parse_type("i64", "lifted stride")))
                               .results.at(0);
  ValueId inner = kNoId;  // the constant 1, or the launch-time column stride the launcher checks
  if (t.col_stride == kNoId) {
    inner = constant(top, 1, "i64");
  } else {
    Op ext1;
    ext1.name = "arith.extsi";
    ext1.operands = {t.col_stride};
    ext1.loc = f_.op(t.op).loc;
    inner = f_.op(insert_before(f_, top, ext1, name(t.col_stride) + "_i64",
                                parse_type("i64", "lifted stride")))
                .results.at(0);
  }
  Op mk;
  mk.name = "tt.make_tensor_descriptor";
  mk.operands = {t.base, t.extent[0], t.extent[1], stride64, inner};
  mk.operand_segments = {1, 2, 2};
  mk.loc = f_.op(t.op).loc;
  const Type dt = parse_type("!tt.tensordesc<tensor<" + std::to_string(t.shape[0]) + "x" +
                                 std::to_string(t.shape[1]) + "x" + elem + ", #" + alias + ">>",
                             "lifted descriptor");
  const ValueId d = f_.op(insert_before(f_, top, mk, name(t.base) + "_desc", dt)).results.at(0);
  descs_[key] = d;
  return d;
}

std::string Lifter::describe(const Tile& t, bool is_load) const {
  const Op& o = f_.op(t.op);
  const bool add = o.name == "tt.atomic_rmw";
  std::string s = (o.loc.src.known() ? o.loc.src.str() : o.loc.ir.str()) + ": pointer " +
                  (is_load ? "load"
                   : add   ? "atomic add"
                           : "store") +
                  " lifted to a TMA " +
                  (is_load ? "load"
                   : add   ? "reduce-add"
                           : "store") +
                  " of " + name(t.base) + " as [" + name(t.extent[0]) + ", " + name(t.extent[1]) +
                  "] (row stride " + name(t.row_stride) +
                  (t.col_stride == kNoId
                       ? std::string()
                       : ", column stride " + name(t.col_stride) + " checked to be 1 at launch") +
                  "), box " + std::to_string(t.shape[0]) + "x" + std::to_string(t.shape[1]);
  if (t.step_dim >= 0)
    s += ", stepping the " + std::string(t.step_dim == 0 ? "rows" : "columns") + " by " +
         (t.step == kNoId     ? std::to_string(t.step_const)
          : const_int(t.step) ? std::to_string(*const_int(t.step))
                              : name(t.step)) +
         " per iteration";
  for (int d = 0; d < 2; ++d)
    if (t.idx[d].wrap != kNoId)
      s += "; " + std::string(d == 0 ? "rows" : "columns") + " wrapped by % " +
           name(t.idx[d].wrap) + " read zeros instead (they reach only stores bounded by it)";
  return s;
}

// Whether an allocation is read through a transposing view (memdesc_trans).
bool Lifter::read_transposed(const Op& alloc) const {
  for (OpId r : f_.value(alloc.results.at(0)).users)
    if (f_.op(r).name == "ttg.memdesc_trans") return true;
  return false;
}

// A tile an MMA reads through a transposing view (b.T): the view's layout is derived from the
// allocation's, so the allocation keeps its layout, which must already be the TMA tile's.
void Lifter::check_transposed_reads(const Tile& t) {
  Attribute ref;
  ref.kind = Attribute::Kind::Alias;
  ref.text = alias_for(t);
  const Attribute& tma = m_.resolve(ref);
  for (OpId u : f_.value(f_.op(t.op).results.at(0)).users) {
    const Op& a = f_.op(u);
    if (a.name != "ttg.local_alloc") continue;
    const Attribute* enc = m_.encoding_of(f_.value(a.results.at(0)).type);
    if (read_transposed(a) && (enc == nullptr || !(*enc == tma)))
      throw Fail{
          "the tile is transposed for the MMA (tl.trans / .T) from a shared layout that "
          "is not the TMA tile's"};
  }
}

// Whether a tt.atomic_rmw of an MMA result is a TMA reduce-add (split-K's `tl.atomic_add(c_ptrs,
// acc, mask=...)`): an f32/f16/bf16 add at function scope whose old values nobody reads. The
// reduce-add is element-wise atomic but orders nothing, so a stronger memory order (Triton's
// default is acq_rel) is kept only where it orders nothing either: no other op of the kernel
// writes memory, and none after it reads memory.
bool Lifter::reduces(const Op& a) const {
  const Attribute* kind = a.attr("_pos0");
  const Attribute* sem = a.attr("_pos1");
  if (kind == nullptr || kind->text != "fadd" || a.results.size() != 1 ||
      !f_.value(a.results[0]).users.empty() || f_.enclosing_for(a.id) != kNoId ||
      a.operands.size() < 2)
    return false;
  const std::string e = f_.value(a.operands[1]).type.element_type().name;
  if (e != "f32" && e != "f16" && e != "bf16") return false;
  if (sem != nullptr && sem->text == "relaxed") return true;
  for (const Op& o : f_.ops) {
    if (o.id == a.id) continue;
    const bool writes = o.name == "tt.store" || is_atomic(o.name) || is_descriptor_store(o.name);
    const bool reads = o.name == "tt.load" || o.name == "tt.descriptor_load";
    if (writes || (reads && o.id > a.id)) return false;
  }
  return true;
}

std::vector<std::string> Lifter::run() {
  // Loads feeding an MMA operand (through local_alloc, maybe transposed); stores of MMA results.
  std::vector<OpId> loads, stores;
  for (const Op& o : f_.ops) {
    if (o.name == "ttng.warp_group_dot")
      for (OpId s : reader_.reached_stores(o.results.at(0), nullptr))
        if ((f_.op(s).name == "tt.store" || reduces(f_.op(s))) &&
            std::find(stores.begin(), stores.end(), s) == stores.end())
          stores.push_back(s);
    if (o.name != "tt.load" || o.results.size() != 1 ||
        f_.value(o.results.at(0)).type.shape.size() != 2)
      continue;
    for (OpId u : f_.value(o.results.at(0)).users) {
      const Op& a = f_.op(u);
      if (a.name != "ttg.local_alloc" || a.results.empty()) continue;
      std::vector<OpId> readers = f_.value(a.results.at(0)).users;
      for (size_t i = 0; i < readers.size(); ++i) {  // through a transposing view (b.T)
        const Op& r = f_.op(readers[i]);
        if (r.name == "ttg.memdesc_trans")
          for (OpId v : f_.value(r.results.at(0)).users) readers.push_back(v);
        if (r.name == "ttng.warp_group_dot" &&
            std::find(loads.begin(), loads.end(), o.id) == loads.end())
          loads.push_back(o.id);
      }
    }
  }
  if (loads.empty() && stores.empty()) return {};
  const auto fail = [&](OpId op, const Fail& e, bool is_load) {
    const Op& o = f_.op(op);
    std::string msg =
        "schedule: a tile " + std::string(is_load ? "loaded" : "stored") + " through pointers";
    if (o.loc.src.known()) msg += " (from " + o.loc.src.str() + ")";
    msg += std::string(is_load ? " is an operand of an MMA" : " holds an MMA result") +
           " and cannot be lifted to a tensor map: " + e.why +
           "; load or store it with tl.make_tensor_descriptor(...) instead";
    return Error(o.loc.ir, msg);
  };
  std::vector<Tile> lt, st;
  for (OpId s : stores) {
    try {
      st.push_back(reader_.analyze(s, false));
    } catch (const Fail& e) {
      throw fail(s, e, false);
    } catch (const std::out_of_range&) {
      throw fail(s, kMalformed, false);
    }
  }
  for (OpId l : loads) {
    try {
      lt.push_back(reader_.analyze(l, true));
      reader_.prove_wraps(lt.back(), st);
      check_transposed_reads(lt.back());
    } catch (const Fail& e) {
      throw fail(l, e, true);
    } catch (const std::out_of_range&) {
      throw fail(l, kMalformed, true);
    }
  }
  std::vector<std::string> notes;
  try {
    for (auto& t : lt) {
      notes.push_back(describe(t, true));
      const ValueId d = descriptor(t, t.op);
      const ValueId r = coordinate(t, 0, t.op), c = coordinate(t, 1, t.op);
      Op& o = f_.ops[static_cast<size_t>(t.op)];
      o.name = "tt.descriptor_load";
      o.operands = {d, r, c};
      o.operand_segments = {1, 2};
      o.attrs.clear();
      // Shared memory now holds the tile as TMA writes it: the columns contiguous (a tile a
      // memdesc_trans reads already has that layout: check_transposed_reads).
      const std::string alias = alias_for(t);
      for (OpId u : f_.value(o.results.at(0)).users)
        if (f_.op(u).name == "ttg.local_alloc") {
          if (read_transposed(f_.op(u))) continue;
          Type& mt = f_.values[static_cast<size_t>(f_.op(u).results.at(0))].type;
          Attribute a;
          a.kind = Attribute::Kind::Alias;
          a.text = alias;
          mt.encoding = {a};
        }
    }
    for (auto& t : st) {
      notes.push_back(describe(t, false));
      const ValueId d = descriptor(t, t.op);
      const ValueId r = coordinate(t, 0, t.op), c = coordinate(t, 1, t.op);
      Op& o = f_.ops[static_cast<size_t>(t.op)];
      const ValueId v = o.operands.at(1);
      const bool add = o.name == "tt.atomic_rmw";
      o.name = add ? "tt.descriptor_reduce" : "tt.descriptor_store";
      o.operands = {d, r, c, v};
      o.operand_segments = {1, 2, 1};
      o.attrs.clear();
      if (add) {  // `tt.descriptor_reduce add, ...`; its old values were unused (reduces)
        Attribute k;
        k.kind = Attribute::Kind::Keyword;
        k.text = "add";
        o.attrs.emplace_back("_pos0", k);
        o.results.clear();
      }
    }
  } catch (const Fail& e) {
    throw Error(f_.loc.ir, "schedule: lifting pointer tiles: " + e.why);
  }
  remove_dead_code(f_);
  return notes;
}

}  // namespace

std::vector<std::string> lift_pointer_tiles(Module& m, const std::string& kernel) {
  for (auto& f : m.functions) {
    if (f.name != kernel) continue;
    // The reader indexes operands and results with at(): an op of malformed TTGIR that lacks
    // one ends here as an error, never as a read past the end.
    try {
      return Lifter(m, f).run();
    } catch (const std::out_of_range&) {
      throw Error(f.loc.ir, "schedule: lifting pointer tiles: " + kMalformed.why);
    }
  }
  return {};
}

}  // namespace sched2cu::ttgir
