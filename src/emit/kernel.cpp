// The __global__ function body: shared-memory pointers and barrier setup from the plan, program
// ids (with CTA rasterization), the function-scope scalar prologue shared by every role, and per
// warpgroup role its share of the function: setmaxnreg, function-scope ops it needs, every loop
// it works in (through the modulo expander) and, in the role owning the loop results, the ops
// after the loops. Every decision is read from the graph; what cannot be lowered is an error
// naming the op.
#include <algorithm>
#include <set>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

// Whether a function-scope staging overlaid on the rings (Ctx::overlaid) shares a byte with the
// staging that the stores of loop `li` or a loop nested in it read (descriptor stores and
// reduce-adds staged in a loop buffer): only then must those stores be drained before it.
bool overlay_meets_loop_staging(const Ctx& c, int li) {
  std::vector<int> nest{li};
  for (size_t i = 0; i < nest.size(); ++i)
    for (const auto& n : c.g.loops.at(static_cast<size_t>(nest[i])).nodes)
      if (n.child_loop >= 0) nest.push_back(n.child_loop);
  auto span = [&](const sgraph::Buffer& b) {
    const long long at = c.buf_offset.at(b.id);
    return std::pair{at, at + static_cast<long long>(b.bytes) * std::max(b.depth, 1)};
  };
  for (const auto& s : c.g.buffers) {
    if (std::find(nest.begin(), nest.end(), s.loop) == nest.end() ||
        !ttgir::is_descriptor_store(c.op(s.producer_op).name))
      continue;
    const auto [s0, s1] = span(s);
    for (int o : c.overlaid) {
      const auto [o0, o1] = span(c.g.buffers.at(static_cast<size_t>(o)));
      if (o0 < s1 && s0 < o1) return true;
    }
  }
  return false;
}

bool is_view_op(const std::string& n) {
  static const std::set<std::string> v = {
      "tt.splat",          "arith.constant", "ttg.local_alloc", "tt.make_tensor_descriptor",
      "ttg.memdesc_trans", "tt.expand_dims", "tt.broadcast",    "ttg.convert_layout"};
  return v.count(n) != 0;
}

[[noreturn]] void fail_no_role(const Ctx& c, int loop_op, int yielded) {
  c.fail(loop_op, "the loop yields %" + c.f.value(yielded).name +
                      ", which the schedule placed in no role (no role's loads, MMAs or stores "
                      "depend on it): a loop that carries only scalars is not lowered yet");
}

// The role owning the values a top-level loop yields (its results are used there), or -1.
int result_role(const Ctx& c, int li) {
  const auto& L = c.g.loops.at(static_cast<size_t>(li));
  ttgir::ForLoop fl = c.f.for_loop(L.op);
  int role = -1;
  bool remat = false;
  const auto& results = c.op(L.op).results;
  for (size_t k = 0; k < fl.yielded.size(); ++k) {
    const int y = fl.yielded[k];
    // A result nothing reads after the loop has no owner to agree on (the tutorial attention's
    // K/V row offsets, advanced by the producer for its loads, beside the consumer's acc).
    if (k < results.size() && c.f.value(results[k]).users.empty()) continue;
    const ttgir::Op* d = c.f.def_op(y);
    const sgraph::Node* n = d ? c.node_of(li, d->id) : nullptr;
    // Index-like math that every role may recompute (role -1: loop-carried scalars that only
    // read each other, an online log-sum-exp's running max and sum) goes with the other results,
    // else to the consumer.
    if (n != nullptr && n->role == -1 && n->pipeline == "NONE") {
      remat = true;
      continue;
    }
    if (n == nullptr || n->role < 0) fail_no_role(c, L.op, y);
    if (role != -1 && role != n->role)
      c.fail(L.op, "loop-carried values owned by several roles: not implemented yet");
    role = n->role;
  }
  if (role == -1 && remat) {
    // The consumer, when it runs the loop at all (it has work there: its loads or math).
    for (const auto& r : c.g.launch.roles)
      if (r.kind == "consumer")
        for (const auto& n : L.nodes)
          if (n.role == r.id) return r.id;
    fail_no_role(c, L.op, fl.yielded.at(0));
  }
  return role;
}

