// Vector loads from affine addresses (docs/emitter.md, "Vectors read where they are used"):
// which `tt.load`s of a row or column vector the emitter reads through the address of their
// element 0 instead of a vector of pointers, and of those, which it never holds in registers
// (only where the loop's register tensors would not fit beside them; the others are loaded
// into registers where scheduled, by bload_at). A read-at-use load keeps
// only its base address (one pointer, carried across stages like any scalar) and an L1 prefetch
// at its scheduled place; every elementwise use reads the elements it needs through the
// read-only path (BColAt / MColBcastAt ... in blocked_at.cuh). A vector of 128 f32 in the
// accumulator's column layout is 32 registers per thread for as long as it is live; attention
// backward holds two (the log-sum-exp and Δ rows) next to four accumulator tiles.
//
// The planner decides from the IR alone, before lowering, and must never accept a load unless
// reading it later, through the non-coherent path, returns the same bytes and every use can
// read through an adapter:
// - the load is unmasked, inside a loop, of a rank-1 tensor whose pointers are affine
//   (`splat(p) + (splat(s) + make_range)`, in any order of the sums), so element i of the
//   vector is p + s + start + i;
// - the pointer's kernel argument is never written by the kernel (no store, atomic or
//   descriptor store/reduce reaches it), and every write the kernel makes has a known root
//   argument (distinct arguments are assumed not to overlap, as the scheduler's prefetching of
//   loads ahead of another iteration's stores already assumes);
// - every use, through expand_dims and broadcast views, is elementwise math in the same loop.
// The pointer arithmetic only such loads read is folded (`folded_ops`): it emits nothing.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "lower.h"

