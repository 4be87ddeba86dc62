// Tile storage reuse in the modulo expander (docs/emitter.md, "Tile storage reuse"): an
// elementwise f32 tile op whose tile operand is dead once it has run writes its result into that
// operand's registers (attention's qk -> qk * scale -> - m -> exp2 chain lives in the registers
// the QK wgmma writes). Beyond saving a copy, it gives ptxas the order the schedule chose: the
// next QK wgmma overwrites those registers, so every reader of P must run before it (without
// it ptxas sank P's exp2 past the turn barrier and spilled). Decided from the emitted order
// (every instance's time in the steady state's frame), and only where that order proves that no
// read of a value can see a later write to the shared registers; never for values read across
// loop boundaries or by an MMA (whose reads last until its wait).
#include <climits>
#include <functional>
#include <tuple>

#include "expander.h"

namespace sched2cu::emit::detail {

std::set<int> Expander::share_tile_storage() {
  // Position of an event in one iteration's timeline, in the emitted order (steady-state frame).
  using Key = std::tuple<long long, int, int>;
  auto key = [&](const Event& e) {
    return Key{static_cast<long long>(e.stage) * ii_ + e.pos, e.rank, node(e.node).op};
  };
  std::map<int, const Event*> op_event;  // node -> its Op event
  for (const auto& e : ev_)
    if (e.kind == Event::Kind::Op) op_event[e.node] = &e;
  // Every register read (value, age) of every op instance, with the reading event; an op's own
  // results are what it writes.
  struct Read {
    const Event* e;
    int age;
  };
  std::map<int, std::vector<Read>> reads;
  for (const auto& kv : op_event) {
    const int n = kv.first;
    const Event* e = kv.second;
    std::set<int> own(c_.op(node(n).op).results.begin(), c_.op(node(n).op).results.end());
    for_each_read(
        e->low.body, e->stage,
        [&](int ref, int v, int a) {
          if (!own.count(ref)) reads[v].push_back({e, a});
        },
        e);
  }
  // Values the loop hands on (yields, results read after the loop) keep their own variables.
  std::set<int> escapes(fl_.yielded.begin(), fl_.yielded.end());
  auto used_outside = [&](int v) {
    for (int u : c_.f.users(v)) {
      bool inside = false;
      for (int p = u; p != ttgir::kNoId; p = c_.op(p).parent_op) inside |= p == loop_.op;
      if (!inside) return true;
    }
    return false;
  };
  auto plain_tile = [&](int v, const Val& like) {
    if (!L_.has(v)) return false;
    const Val& x = L_.val(v, loop_.op);
    return x.lay == Lay::Acc && !x.packed && x.elem == "f32" && x.storage == v &&
           x.rows == like.rows && x.cols == like.cols;
  };
  auto read_by_mma = [&](int v) {
    for (const auto& r : reads[v])
      if (r.e->low.mma) return true;
    return false;
  };
  std::map<int, int> root_of;               // shared value -> the value owning the registers
  std::map<int, const Event*> root_writer;  // root -> the event that first writes it
  std::set<int> shared;
  // Op events in emitted order within one iteration.
  std::vector<std::pair<Key, int>> ops;
  ops.reserve(op_event.size());
  for (const auto& [n, e] : op_event) ops.emplace_back(key(*e), n);
  std::sort(ops.begin(), ops.end());
  for (const auto& [ky, n] : ops) {
    const ttgir::Op& o = c_.op(node(n).op);
    // Elementwise f32 math, and a mask's select onto an f32 tile (acc_expr.cpp: element (s, i)
    // of the result from element (s, i) of its operands only).
    if ((!is_elementwise(o) && o.name != "arith.select") || o.results.size() != 1) continue;
    const int y = o.results[0];
    if (!L_.has(y)) continue;
    const Val& vy = L_.val(y, loop_.op);
    if (vy.lay != Lay::Acc || vy.packed || vy.elem != "f32" || escapes.count(y) ||
        used_outside(y) || read_by_mma(y))
      continue;
    for (int x : o.operands) {
      // Only values computed by an op of this loop (an inner loop's results print as another
      // variable already).
      if (!plain_tile(x, vy) || !def_node_.count(x) || node(def_node_.at(x)).child_loop >= 0 ||
          c_.alias.count(x) || escapes.count(x) || used_outside(x) || read_by_mma(x))
        continue;
      const int root = root_of.count(x) ? root_of.at(x) : x;
      const Event* rw = root_of.count(x) ? root_writer.at(root) : op_event.at(def_node_.at(x));
      // x dies here: every other read of it is at age 0 and emitted before this op.
      bool ok = true;
      for (const auto& r : reads[x])
        if (r.e != op_event.at(n)) ok &= r.age == 0 && key(*r.e) < ky;
      // y's reads come before the next iteration's write of the registers (one II after rw);
      // reads of later steps use carried copies, taken at the start of the step after y's, which
      // must also come first: y in the same stage as that write.
      const long long next = std::get<0>(key(*rw)) + ii_;
      for (const auto& r : reads[y]) {
        if (r.age == 0) ok &= std::get<0>(key(*r.e)) < next;
        if (r.age > 0) ok &= op_event.at(n)->stage == rw->stage;
      }
      if (!ok) continue;
      root_of[y] = root;
      root_writer[root] = rw;
      shared.insert(y);
      break;
    }
  }
  for (int y : shared) {
    c_.alias[y] = {root_of.at(y), 0};
    auto& own_decls = lowered_.at(def_node_.at(y)).decls;
    own_decls.erase(std::remove_if(own_decls.begin(), own_decls.end(),
                                   [&](const Stmt& d) {
                                     return !d.var.pieces().empty() && d.var.pieces()[0].value == y;
                                   }),
                    own_decls.end());
  }
  return shared;
}

}  // namespace sched2cu::emit::detail