// The phase join (docs/emitter.md, "Phases"): before a top-level loop nest refills the ring
// pool, its producer waits until every slot of the previous phase's rings it filled has been
// released by the consumers (the slots the next `depth` fills of each ring would take: a slot
// that phase never filled is free from the start). The counters are the iterations that phase
// ran: a nested loop's counter has been advanced after each run, a top-level loop's is its
// trip count. `li` starts phase ph > 0.
std::vector<Stmt> phase_join(const Ctx& c, const sgraph::Role& r, int li) {
  std::vector<Stmt> out;
  const int ph = c.phase_of(li);
  for (size_t pl = 0; pl < c.g.loops.size(); ++pl) {
    if (c.phase_of(static_cast<int>(pl)) != ph - 1) continue;
    const auto& L = c.g.loops[pl];
    const std::string n = S(static_cast<long long>(pl));
    std::string count = "it" + n;
    if (L.parent_loop < 0) count.append(" + T").append(n);
    for (const auto& rg : L.rings)
      for (const auto& ch : L.channels)
        if (ch.ring == rg.id && ch.producer_role == r.id)
          out.push_back(
              for_("int j = 0", "j < " + S(rg.depth), "++j",
                   {ring_op(Stmt::Kind::WaitEmpty, c.ring_name(static_cast<int>(pl), rg.id),
                            rg.depth, count + " + j", "")},
                   "phase join: every slot of loop " + n + "'s ring " + S(rg.id) +
                       " released before loop " + S(li) + " refills the pool"));
  }
  return out;
}