namespace sched2cu::emit {

namespace {

bool is_view(const std::string& n) { return n == "tt.expand_dims" || n == "tt.broadcast"; }

// The function argument a pointer (scalar, tensor of pointers or tensor descriptor) is derived
// from, or kNoId when the derivation goes through anything but pointer arithmetic and views.
int root_arg(const Ctx& c, int value) {
  for (int guard = 0; guard < 1 << 16; ++guard) {
    const ttgir::Value& v = c.f.value(value);
    if (v.def_op == ttgir::kNoId)
      return v.owner_op == ttgir::kNoId ? value : ttgir::kNoId;  // a loop-carried pointer: unknown
    const ttgir::Op& d = c.op(v.def_op);
    static const std::set<std::string> through = {
        "tt.addptr",      "tt.splat",           "tt.broadcast",
        "tt.expand_dims", "ttg.convert_layout", "tt.make_tensor_descriptor"};
    if (!through.count(d.name) || d.operands.empty()) return ttgir::kNoId;
    value = d.operands[0];
  }
  return ttgir::kNoId;
}

bool is_pointerish(const ttgir::Type& t) {
  if (t.kind == ttgir::Type::Kind::Ptr || t.kind == ttgir::Type::Kind::TensorDesc) return true;
  return t.kind == ttgir::Type::Kind::Tensor && !t.elem.empty() &&
         t.elem[0].kind == ttgir::Type::Kind::Ptr;
}

// The arguments some op may write through; nullopt when a write's target is not known.
std::optional<std::set<int>> written_args(const Ctx& c) {
  static const std::set<std::string> reads_only = {"tt.load",
                                                   "tt.addptr",
                                                   "tt.splat",
                                                   "tt.broadcast",
                                                   "tt.expand_dims",
                                                   "ttg.convert_layout",
                                                   "tt.descriptor_load",
                                                   "tt.make_tensor_descriptor",
                                                   "arith.select",
                                                   "scf.for",
                                                   "scf.yield",
                                                   "tt.reshape"};
  std::set<int> out;
  for (const ttgir::Op& o : c.f.ops) {
    if (reads_only.count(o.name)) continue;
    for (int a : o.operands) {
      if (!is_pointerish(c.type(a))) continue;
      const int r = root_arg(c, a);
      if (r == ttgir::kNoId) return std::nullopt;
      out.insert(r);
    }
  }
  return out;
}

bool is_splat_of_scalar(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  return d != nullptr && d->name == "tt.splat";
}

// `make_range`, or a sum of one affine integer vector and splats.
bool affine_int(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr) return false;
  if (d->name == "tt.make_range") return true;
  if (d->name != "arith.addi" || d->operands.size() != 2) return false;
  const int a = d->operands[0], b = d->operands[1];
  return (is_splat_of_scalar(c, a) && affine_int(c, b)) ||
         (affine_int(c, a) && is_splat_of_scalar(c, b));
}

// `splat(p) + affine int`, or an affine pointer vector plus a splat.
bool affine_ptr(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (d == nullptr || d->name != "tt.addptr" || d->operands.size() != 2) return false;
  const int a = d->operands[0], b = d->operands[1];
  return (is_splat_of_scalar(c, a) && affine_int(c, b)) ||
         (affine_ptr(c, a) && is_splat_of_scalar(c, b));
}

// Every use of `value`, through views, is elementwise math inside loop `loop`.
bool only_elementwise_uses(const Ctx& c, int value, int loop) {
  for (int u : c.f.users(value)) {
    const ttgir::Op& uo = c.op(u);
    if (c.f.enclosing_for(u) != loop) return false;
    if (is_view(uo.name)) {
      if (!only_elementwise_uses(c, uo.results.at(0), loop)) return false;
      continue;
    }
    if (!is_elementwise(uo)) return false;
  }
  return true;
}

bool rank1_slice(const Ctx& c, int value) {
  const ttgir::Type& t = c.type(value);
  return t.kind == ttgir::Type::Kind::Tensor && t.shape.size() == 1 &&
         c.m.encoding_kind(t) == "ttg.slice";
}

// Registers per consumer thread that addresses, indices, loop counters, descriptors and the
// compiler's temporaries take beside the loop's tensors (an estimate, not a measurement).
constexpr int kRegisterReserve = 48;

// Registers per thread that a register tensor of the loop takes, estimated from its layout:
// a tile spreads its 32-bit words over the kernel's threads (16-bit elements two to a
// register); a row or column vector sits in every thread of the lanes and warps across it
// (an #nvidia_mma column in the 4 lanes of a quad per column warp, a row in 8 lanes per row
// warp). Splats, constants and views take none: they are not materialized.
int thread_regs(const Ctx& c, int value) {
  const ttgir::Type& t = c.type(value);
  if (t.kind != ttgir::Type::Kind::Tensor) return 0;
  const ttgir::Op* d = c.f.def_op(value);
  if (d != nullptr && (d->name == "tt.splat" || d->name == "arith.constant" || is_view(d->name)))
    return 0;
  const long long bits = std::max(t.element_bits(), 16);
  const long long words = (t.numel() * bits + 31) / 32;
  if (t.shape.size() == 1 && c.m.encoding_kind(t) == "ttg.slice") {
    const ttgir::Attribute* p = c.m.encoding_param(t, "parent");
    const ttgir::Attribute* dim = c.m.encoding_param(t, "dim");
    if (p == nullptr || dim == nullptr) return static_cast<int>(words);
    const ttgir::Attribute& pa = c.m.resolve(*p);
    const ttgir::Attribute* w = pa.get("warpsPerCTA");
    const auto wpc = w ? w->as_int_array() : std::vector<int64_t>{};
    const size_t across = dim->as_int() == 0 ? 1 : 0;  // the parent dimension the vector spans
    if (wpc.size() != 2) return static_cast<int>(words);
    long long lanes = 1;
    if (pa.text == "ttg.nvidia_mma") {
      lanes = across == 1 ? 4 : 8;
    } else if (const ttgir::Attribute* tpw = pa.get("threadsPerWarp")) {
      const auto tw = tpw->as_int_array();
      if (tw.size() == 2) lanes = tw[across];
    }
    const long long holders = std::max<long long>(1, lanes * wpc[across]);
    return static_cast<int>(
        (std::max<long long>(t.numel(), 1) * std::max<long long>(bits, 32) / 32 + holders - 1) /
        holders);
  }
  const long long threads = std::max(1, c.m.num_warps()) * 32LL;
  return static_cast<int>((words + threads - 1) / threads);
}

// The peak, over loop `loop`'s body in program order, of the registers per thread its live
// register tensors take (thread_regs), with the loads in `lazy` holding none: loop-carried values
// and values from before the loop live throughout, the others from their definition to their
// last use. The pipeline keeps values live across stages besides, so this is a lower bound.
int loop_peak_regs(const Ctx& c, int loop, const std::set<int>& lazy) {
  const ttgir::ForLoop fl = c.f.for_loop(loop);
  const int first = loop + 1, last = fl.yield_op;
  std::map<int, int> delta;  // position -> change in live registers
  auto live = [&](int value, int from, int to) {
    if (c.f.def_op(value) != nullptr && lazy.count(c.f.def_op(value)->id)) return;
    const int r = thread_regs(c, value);
    if (r == 0) return;
    delta[from] += r;
    delta[to + 1] -= r;
  };
  std::set<int> outside;
  for (int v : fl.iter_args) {
    int to = first;
    for (int u : c.f.users(v)) to = std::max(to, std::min(u, last));
    live(v, first, to);
  }
  for (int id = first; id <= last; ++id) {
    const ttgir::Op& o = c.op(id);
    for (int a : o.operands) {
      const ttgir::Value& av = c.f.value(a);
      if (av.def_op != ttgir::kNoId && (av.def_op < first || av.def_op > last)) outside.insert(a);
    }
    for (int r : o.results) {
      int to = id;
      for (int u : c.f.users(r)) to = std::max(to, std::min(u, last));
      live(r, id, to);
    }
  }
  for (int v : outside) live(v, first, last);
  int peak = 0, now = 0;
  for (const auto& [pos, d] : delta) {
    now += d;
    peak = std::max(peak, now);
  }
  return peak;
}

}  // namespace

