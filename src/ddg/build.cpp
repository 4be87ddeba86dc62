// DDG construction from the IR (see build.h).
#include "sched2cu/ddg/build.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>

#include "sched2cu/common/diag.h"

namespace sched2cu::ddg {
namespace {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;
using ttgir::Type;
using ttgir::ValueId;

// 32-bit registers a register tensor occupies across the CTA (memdescs live in SMEM).
int64_t reg_words(const Type& t) {
  if (t.kind != Type::Kind::Tensor) return 0;
  return (t.numel() * t.element_bits() + 31) / 32;
}

}  // namespace

bool is_free_register_view(const ttgir::Module& m, const Function& f, const Op& op) {
  if (op.name != "ttg.convert_layout" || op.operands.size() != 1 || op.results.size() != 1)
    return false;
  const Type& from = f.value(op.operands[0]).type;
  const Type& to = f.value(op.results[0]).type;
  if (m.encoding_kind(from) != "ttg.nvidia_mma" || m.encoding_kind(to) != "ttg.dot_op" ||
      from.element_bits() != 16)
    return false;
  const auto* idx = m.encoding_param(to, "opIdx");
  const auto* kw = m.encoding_param(to, "kWidth");
  const auto* parent = m.encoding_param(to, "parent");
  const ttgir::Attribute* enc = m.encoding_of(from);
  if (!idx || idx->as_int() != 0 || !kw || kw->as_int() != 2 || !parent || !enc) return false;
  const ttgir::Attribute& par = m.resolve(*parent);
  if (par.str() == enc->str()) return true;
  // Two wgmma accumulator layouts that differ only in the instruction's N (instrShape) hold
  // every element in the same thread and register: the A operand of a narrower MMA of the same
  // warps (attention backward's P and dS with 128-row Q tiles, feeding 64-wide MMAs).
  auto same_but_n = [](const ttgir::Attribute& a, const ttgir::Attribute& b) {
    for (const char* k : {"versionMajor", "versionMinor", "warpsPerCTA"}) {
      const ttgir::Attribute *x = a.get(k), *y = b.get(k);
      if (x == nullptr || y == nullptr || x->str() != y->str()) return false;
    }
    const ttgir::Attribute *x = a.get("instrShape"), *y = b.get("instrShape");
    if (x == nullptr || y == nullptr) return false;
    const auto ix = x->as_int_array(), iy = y->as_int_array();
    return ix.size() == 3 && iy.size() == 3 && ix[0] == iy[0] && ix[2] == iy[2];
  };
  return par.kind == ttgir::Attribute::Kind::Dialect && par.text == "ttg.nvidia_mma" &&
         enc->kind == ttgir::Attribute::Kind::Dialect && enc->text == "ttg.nvidia_mma" &&
         same_but_n(par, *enc);
}

ValueId exchange_source(const Function& f, const Op& op) {
  const ValueId v = op.operands.at(0);
  const Op* d = f.def_op(v);
  return d != nullptr && d->name == "tt.trans" ? d->operands.at(0) : v;
}

bool is_smem_exchange(const ttgir::Module& m, const Function& f, const Op& op) {
  if (op.name != "ttg.convert_layout" || op.operands.size() != 1 || op.results.size() != 1 ||
      is_free_register_view(m, f, op))
    return false;
  const Type& to = f.value(op.results[0]).type;
  const auto* idx = m.encoding_param(to, "opIdx");
  if (m.encoding_kind(to) != "ttg.dot_op" || idx == nullptr || idx->as_int() != 0 ||
      to.shape.size() != 2)
    return false;
  const Type& src = f.value(exchange_source(f, op)).type;
  if (src.kind != Type::Kind::Tensor || src.shape.size() != 2 || src.element_bits() != 16)
    return false;
  const auto& users = f.value(op.results[0]).users;
  if (users.empty()) return false;
  for (OpId u : users)
    if (f.op(u).name != "ttng.warp_group_dot" || f.op(u).operands.at(0) != op.results[0])
      return false;
  return true;
}

bool is_store_view(const Function& f, const Op& op) {
  if ((op.name != "arith.truncf" && op.name != "ttg.convert_layout") || op.results.size() != 1 ||
      f.value(op.results[0]).type.kind != Type::Kind::Tensor)
    return false;
  const auto& users = f.value(op.results[0]).users;
  if (users.empty()) return false;
  for (OpId u : users) {
    const Op& uo = f.op(u);
    if (!ttgir::is_descriptor_store(uo.name) && !is_store_view(f, uo)) return false;
  }
  return true;
}

BuiltLoop build_loop(const ttgir::Module& m, const Function& f, OpId for_op, const TargetModel& t,
                     int consumer_wgs, const std::map<OpId, int64_t>& inner_latency,
                     const std::map<OpId, int>& inner_index, int tc_turns,
                     const std::set<OpId>& global_loads, int load_copies) {
  BuiltLoop out;
  out.loop = f.for_loop(for_op);
  const auto& L = out.loop;
  Ddg& g = out.g;
  std::map<OpId, int> node_of;  // top-level body op -> node
  for (OpId id : L.body) {
    if (id == L.yield_op) continue;
    const Op& op = f.op(id);
    Node n;
    n.op = id;
    n.name = op.name;
    if (op.name == "scf.for") {
      auto it = inner_latency.find(id);
      if (it == inner_latency.end())
        throw Error(op.loc.ir, "nested scf.for was not scheduled before its parent");
      n.super_node = true;
      n.latency = n.latency_tail = it->second;
      n.child_loop = inner_index.count(id) ? inner_index.at(id) : -1;
      n.stream = "none";
    } else if (op.name == "scf.if") {
      // Control flow inside a scheduled loop: Triton's tl.range(..., flatten=True) folds a
      // persistent tile loop and its K loop into one loop whose tile changes and epilogue sit
      // under scf.if. The modulo schedule has no predicated stages.
      const Op* loop = op.parent_op >= 0 ? &f.op(op.parent_op) : nullptr;
      // Flattening leaves its attribute on the loop, or (Triton 3.6, pre-pipelining) an scf.if
      // located at the loop's own tl.range call: no user condition.
      const bool flattened =
          loop != nullptr && (loop->attr("tt.flatten") != nullptr ||
                              (op.loc.src.known() && loop->loc.src.str() == op.loc.src.str()));
      std::string py = op.loc.src.known() ? " (from " + op.loc.src.str() + ")" : "";
      throw Error(
          op.loc.ir,
          "'scf.if'" + py + " inside a loop to be modulo-scheduled is not supported" +
              (flattened ? std::string("; the loop was flattened (tl.range(..., flatten=True)): "
                                       "write the tile loop and the K loop as nested loops "
                                       "without flatten=True")
                         : std::string("; move the condition out of the loop (tl.where on "
                                       "values inside it is supported)")));
    } else if (is_free_register_view(m, f, op) || is_store_view(f, op)) {
      n.op_class = "view";  // pipe NONE, no cost: no data moves (A fragment, or the store's)
    } else {
      bool tensor = false;
      for (ValueId r : op.results) tensor |= is_tensorish(f.value(r).type);
      // A store has no results; a reduction to a scalar (rank-1 tt.reduce) costs as the tensor
      // it reads.
      if (op.results.empty() || op.name == "tt.reduce")
        for (ValueId v : op.operands) tensor |= is_tensorish(f.value(v).type);
      // A load consumed in registers is a global load, not a TMA into a ring.
      const bool reg_load = is_register_load(m, f, op, global_loads);
      const OpClass* c = t.classify(reg_load ? "tt.load" : op.name, tensor);
      if (!c)
        throw Error(op.loc.ir, "no cost class for '" + op.name + "'" +
                                   (reg_load ? " consumed in registers (class of tt.load)" : "") +
                                   " (" + (tensor ? "tensor" : "scalar") + ") in target model " +
                                   t.name + " (" + t.source + ")");
      Costs k;
      try {
        k = t.costs(*c, op_shape(f, op, consumer_wgs));
      } catch (const Error& e) {
        // The table's refusal (an MMA of a dtype it has no tensor-core rate for: an f32 tl.dot)
        // located at the op, with its Python line.
        std::string py = op.loc.src.known() ? " (from " + op.loc.src.str() + ")" : "";
        throw Error(op.loc.ir, "'" + op.name + "'" + py + ": " + e.what());
      }
      n.op_class = c->name;
      n.pipe = c->pipe;
      n.stream = c->stream;
      n.latency = k.latency;
      n.latency_tail = k.latency_tail;
      n.issue = k.issue;
      n.occupancy = k.occupancy;
      n.min_warps = c->min_warps;
      if (reg_load || op.name == "tt.load") {
        bool small = true;
        for (ValueId r : op.results) small &= f.value(r).type.shape.size() <= 1;
        n.vector_load = small && !op.results.empty();
      }
      if (n.pipe == Pipe::CUDA || n.pipe == Pipe::SFU) {
        int64_t words_in = 0, words_out = 0;
        for (ValueId v : op.operands) words_in = std::max(words_in, reg_words(f.value(v).type));
        for (ValueId r : op.results) words_out += reg_words(f.value(r).type);
        n.narrows = words_out > 0 && words_out < words_in;
      }
      if (n.pipe == Pipe::TC) {
        n.tc_hold = n.occupancy;
        if (tc_turns > 1) {
          // One warpgroup's share runs alone: its result is ready after its own share of the
          // tensor-core time plus the pipeline drain.
          n.tc_hold = std::max<int64_t>(1, n.occupancy / tc_turns);
          n.tc_turns = tc_turns;
          n.latency -= n.occupancy - n.tc_hold;
          n.latency_tail -= n.occupancy - n.tc_hold;
        }
      }
    }
    node_of[id] = g.add_node(std::move(n));
  }
  // The body op (top level) that contains `id`, or -1 when it is outside the loop.
  auto top = [&](OpId id) -> int {
    while (id != ttgir::kNoId) {
      auto it = node_of.find(id);
      if (it != node_of.end()) return it->second;
      if (id == for_op) return -1;
      id = f.op(id).parent_op;
    }
    return -1;
  };
  // Data edges. A use of iter_arg i reads what the previous iteration yielded: follow yields
  // (an iter_arg yielded unchanged adds one iteration of distance per hop).
  for (OpId id : L.body) {
    if (id == L.yield_op) continue;
    std::vector<OpId> stack{id};
    std::set<ValueId> operands;
    while (!stack.empty()) {  // operands of the op and of everything nested in it
      const Op& o = f.op(stack.back());
      stack.pop_back();
      for (ValueId v : o.operands) operands.insert(v);
      for (const auto& r : o.regions)
        for (const auto& b : r.blocks)
          for (OpId n : b.ops) stack.push_back(n);
    }
    int dst = node_of[id];
    for (ValueId v : operands) {
      int distance = 0;
      ValueId cur = v;
      for (int hop = 0; hop <= static_cast<int>(L.iter_args.size()); ++hop) {
        auto it = std::find(L.iter_args.begin(), L.iter_args.end(), cur);
        if (it == L.iter_args.end()) break;
        cur = L.yielded.at(static_cast<size_t>(it - L.iter_args.begin()));
        ++distance;
      }
      const auto& val = f.value(cur);
      if (val.def_op == ttgir::kNoId) continue;  // iv, outer values
      int src = top(val.def_op);
      if (src < 0 || (src == dst && distance == 0)) continue;
      int64_t lat = g.nodes[src].latency;
      // An MMA chained into the next MMA's accumulator only waits for the tensor core to take
      // it (occupancy), not for its result: wgmma accumulates in place, in issue order.
      if (distance > 0 && g.nodes[src].pipe == Pipe::TC && g.nodes[dst].pipe == Pipe::TC)
        lat = g.nodes[src].tc_hold;
      g.add_edge(src, dst, lat, distance);
    }
  }
  // An MMA reads its register A operand asynchronously until it completes: the next iteration
  // may define those registers again only afterwards (else the value needs a second copy of its
  // registers). A register anti-dependence with the MMA's latency, through free views.
  for (OpId id : L.body) {
    const Op& op = f.op(id);
    if (id == L.yield_op || op.name != "ttng.warp_group_dot") continue;
    ValueId a = op.operands.at(0);
    if (f.value(a).type.kind != Type::Kind::Tensor) continue;
    const Op* d = f.def_op(a);
    while (d != nullptr && is_free_register_view(m, f, *d)) d = f.def_op(d->operands.at(0));
    if (d == nullptr) continue;
    int p = top(d->id), mm = node_of[id];
    if (p >= 0 && p != mm) g.add_edge(mm, p, g.nodes[mm].latency, 1);
  }
  // One set of registers per register tensor: the next iteration may define a large tile again
  // only once every reader of the previous one has issued (else the tile would need a second
  // copy of its registers; an accumulator's is 64-128 per thread). Readers are followed through
  // views. Small values (row vectors, scalars) are left to carried copies.
  {
    auto succ = g.succ_edges();
    const int64_t threads = 128LL * std::max(1, consumer_wgs);
    for (const auto& p : g.nodes) {
      if (p.op_class == "view" || (p.pipe == Pipe::NONE && !p.super_node)) continue;
      const Op& po = f.op(p.op);
      int64_t words = 0;
      for (ValueId r : po.results) words += reg_words(f.value(r).type);
      if (words / threads < 16) continue;
      std::vector<int> work{p.id};
      std::set<int> seen{p.id};
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        for (int ei : succ[static_cast<size_t>(x)]) {
          const Edge& e = g.edges[static_cast<size_t>(ei)];
          if (e.distance != 0 || !seen.insert(e.dst).second) continue;
          // Views, and the renames that keep a tile's elements in the same registers (a
          // reshape, transpose or split of the accumulator: an epilogue's column halves), pass
          // the registers on to their readers.
          const std::string& dn = g.nodes[static_cast<size_t>(e.dst)].name;
          if (g.nodes[static_cast<size_t>(e.dst)].op_class == "view" || dn == "tt.reshape" ||
              dn == "tt.trans" || dn == "tt.split")
            work.push_back(e.dst);
          else  // after the reader has issued (read its registers): at least one cycle later
            for (const auto& q : g.nodes)
              // The tile's own producer, and every inner loop: an inner loop keeps the role's
              // accumulator in registers for its whole run, so no other large tile of the
              // previous iteration may still be live when the next one starts.
              // A plain global load may keep `load_copies` results in flight: that is what
              // covers its latency in a streaming loop (the scheduler sizes the copies).
              if (q.id == p.id || q.super_node)
                g.add_edge(
                    e.dst, q.id, std::max<int64_t>(1, g.nodes[static_cast<size_t>(e.dst)].issue),
                    q.id == p.id && p.op_class == "global_access" ? std::max(1, load_copies) : 1);
        }
      }
    }
  }
  // Turn order under ping-pong (FlashAttention-3's intra-warpgroup pipelining): an MMA `b` fed by
  // register math that depends on an MMA `a` of the same iteration is issued behind the next
  // iteration's `a`, so that the register math of iteration i+1 (waiting for a's result) overlaps
  // b of iteration i on the tensor core instead of waiting for it: cycle[b] >= cycle[a] + II +
  // hold(a), an edge of distance -1. Skipped when b reaches a (it would close a circuit).
  if (tc_turns > 1) {
    auto succ = g.succ_edges();
    const size_t n = g.nodes.size();
    auto reach = [&](int from, bool through_math) {
      std::vector<int> st(n, 0);  // 1 reached, 2 reached through register math
      std::vector<int> work{from};
      st[static_cast<size_t>(from)] = 1;
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        for (int ei : succ[static_cast<size_t>(x)]) {
          const Edge& e = g.edges[static_cast<size_t>(ei)];
          if (through_math && e.distance != 0) continue;
          const Node& d = g.nodes[static_cast<size_t>(e.dst)];
          const int v =
              st[static_cast<size_t>(x)] == 2 || d.pipe == Pipe::CUDA || d.pipe == Pipe::SFU ? 2
                                                                                             : 1;
          if (v > st[static_cast<size_t>(e.dst)]) {
            st[static_cast<size_t>(e.dst)] = v;
            if (!(through_math && d.pipe == Pipe::TC)) work.push_back(e.dst);
          }
        }
      }
      return st;
    };
    // Fewest iterations from `from` to `to` over the edges (Dijkstra on distances >= 0): the
    // edge a -> b (distance -1) closes a circuit of distance (that - 1), infeasible below 1.
    auto min_distance = [&](int from, int to) {
      std::vector<int64_t> d(n, INT64_MAX);
      std::set<std::pair<int64_t, int>> q{{0, from}};
      d[static_cast<size_t>(from)] = 0;
      while (!q.empty()) {
        auto [dx, x] = *q.begin();
        q.erase(q.begin());
        if (x == to) return dx;
        for (int ei : succ[static_cast<size_t>(x)]) {
          const Edge& e = g.edges[static_cast<size_t>(ei)];
          if (e.distance < 0) continue;
          const int64_t nd = dx + e.distance;
          if (nd < d[static_cast<size_t>(e.dst)]) {
            q.erase({d[static_cast<size_t>(e.dst)], e.dst});
            d[static_cast<size_t>(e.dst)] = nd;
            q.insert({nd, e.dst});
          }
        }
      }
      return INT64_MAX;
    };
    std::vector<std::pair<int, int>> turns;
    for (const auto& a : g.nodes) {
      if (a.pipe != Pipe::TC) continue;
      auto from_a = reach(a.id, true);
      for (const auto& b : g.nodes)
        if (b.pipe == Pipe::TC && b.id != a.id && from_a[static_cast<size_t>(b.id)] == 2 &&
            min_distance(b.id, a.id) > 1)
          turns.emplace_back(a.id, b.id);
    }
    for (auto [a, b] : turns) g.add_edge(a, b, g.nodes[static_cast<size_t>(a)].tc_hold, -1);
  }
  // A register load is issued once the super-node (inner loop) that its consumers also wait
  // for has completed when, issued earlier, its registers live across the whole inner loop
  // beside that loop's carried accumulators would leave less than a quarter of a consumer
  // thread's registers for everything else (spills). Where they fit, the load stays free to be
  // issued before the inner loop: its latency then hides under it (case5's bias tile: +11%,
  // +6%, +5% at its three smallest shapes on the H200, the others unchanged). Skipped when the
  // load feeds the super-node.
  {
    const int64_t threads = int64_t{consumer_wgs} * t.budgets.threads_per_warpgroup;
    auto carried_words = [&](const ddg::Node& sn) {
      int64_t w = 0;
      for (ValueId a : f.for_loop(sn.op).iter_args) w += reg_words(f.value(a).type);
      return w;
    };
    auto succ = g.succ_edges();
    auto reach = [&](int from) {  // nodes reachable over distance-0 edges, `from` included
      std::vector<char> seen(g.nodes.size(), 0);
      std::vector<int> work{from};
      seen[static_cast<size_t>(from)] = 1;
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        for (int ei : succ[static_cast<size_t>(x)]) {
          const Edge& e = g.edges[static_cast<size_t>(ei)];
          if (e.distance == 0 && !seen[static_cast<size_t>(e.dst)]) {
            seen[static_cast<size_t>(e.dst)] = 1;
            work.push_back(e.dst);
          }
        }
      }
      return seen;
    };
    std::vector<std::pair<int, int>> order_edges;  // (super-node, register load)
    for (OpId id : L.body) {
      if (id == L.yield_op || !is_register_load(m, f, f.op(id), global_loads)) continue;
      const int ld = node_of[id];
      const auto from_load = reach(ld);
      for (const auto& sn : g.nodes) {
        if (!sn.super_node || from_load[static_cast<size_t>(sn.id)]) continue;
        const auto from_super = reach(sn.id);
        bool shared = false;
        for (size_t k = 0; k < g.nodes.size(); ++k)
          shared |= from_load[k] && from_super[k] && static_cast<int>(k) != ld;
        int64_t load_words = 0;
        for (ValueId r : f.op(id).results) load_words += reg_words(f.value(r).type);
        const bool fits = threads > 0 && (carried_words(sn) + load_words) / threads <=
                                             int64_t{t.budgets.setmaxnreg_max} * 3 / 4;
        if (shared && !fits) order_edges.emplace_back(sn.id, ld);
      }
    }
    for (auto [s, d] : order_edges) g.add_edge(s, d, g.nodes[static_cast<size_t>(s)].latency, 0);
  }
  // Rings: every TMA load fills a slot; its readers (through shared-memory views) end the
  // slot's lifetime. Readers that are one MMA share a group. TMA stores stage through a slot
  // that is busy until the store has read it.
  for (OpId id : L.body) {
    if (id == L.yield_op) continue;
    const Op& op = f.op(id);
    int n = node_of[id];
    if (g.nodes[n].op_class == "tma_load") {
      RingReq r;
      r.producer = n;
      r.def = n;
      const auto& users = f.value(op.results.at(0)).users;
      if (users.size() == 1 && f.op(users[0]).name == "ttg.local_alloc" && top(users[0]) >= 0)
        r.def = top(users[0]);
      const Type& ty = f.value(op.results.at(0)).type;
      r.bytes = ty.byte_size();
      r.shape = ty.shape;
      r.elem = ty.element_type().name;
      std::vector<int> frontier{r.def};
      std::set<int> seen;
      while (!frontier.empty()) {
        int x = frontier.back();
        frontier.pop_back();
        const Op& xo = f.op(g.nodes[x].op);
        for (ValueId res : xo.results)
          for (OpId u : f.value(res).users) {
            int un = top(u);
            if (un < 0 || !seen.insert(un).second) continue;
            // Views of the slot: memdesc ops, and a local_alloc of the loaded tile itself (a
            // load that registers read too keeps the slot on the load; the alloc aliases it).
            const bool alias = f.op(u).name == "ttg.local_alloc" && g.nodes[x].op == id;
            if (g.nodes[un].pipe == Pipe::NONE &&
                (f.op(u).name.rfind("ttg.memdesc", 0) == 0 || alias))
              frontier.push_back(un);
            else
              r.consumers.push_back(un);
          }
      }
      std::sort(r.consumers.begin(), r.consumers.end());
      if (r.consumers.empty()) r.consumers.push_back(r.def);
      if (r.consumers.size() == 1 && g.nodes[r.consumers[0]].pipe == Pipe::TC)
        r.group = r.consumers[0];
      g.rings.push_back(std::move(r));
    } else if (is_smem_exchange(m, f, op)) {
      // The exchanged tile in its source orientation (before tt.trans): what each warpgroup
      // holds rows of; the MMA reads it transposed when the IR transposed it.
      RingReq r;
      r.producer = n;
      r.def = n;
      r.exchange = true;
      const Type& ty = f.value(exchange_source(f, op)).type;
      r.bytes = ty.byte_size();
      r.shape = ty.shape;
      r.elem = ty.element_type().name;
      for (OpId u : f.value(op.results[0]).users) {
        const int un = top(u);
        if (un >= 0 && std::find(r.consumers.begin(), r.consumers.end(), un) == r.consumers.end())
          r.consumers.push_back(un);
      }
      std::sort(r.consumers.begin(), r.consumers.end());
      // A ring of its own (group -1): its barriers are armed by stores, not by TMA bytes.
      g.rings.push_back(std::move(r));
    } else if (g.nodes[n].op_class == "tma_store") {
      RingReq r;
      r.producer = n;
      r.def = n;
      r.consumers = {n};
      const Type& ty = f.value(op.operands.back()).type;
      r.bytes = ty.byte_size();
      r.shape = ty.shape;
      r.elem = ty.element_type().name;
      g.rings.push_back(std::move(r));
    }
  }
  // Facts for the partition.
  for (OpId id : L.body)
    if (f.op(id).name == "ttng.warp_group_dot" && out.facts.tile_rows == 0)
      out.facts.tile_rows = f.value(f.op(id).results.at(0)).type.shape.at(0);
  if (out.facts.tile_rows == 0)
    for (const auto& r : g.rings)
      if (!r.shape.empty() && g.nodes[r.producer].op_class == "tma_load") {
        out.facts.tile_rows = r.shape[0];
        break;
      }
  // Peak live register tensors over the body in program order, per op: operands whose last
  // use this is are freed first (elementwise results reuse their registers), then results are
  // added. Iter_args live until their last use, yielded values to the end. TMA results land in
  // shared memory and broadcasts / splats / expand_dims are views, so neither counts.
  std::vector<OpId> body(L.body.begin(), L.body.end());
  std::map<ValueId, size_t> last_use;
  for (size_t i = 0; i < body.size(); ++i) {
    std::vector<OpId> stack{body[i]};
    while (!stack.empty()) {
      const Op& o = f.op(stack.back());
      stack.pop_back();
      for (ValueId v : o.operands) last_use[v] = i;
      for (const auto& r : o.regions)
        for (const auto& b : r.blocks)
          for (OpId n : b.ops) stack.push_back(n);
    }
  }
  std::map<ValueId, int64_t> live;
  for (ValueId a : L.iter_args) live[a] = reg_words(f.value(a).type);
  auto total = [&] {
    int64_t s = 0;
    for (const auto& [v, w] : live) s += w;
    return s;
  };
  static const std::set<std::string> kViews = {"tt.broadcast",       "tt.splat",
                                               "tt.expand_dims",     "tt.make_range",
                                               "tt.descriptor_load", "arith.constant"};
  int64_t peak = total();
  for (size_t i = 0; i < body.size(); ++i) {
    const Op& o = f.op(body[i]);
    for (auto it = live.begin(); it != live.end();) {
      bool yielded = std::find(L.yielded.begin(), L.yielded.end(), it->first) != L.yielded.end();
      auto lu = last_use.find(it->first);
      bool dead = !yielded && (lu == last_use.end() || lu->second <= i);
      it = dead ? live.erase(it) : std::next(it);
    }
    if (!kViews.count(o.name) || is_register_load(m, f, o, global_loads))
      for (ValueId r : o.results) {
        int64_t w = reg_words(f.value(r).type);
        if (w > 0) live[r] = w;
      }
    peak = std::max(peak, total());
  }
  out.facts.peak_regs = peak;
  return out;
}

}  // namespace sched2cu::ddg