std::vector<Stmt> lower_role(Ctx& c, const sgraph::Role& r, const std::vector<int>& prologue) {
  // Blocked tensors span the role's warps, unless ping-pong warpgroups each work on their own.
  c.blocked_warps = r.pingpong ? 4 : 4 * static_cast<int>(r.warpgroups.size());
  c.blocked_role = r.id;
  Lower L(c, r);
  std::vector<Stmt> body;
  for (const auto& p : c.g.kernel.params) {  // kernel arguments: scalars (pointers included)
    Val v;
    v.lay = Lay::Scalar;
    v.elem = c.type(p.value).kind == ttgir::Type::Kind::Ptr ? "ptr" : c.type(p.value).name;
    v.storage = p.value;
    L.set(p.value, v);
  }
  const auto& top = c.f.top_ops();
  for (int op : prologue)
    for (int res : c.op(op).results) {
      Val v;
      v.lay = Lay::Scalar;
      v.elem = c.type(res).name;
      v.storage = res;
      L.set(res, v);
    }
  std::set<int> pro(prologue.begin(), prologue.end());
  int epi_role = -1;
  for (size_t li = 0; li < c.g.loops.size(); ++li)
    if (c.g.loops[li].parent_loop < 0) {
      int rr = result_role(c, static_cast<int>(li));
      if (rr >= 0) {
        if (epi_role >= 0 && epi_role != rr)
          c.fail(c.g.loops[li].op, "loop results owned by several roles: not implemented yet");
        epi_role = rr;
      }
    }
  bool after_loop = false;
  std::vector<Stmt> between;  // scalar statements since the last loop (re-emitted, see below)
  size_t body_at_loop = 0;    // body size right before the last loop's statements
  for (int op : top) {
    if (pro.count(op)) continue;
    const ttgir::Op& o = c.op(op);
    const int li = c.loop_index(op);
    if (li >= 0) {
      if (!role_works_in(L, li)) {
        body.push_back(comment("loop " + S(li) + ": no work in this role"));
        // Its results are not used in this role (the owner runs the code after the loops).
      } else {
        if (c.g.loops[static_cast<size_t>(li)].parent_loop < 0 && c.phase_of(li) > 0) {
          // A phase starts: the previous phase's zero-trip split ends here. The scalar index
          // math computed since that loop was declared inside its branches: declare it again.
          bool split = false;
          for (size_t k = body_at_loop; k < body.size(); ++k)
            split |= body[k].kind == Stmt::Kind::ZeroTripSplit;
          body.push_back(split_end());
          if (split) body.insert(body.end(), between.begin(), between.end());
          auto j = phase_join(c, r, li);
          body.insert(body.end(), j.begin(), j.end());
        }
        between.clear();
        auto v = expand_loop(L, li);
        body_at_loop = body.size();  // the loop's own statements hold its zero-trip split
        body.insert(body.end(), v.begin(), v.end());
        if (L.stores_in_flight) {
          // The loop's stores may stay in flight into a later function-scope store of the same
          // phase, whose thread drains them before exit, unless a staging overlaid after the
          // loops rewrites bytes they read or a later phase reuses them.
          const bool later_drains =
              later_fn_store(c, op) && !c.later_phase(op) && !overlay_meets_loop_staging(c, li);
          if (!later_drains)
            body.push_back(
                guarded("thread_idx_in_warpgroup() == 0", bulk_wait(0, true, kExitWait)));
          L.stores_in_flight = false;
        }
      }
      after_loop = true;
      continue;
    }
    if (o.name == "scf.for") c.fail(op, "loop has no schedule in the graph");
    if (o.name == "tt.return") continue;
    // After a loop its owner runs the code; where a later phase follows, every role keeps the
    // scalar index math that phase may read.
    bool scalar_for_later = after_loop && is_scalar_op(c, op) && c.later_phase(op);
    // Only index math this role can compute: a scalar derived from another role's values (a
    // reduction of the consumer's tiles between two row loops) stays with its owner.
    if (scalar_for_later && r.id != epi_role)
      for (int v : o.operands) scalar_for_later &= L.has(v);
    if (after_loop && r.id != epi_role && !scalar_for_later) continue;
    if (!after_loop) {
      // Before the loops: views everywhere, a resident TMA load in its channel's producer,
      // register math in consumers.
      if (o.name == "tt.descriptor_load" && c.fill_of(op) != nullptr) {
        // A staging fill (staged.cpp) in the role that stores after the loops: issued inside the
        // next loop in which this role issues MMAs, after its first MMAs (Expander::defer_fills
        // for fills inside a loop), else here.
        if (r.id != epi_role) continue;
        Lowered low = L.lower(op);
        int next = -1;
        for (auto it = std::find(top.begin(), top.end(), op); it != top.end() && next < 0; ++it) {
          const int at = c.loop_index(*it);
          if (at >= 0 && c.role_issues_mmas(at, r.id)) next = at;
        }
        if (next >= 0) {
          L.fills_in_loop[next] = low.body;
          body.push_back(comment(c.note(op) + ": staging fill issued in loop " + S(next) +
                                 ", after its first MMA of iteration 1"));
        } else {
          body.insert(body.end(), low.body.begin(), low.body.end());
        }
        continue;
      }
      if (o.name == "tt.descriptor_load") {
        const auto& users = c.f.value(o.results.at(0)).users;
        const sgraph::Buffer* b = users.size() == 1 ? c.buffer_of(users[0]) : nullptr;
        if (b == nullptr && c.buffer_of(op) == nullptr) {
          // No buffer: a plain load into registers (a kernel without loops), the consumers'.
          if (r.kind != "consumer") continue;
        } else {
          const sgraph::FnChannel* ch = b ? c.fn_channel_of(b->id) : nullptr;
          if (ch == nullptr)
            c.fail(op, "a load before the loops needs a resident buffer and channel");
          if (ch->producer_role != r.id) continue;
        }
      } else if (!is_view_op(o.name) && r.kind != "consumer") {
        continue;
      } else if (r.kind != "consumer") {
        // A producer keeps the views of what it issues (descriptors, buffers), not register views.
        bool known = true;
        for (int v : o.operands) known &= L.has(v);
        bool reg = false;
        for (int res : o.results) reg |= is_blocked_type(c, c.type(res));
        if (!known || reg) continue;
      }
    }
    Lowered low = L.lower(op);
    // A tensor built from nothing but ranges and views between two phases (the causal tutorial's
    // column range for the second loop's mask) is pure too: declared again after the split, like
    // the scalar index math (it was declared inside the zero-trip branches only).
    const bool pure_for_later = after_loop && r.id == epi_role && c.later_phase(op) &&
                                (o.name == "tt.make_range" || is_view_op(o.name));
    if (scalar_for_later || pure_for_later) {
      between.insert(between.end(), low.decls.begin(), low.decls.end());
      between.insert(between.end(), low.body.begin(), low.body.end());
    }
    body.insert(body.end(), low.decls.begin(), low.decls.end());
    body.insert(body.end(), low.body.begin(), low.body.end());
  }
  split_zero_trip(body);
  std::vector<Stmt> out;
  // One role (no producer warpgroup) has every register the launch bounds give: nothing to move.
  if (c.g.launch.roles.size() > 1)
    out.push_back(code(std::string(r.kind == "producer" ? "setmaxnreg_dec<" : "setmaxnreg_inc<") +
                       S(r.regs) + ">();"));
  if (r.warpgroups.size() > 1)
    out.push_back(code("const int slice = wg - " + S(r.warpgroups.front()) + ";",
                       "warpgroup slice of the role"));
  if (r.pingpong) {
    out.push_back(
        guarded("slice == 0", named_bar(Stmt::Kind::NamedArrive, c.bar_turn(0), 256,
                                        "ping-pong: the first warpgroup takes the first turn")));
    body.push_back(guarded(
        "slice == 0", named_bar(Stmt::Kind::NamedSync, c.bar_turn(0), 256,
                                "ping-pong: absorb the last warpgroup's final turn hand-over")));
  }
  if (r.kind == "producer") {
    // A producer only issues TMA: one elected thread runs all of it.
    std::set<std::string> maps;
    std::vector<Stmt> pre;
    for (const auto& [key, d] : c.descs) {
      bool loads = false;
      for (int u : c.f.value(d.value).users) loads |= c.op(u).name == "tt.descriptor_load";
      if (loads && !d.box.empty() && maps.insert(d.map).second)
        pre.push_back(code("tma_prefetch_desc(&" + d.map + ");"));
    }
    pre.insert(pre.end(), body.begin(), body.end());
    out.push_back(if_("warp_idx_in_warpgroup() == 0 && elect_one_sync()", pre,
                      "one elected thread issues TMA"));
  } else {
    out.insert(out.end(), body.begin(), body.end());
  }
  return out;
}