void plan_lazy_loads(Ctx& c) {
  const auto written = written_args(c);
  if (!written) return;
  std::map<int, std::vector<int>> candidates;  // loop op -> its loads that may be read at use
  for (const ttgir::Op& o : c.f.ops) {
    if (o.name != "tt.load" || o.operands.size() != 1 || o.results.size() != 1) continue;
    const int loop = c.f.enclosing_for(o.id);
    if (loop == ttgir::kNoId || c.loop_of_op(o.id) < 0) continue;
    const int res = o.results[0];
    if (!rank1_slice(c, res) || c.type(res).element_type().kind != ttgir::Type::Kind::Float)
      continue;
    const int ptr = o.operands[0];
    if (!affine_ptr(c, ptr)) continue;
    const int root = root_arg(c, ptr);
    if (root == ttgir::kNoId || written->count(root)) continue;
    if (!only_elementwise_uses(c, res, loop)) continue;
    candidates[loop].push_back(o.id);
  }
  // Reading at use costs latency where the math needs the elements, so a loop's vectors stay in
  // registers unless its register tensors would not fit the consumers' budget beside them; then
  // the widest vectors are read at use first, until the rest fits.
  int budget = 0;
  for (const auto& r : c.g.launch.roles)
    if (r.kind == "consumer" || c.g.launch.roles.size() == 1) budget = std::max(budget, r.regs);
  for (auto& [loop, loads] : candidates) {
    std::stable_sort(loads.begin(), loads.end(), [&](int a, int b) {
      return thread_regs(c, c.op(a).results[0]) > thread_regs(c, c.op(b).results[0]);
    });
    for (int id : loads) {
      if (loop_peak_regs(c, loop, c.lazy_loads) + kRegisterReserve <= budget) {
        c.affine_loads.insert(id);
      } else {
        c.lazy_loads.insert(id);
      }
    }
  }
  // Fold the pointer arithmetic that feeds lazy loads alone (its values are never read).
  std::function<bool(int)> only_feeds_lazy = [&](int value) {
    const auto& users = c.f.users(value);
    if (users.empty()) return false;
    for (int u : users) {
      if (c.lazy_loads.count(u) || c.affine_loads.count(u)) continue;
      if (c.folded_ops.count(u)) continue;
      return false;
    }
    return true;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<int> loads(c.lazy_loads.begin(), c.lazy_loads.end());
    loads.insert(loads.end(), c.affine_loads.begin(), c.affine_loads.end());
    for (int id : loads) {
      std::vector<int> stack{c.op(id).operands[0]};
      while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        const ttgir::Op* d = c.f.def_op(v);
        if (d == nullptr || c.folded_ops.count(d->id)) continue;
        if (d->name != "tt.addptr" && d->name != "arith.addi" && d->name != "tt.make_range")
          continue;  // splats stay: their scalars are the base address's terms
        if (!only_feeds_lazy(v)) continue;
        c.folded_ops.insert(d->id);
        changed = true;
        for (int a : d->operands) stack.push_back(a);
      }
    }
  }
}

// The address of element 0 of a lazy load's vector: p + s + start for `splat(p) + (splat(s) +
// make_range(start))` (docs/emitter.md), as C++ text of the pointer type.
Text lazy_base(const Lower& L, int ptr, int op) {
  const Ctx& c = L.c;
  std::vector<Text> terms;  // the integer terms, a zero start left out
  std::function<void(int)> ints = [&](int value) {
    const ttgir::Op& d = *c.f.def_op(value);
    if (d.name == "tt.make_range") {
      const ttgir::Attribute* st = d.attr("start");
      const long long start = st ? st->ival : 0;
      const Val& v = L.val(value, op);
      if (start != 0 || (v.blay.mma_row && L.split())) terms.push_back(range_start(L, v, start));
      return;
    }
    for (int a : d.operands) {
      if (is_splat_of_scalar(c, a)) {
        terms.push_back(splat_text(L.val(a, op)));
      } else {
        ints(a);
      }
    }
  };
  std::function<Text(int)> ptrs = [&](int value) -> Text {
    const ttgir::Op& d = *c.f.def_op(value);
    const int a = d.operands[0], b = d.operands[1];
    if (is_splat_of_scalar(c, a)) {
      ints(b);
      return splat_text(L.val(a, op));
    }
    terms.push_back(splat_text(L.val(b, op)));
    return ptrs(a);
  };
  Text out = ptrs(ptr);
  if (terms.empty()) return out;
  Text sum;
  for (size_t i = 0; i < terms.size(); ++i) sum += (i ? " + " : "") + terms[i];
  return out + " + (" + sum + ")";
}

}  // namespace sched2cu::emit