// `Ring<depth>* const name` at byte `off` of the dynamic shared memory.
Stmt ring_ptr(const std::string& name, int depth, long long off, std::string note) {
  const std::string ty = "Ring<" + S(depth) + ">";
  return code(ty + "* const " + name + " = reinterpret_cast<" + ty + "*>(smem + " + S(off) + ");",
              std::move(note));
}

}  // namespace

std::vector<Stmt> lower_kernel(Ctx& c) {
  const auto& top = c.f.top_ops();
  // A kernel without loops (an elementwise kernel) is all function-scope code: its whole body
  // is the prologue's scalar math plus the roles' straight-line register code.
  int first_loop = static_cast<int>(top.size());
  for (size_t i = 0; i < top.size(); ++i)
    if (c.op(top[i]).name == "scf.for") {
      first_loop = static_cast<int>(i);
      break;
    }
  // Function-scope scalar prologue (index math) shared by every role.
  std::vector<int> prologue;
  std::vector<Stmt> pro;
  {
    Lower L0(c, c.g.launch.roles.at(0));
    for (int i = 0; i < first_loop; ++i) {
      const int op = top[static_cast<size_t>(i)];
      if (!is_scalar_op(c, op)) continue;
      // Index math from the arguments only: a scalar derived from a role's tiles (a loop-free
      // kernel's `tl.max` of its block, then a scale from it) is that role's.
      bool known = true;
      for (int v : c.op(op).operands) {
        const ttgir::Op* d = c.f.def_op(v);
        known &=
            d == nullptr || std::find(prologue.begin(), prologue.end(), d->id) != prologue.end();
      }
      if (!known) continue;
      prologue.push_back(op);
      Lowered low = L0.lower(op);
      pro.insert(pro.end(), low.body.begin(), low.body.end());
    }
  }
  // Roles first: their lowering fixes the TMA boxes the head and the host need.
  std::vector<Stmt> roles;
  for (const sgraph::Role& r : c.g.launch.roles) {
    int lo = r.warpgroups.front(), hi = r.warpgroups.back();
    if (hi - lo + 1 != static_cast<int>(r.warpgroups.size()))
      throw Error("emit: role " + r.name + ": non-contiguous warpgroups are not implemented");
    std::string cond = lo == hi ? "wg == " + S(lo) : "wg >= " + S(lo) + " && wg <= " + S(hi);
    roles.push_back(if_(cond, lower_role(c, r, prologue),
                        "role " + S(r.id) + " " + r.name + " (" + r.kind + ", " + S(r.regs) +
                            " regs" + (r.pingpong ? ", ping-pong" : "") + ")"));
  }
  std::vector<Stmt> chain;
  for (size_t i = roles.size(); i-- > 0;) {
    if (!chain.empty()) roles[i].else_body = chain;
    chain = {roles[i]};
  }
  std::vector<Stmt> head;
  head.push_back(code("uint8_t* const smem = smem_align<1024>(dyn_smem);"));
  for (const auto& b : c.g.buffers)
    head.push_back(
        code("uint8_t* const " + c.buf_name(b.id) + " = smem + " + S(c.buf_offset.at(b.id)) + ";",
             "buffer " + S(b.id) + ": " + S(b.depth) + " x " + S(b.bytes) + " B, " +
                 c.note(b.producer_op)));
  std::vector<Stmt> init;
  for (size_t li = 0; li < c.g.loops.size(); ++li)
    for (const auto& rg : c.g.loops[li].rings) {
      auto off = c.ring_offset.find({static_cast<int>(li), rg.id});
      if (off == c.ring_offset.end()) continue;
      std::string name = c.ring_name(static_cast<int>(li), rg.id);
      head.push_back(ring_ptr(name, rg.depth, off->second,
                              "loop " + S(static_cast<long long>(li)) + " ring " + S(rg.id)));
      for (const auto& ch : c.g.loops[li].channels)
        if (ch.ring == rg.id)
          init.push_back(ring_init(name, rg.depth, ch.full_arrivals, ch.empty_arrivals,
                                   "channel " + S(ch.id) + ": role " + S(ch.producer_role) +
                                       " -> role " + S(ch.consumer_role)));
    }
  if (!c.g.channels.empty()) {
    head.push_back(code("uint64_t* const fn_bar = reinterpret_cast<uint64_t*>(smem + " +
                            S(c.fn_bar_offset.at(0)) + ");",
                        "function-scope channels' full barriers"));
    for (const auto& ch : c.g.channels)
      init.push_back(bar_init(c.fn_bar(ch.id), ch.full_arrivals,
                              "channel " + S(ch.id) + ": buffer " + S(ch.buffer) + ", role " +
                                  S(ch.producer_role) + " -> role " + S(ch.consumer_role)));
  }
  for (const auto& b : c.g.buffers) {
    if (b.fill_op < 0) continue;
    const std::string name = c.fill_ring(b.id);
    head.push_back(ring_ptr(name, c.fill_slots(b), c.fill_offset.at(b.id),
                            "buffer " + S(b.id) + "'s fills (" + c.note(b.fill_op) +
                                "): " + S(b.depth) + " slots per warpgroup"));
    // Full: the storing thread's arm; the empty half is unused (the staging's reuse is ordered
    // by that thread's bulk-group waits).
    init.push_back(ring_init(name, c.fill_slots(b), 1, 1,
                             "fills of buffer " + S(b.id) + " (" + c.note(b.fill_op) + ")"));
  }
  std::vector<Stmt> after_sync;
  split_head(c, head, init, after_sync);
  init.push_back(sync_op(Stmt::Kind::InitFence));
  head.push_back(if_("threadIdx.x == 0", init));
  head.push_back(sync_op(Stmt::Kind::CtaSync));
  head.insert(head.end(), after_sync.begin(), after_sync.end());
  head.push_back(code("const int wg = warpgroup_idx();"));
  if (c.scratch_bytes > 0) {
    // Per-warpgroup scratch of the blocked reductions and conversions, after everything else.
    const long long off = (c.smem_bytes + 127) / 128 * 128;
    // A cooperative role of several warpgroups shares its first warpgroup's scratch, which holds
    // its widest reduction (the role's warps are contiguous, and so are their scratch spans).
    std::string base = "wg";
    for (const sgraph::Role& r : c.g.launch.roles)
      if (r.warpgroups.size() > 1 && !r.pingpong && c.role_scratch.count(r.id) != 0)
        base = std::string("(wg >= ")
                   .append(S(r.warpgroups.front()))
                   .append(" && wg <= ")
                   .append(S(r.warpgroups.back()))
                   .append(" ? ")
                   .append(S(r.warpgroups.front()))
                   .append(" : ")
                   .append(base)
                   .append(")");
    head.push_back(code("uint8_t* const scratch = smem + " + S(off) + " + " + base + " * " +
                            S(c.scratch_bytes) + ";",
                        "blocked-layout scratch, " + S(c.scratch_bytes) + " B per warpgroup"));
    c.smem_bytes = off + c.scratch_bytes * c.g.launch.warpgroups;
    if (c.smem_bytes + 1024 > c.g.target.smem_bytes)
      throw Error("emit: shared memory plan with the blocked-layout scratch needs " +
                  S(c.smem_bytes + 1024) + " B, target " + c.g.target.name + " has " +
                  S(c.g.target.smem_bytes));
  }
  const int G = c.g.launch.raster_group;
  if (G > 0) {
    head.push_back(comment("CTA rasterization (launch.raster_group " + S(G) + "): groups of " +
                           S(G) + " x-programs share the y-indexed operand in L2"));
    head.push_back(code(c.split_loop >= 0
                            ? "const int cta_ = static_cast<int>(blockIdx.x / split_n);  // a "
                              "cluster is one program"
                            : "const int cta_ = static_cast<int>(blockIdx.x);"));
    head.push_back(code("const int group_ = " + S(G) + " * num_programs_y;"));
    head.push_back(code("const int first_x_ = cta_ / group_ * " + S(G) + ";"));
    head.push_back(code("const int gsize_ = min(num_programs_x - first_x_, " + S(G) + ");"));
    head.push_back(named_decl("int", "program_id_x", "first_x_ + cta_ % group_ % gsize_", true));
    head.push_back(named_decl("int", "program_id_y", "cta_ % group_ / gsize_", true));
    head.push_back(named_decl("int", "program_id_z", "0", true));
  } else {
    head.push_back(named_decl("int", "program_id_x",
                              c.split_loop >= 0 ? "static_cast<int>(blockIdx.x / split_n)"
                                                : "static_cast<int>(blockIdx.x)",
                              true, c.split_loop >= 0 ? "a cluster (along x) is one program" : ""));
    head.push_back(named_decl("int", "program_id_y", "static_cast<int>(blockIdx.y)", true));
    head.push_back(named_decl("int", "program_id_z", "static_cast<int>(blockIdx.z)", true));
  }
  head.insert(head.end(), pro.begin(), pro.end());
  head.insert(head.end(), chain.begin(), chain.end());
  if (c.split_loop >= 0) split_guard_writes(head);
  Namer name = [&](int value, int age) -> std::string {
    if (is_pseudo(value)) throw Error("emit: internal: an unresolved loop counter reference");
    if (age == 0) {
      auto it = c.alias.find(value);
      if (it != c.alias.end() && it->second.first != value)
        return age == 0 && it->second.second == 0
                   ? c.ident(it->second.first)
                   : c.ident(it->second.first) + "_c" + S(it->second.second);
    }
    return age == 0 ? c.ident(value) : c.ident(value) + "_c" + S(age);
  };
  resolve_names(head, name);
  drop_unused_decls(head);
  return head;
}

}  // namespace sched2cu::emit
