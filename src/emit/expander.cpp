// The per-role modulo expander (docs/emitter.md, "Modulo expander"). For one role and one
// scheduled loop it takes the role's nodes (plus the views and index math they need), lowers each
// op once through the op table into a template, places it at its cycle (stage = cycle / II,
// position = cycle mod II) together with the ring-protocol events the graph implies (wait for a
// slot's data at its first reader, release it when its last reader completes, wait for a free
// slot and arm it before the first load into it), and emits prologue, steady state and drain:
// step k runs stage s of iteration k - s. A value read a steps after the step that defined it is
// read from its carried copy `x_c<a>`, shifted at the start of every step. wgmma waits are derived
// by simulating the emitted sequence for several trip counts: before a register read of an MMA
// result, before a slot release and before a write to registers an MMA still reads, the depth is
// the number of MMA groups issued since (minimum over every execution). Under ping-pong the
// role's warpgroups take turns issuing each step's MMAs. Never reorders what the graph ordered.
#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <tuple>

#include "expander.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit::detail {

void Expander::select_nodes() {
  std::map<int, int> node_of_op;
  for (const auto& n : loop_.nodes) node_of_op[n.op] = n.id;
  for (const auto& n : loop_.nodes)
    for (int r : c_.op(n.op).results) def_node_[r] = n.id;
  std::set<int> in;
  std::vector<int> work;
  for (const auto& n : loop_.nodes) {
    bool own =
        n.child_loop >= 0 ? works_in(L_, n.child_loop) : n.role == L_.r.id && n.pipeline != "NONE";
    if (own && in.insert(n.id).second) work.push_back(n.id);
  }
  // Loop results used after the loop pull in what is yielded into them (a scalar chain such as
  // an online softmax's running sum may be read by nothing inside the loop), when this role
  // computes it or it is replicated math.
  for (size_t k = 0; k < fl_.results.size(); ++k) {
    if (c_.f.value(fl_.results[k]).users.empty()) continue;
    auto it = def_node_.find(fl_.yielded[k]);
    if (it == def_node_.end()) continue;
    const Node& p = node(it->second);
    if ((p.role == L_.r.id || p.pipeline == "NONE") && in.insert(p.id).second) work.push_back(p.id);
  }
  bool grew = true;
  while (grew) {
    while (!work.empty()) {
      const int id = work.back();
      work.pop_back();
      const ttgir::Op& o = c_.op(node(id).op);
      if (o.name == "ttg.local_alloc" && c_.buffer_of(o.id) != nullptr) continue;  // a view
      const int child = node(id).child_loop;
      for (int v : child >= 0 ? role_free_values(L_, child) : free_values(c_.f, o.id)) {
        auto it = def_node_.find(v);
        if (it == def_node_.end()) continue;  // outer value, iter_arg or induction variable
        const Node& p = node(it->second);
        const bool remat = p.pipeline == "NONE" || is_scalar_op(c_, p.op);
        const sgraph::Buffer* own = c_.buffer_of(p.op);
        if (!remat && p.role != L_.r.id && own != nullptr &&
            c_.op(p.op).name == "tt.descriptor_load") {
          // A TMA load of another role into a ring slot of its own: read from the slot here.
          bind_smem_tile(L_, p.op, *own);
          continue;
        }
        if (!remat && p.role != L_.r.id)
          c_.fail(o.id, "reads %" + c_.f.value(v).name + ", computed in registers by role " +
                            c_.role(p.role).name +
                            ": values crossing roles through registers "
                            "need a shared-memory channel (not implemented)");
        if (in.insert(p.id).second) work.push_back(p.id);
      }
    }
    // Iter_args read by included nodes pull in the nodes defining what is yielded into them.
    grew = false;
    for (int id : std::vector<int>(in.begin(), in.end()))
      for (int v : free_values(c_.f, node(id).op))
        for (size_t k = 0; k < fl_.iter_args.size(); ++k)
          if (fl_.iter_args[k] == v) {
            auto it = def_node_.find(fl_.yielded[k]);
            if (it != def_node_.end() && in.insert(it->second).second) {
              work.push_back(it->second);
              grew = true;
            }
          }
  }
  nodes_.assign(in.begin(), in.end());
  std::sort(nodes_.begin(), nodes_.end(), [&](int a, int b) { return node(a).op < node(b).op; });
}

// Zero-initialized accumulators whose value on iteration 0 only ever reaches MMAs as their C
// operand (directly or through multiplications): the zero folds into scale-d, so no fill runs
// ahead of the wgmma chain (a fill there makes ptxas serialize the loop's wgmmas, C7515).
bool foldable_chain(const Ctx& c, int value) {
  const auto& users = c.f.value(value).users;
  if (users.empty()) return false;
  for (int u : users) {
    const ttgir::Op& o = c.op(u);
    if (o.name == "ttng.warp_group_dot" && o.operands.size() == 3 && o.operands[2] == value &&
        o.operands[0] != value && o.operands[1] != value)
      continue;
    if (o.name == "arith.mulf" && !c.type(o.results.at(0)).is_scalar() &&
        foldable_chain(c, o.results[0]))
      continue;
    return false;
  }
  return true;
}

void Expander::lower_nodes(std::vector<Stmt>& pre) {
  // The induction variable and the iter_args.
  Val iv;
  iv.lay = Lay::Scalar;
  iv.elem = c_.type(fl_.iv).name;
  iv.storage = fl_.iv;
  L_.set(fl_.iv, iv);
  for (size_t k = 0; k < fl_.iter_args.size(); ++k) {
    const int ia = fl_.iter_args[k], y = fl_.yielded[k];
    if (def_node_.count(y) && !node_stage_.count(def_node_.at(y)) &&
        std::find(nodes_.begin(), nodes_.end(), def_node_.at(y)) == nodes_.end())
      continue;  // carried by another role
    yield_of_[ia] = y;
    if (!def_node_.count(y))
      fail("iter_arg " + S(static_cast<long long>(k)) +
           " is yielded a value not computed in the loop (not implemented)");
    Val v = L_.from_type(ia, loop_.op);
    const Val& init = L_.val(fl_.inits[k], loop_.op);
    const ttgir::Op* init_op = c_.f.def_op(fl_.inits[k]);
    const ttgir::Attribute* lit = init_op ? init_op->attr("value") : nullptr;
    const bool zero_init = init.lay == Lay::Splat && init_op && init_op->name == "arith.constant" &&
                           lit && lit->kind == ttgir::Attribute::Kind::Dense &&
                           lit->elems.size() == 1 && is_zero_literal(lit->elems[0]);
    // An accumulator updated in place by one MMA (C = the iter_arg, D yielded straight back):
    // one variable, no carried copy.
    const ttgir::Op* yd = c_.f.def_op(y);
    const bool inplace = v.lay == Lay::Acc && yd && yd->name == "ttng.warp_group_dot" &&
                         yd->operands.at(2) == ia && c_.f.value(ia).users.size() == 1 &&
                         c_.f.value(y).users.size() == 1;
    if (inplace) v.storage = y;
    if (zero_init && v.lay == Lay::Acc && foldable_chain(c_, ia)) v.zero_iter = ia;
    L_.set(ia, v);
    // The carried variable starts as the init value (what iteration -1 "yielded").
    if (v.zero_iter >= 0) continue;
    if (init.lay == Lay::Splat) {
      const Text x = init.scalar.empty() ? R(init.scalar_value) : Text(init.scalar);
      if (v.lay == Lay::BTile || v.lay == Lay::BRow || v.lay == Lay::BCol) {
        pre.push_back(code("bmap(" + R(y) + ", [](auto x0) { return x0; }, bsplat(" + x + "));",
                           "iter_arg " + S(static_cast<long long>(k)) + " starts at its init"));
        continue;
      }
      const char* fill = v.lay == Lay::Acc   ? "acc_fill"
                         : v.lay == Lay::Row ? (v.partial ? "row_fill_quad_sum" : "row_fill")
                         : v.lay == Lay::Col ? "col_fill"
                                             : nullptr;
      if (fill == nullptr) fail("iter_arg " + S(static_cast<long long>(k)) + ": unsupported init");
      pre.push_back(code(Text(fill) + "(" + R(y) + ", " + x + ");",
                         "iter_arg " + S(static_cast<long long>(k)) + " starts at its init"));
    } else {
      pre.push_back(code(R(y) + " = " + R(init.storage) + ";",
                         "iter_arg " + S(static_cast<long long>(k)) + " starts at its init"));
    }
  }
}

// Stages and positions of every event: the graph's (window origin 0), the same schedule seen from
// another origin (cycles shifted so that the steady state's loop back edge falls right before the
// event at `origin`; stages renumbered from 0), or the reference order (`sequential`: every event
// in stage 0, by cycle: one iteration at a time, no overlap).
void Expander::place(long long origin, bool sequential) {
  const long long shift = origin > 0 ? ii_ - origin : 0;
  int smin = INT_MAX;
  for (auto& e : ev_) {
    const long long t = e.t + shift;
    e.stage = sequential ? 0 : static_cast<int>(t / ii_);
    e.pos = sequential ? e.t : t % ii_;
    smin = std::min(smin, e.stage);
  }
  S_ = 1;
  node_stage_.clear();
  for (auto& e : ev_) {
    e.stage -= smin == INT_MAX ? 0 : smin;
    S_ = std::max(S_, e.stage + 1);
    if (e.kind == Event::Kind::Op) node_stage_[e.node] = e.stage;
  }
  order_.resize(ev_.size());
  for (size_t i = 0; i < ev_.size(); ++i) order_[i] = static_cast<int>(i);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    const Event& x = ev_[static_cast<size_t>(a)];
    const Event& y = ev_[static_cast<size_t>(b)];
    const int nx = x.node >= 0 ? node(x.node).op : -1, ny = y.node >= 0 ? node(y.node).op : -1;
    // A nested loop (super-node) starting at the same cycle as another op goes after it: the
    // loop spans from that cycle on, the op is issued at it (a prefetch before the inner loop).
    const int lx = nx >= 0 && c_.op(nx).name == "scf.for" ? 1 : 0;
    const int ly = ny >= 0 && c_.op(ny).name == "scf.for" ? 1 : 0;
    return std::tie(x.pos, x.t, x.rank, lx, nx) < std::tie(y.pos, y.t, y.rank, ly, ny);
  });
  rank_.clear();
  def_event_.clear();
  for (size_t r = 0; r < order_.size(); ++r) {
    const int i = order_[r];
    rank_[i] = static_cast<int>(r);
    const Event& e = ev_[static_cast<size_t>(i)];
    if (e.kind == Event::Kind::Op) def_event_[e.node] = i;
  }
  all_.clear();
  if (S_ == 1) {
    all_ = section(1, 0);
  } else {
    for (int p = 0; p + 1 < S_; ++p)
      for (const auto& si : section(0, p)) all_.push_back(si);
    for (const auto& si : section(1, 0)) all_.push_back(si);
    for (int e = 0; e + 1 < S_; ++e)
      for (const auto& si : section(2, e)) all_.push_back(si);
  }
}

// A staging fill (Ctx::fill_of) followed in its stage by an inner loop in which this role issues
// MMAs is issued inside that loop, after its first MMA of iteration 1: issued before the loop,
// its bytes compete with the ring's first fills for memory bandwidth and the loop starts later
// (case5 on the H200, gen/hw at 1024³ and 2048³: 0.97–0.98 and 0.96–0.97 before the loop,
// 0.99–1.01 and 1.00 inside it, side by side).
void Expander::defer_fills(std::set<int>& deferred) {
  for (int id : nodes_) {
    const Node& n = node(id);
    if (n.child_loop >= 0 || c_.fill_of(n.op) == nullptr) continue;
    const Node* next = nullptr;
    for (int j : nodes_) {
      const Node& m = node(j);
      if (m.child_loop < 0 || m.stage != n.stage || m.cycle < n.cycle) continue;
      if (c_.role_issues_mmas(m.child_loop, L_.r.id) && (next == nullptr || m.cycle < next->cycle))
        next = &m;
    }
    if (next == nullptr) continue;
    L_.fills_in_loop[next->child_loop] = L_.lower(n.op).body;
    Lowered stub;
    stub.body.push_back(comment(c_.note(n.op) + ": staging fill issued in loop " +
                                S(next->child_loop) + ", after its first MMA of iteration 1"));
    lowered_[id] = stub;
    deferred.insert(id);
  }
}

std::vector<Stmt> Expander::run() {
  fl_ = c_.f.for_loop(loop_.op);
  k_ = "k" + S(li_);
  T_ = "T" + S(li_);
  it_ = "it" + S(li_);
  select_nodes();
  std::vector<Stmt> unused;
  lower_nodes(unused);
  // A fill of the enclosing loop to issue here, and the MMA it follows.
  if (auto f = L_.fills_in_loop.find(li_); f != L_.fills_in_loop.end()) {
    fills_ = std::move(f->second);
    L_.fills_in_loop.erase(f);
    for (int id : nodes_) {
      const Node& n = node(id);
      if (n.pipeline != "TC" || n.role != L_.r.id) continue;
      if (fill_anchor_ < 0 ||
          std::tie(n.stage, n.cycle) < std::tie(node(fill_anchor_).stage, node(fill_anchor_).cycle))
        fill_anchor_ = id;
    }
    if (fill_anchor_ < 0)
      fail("internal: a deferred staging fill but no MMA of the role to follow");
  }
  std::set<int> deferred;
  defer_fills(deferred);
  // Every included node once, in program order; nested loops recursively (their code is the
  // super-node's template).
  for (int id : nodes_) {
    const Node& n = node(id);
    if (deferred.count(id)) continue;
    if (n.child_loop >= 0) {
      Expander inner(L_, n.child_loop);
      Lowered low;
      low.body = inner.run();
      low.decls = inner.decls;
      lowered_[id] = low;
    } else {
      lowered_[id] = L_.lower(n.op);
    }
  }
  remat_ = rematerialize_index_math();
  make_events();
  // Where the steady state's loop back edge goes: first with the graph's window, derive the waits
  // and look for a full drain after register math (see choose_origin), then rotate to it.
  collect_ages();
  long long origin = 0;
  {
    std::map<int, int> w;
    std::map<int, std::vector<Text>> f;
    bool ew = false;
    std::vector<Text> ef;
    derive_waits(w, f, ew, ef);
    origin = choose_origin(w);
  }
  max_age_.clear();
  cross_step_.clear();
  place(origin, false);
  collect_ages();
  share_tile_storage();
  const int S_pipe = S_;
  std::map<int, int> result_age;
  for (size_t k = 0; k < fl_.results.size(); ++k) {
    const int y = fl_.yielded[k];
    if (!yield_of_.count(fl_.iter_args[k])) continue;  // another role's
    const Val& yv = L_.val(y, loop_.op);
    const bool inplace = L_.val(fl_.iter_args[k], loop_.op).storage == y;
    const int a = inplace ? 0 : S_ - 1 - node_stage_.at(def_node_.at(y));
    result_age[static_cast<int>(k)] = a;
    if (a > 0) max_age_[y] = std::max(max_age_[y], a);
    Val rv = yv;
    rv.storage = fl_.results[k];
    rv.zero_iter = -1;
    L_.set(fl_.results[k], rv);
    c_.alias[fl_.results[k]] = {y, a};
  }
  // Trip counts below S - 1 take the reference order (every stage of one iteration at a time).
  if (S_pipe > 2) {
    place(0, true);
    collect_ages();
    place(origin, false);
  }
  std::map<int, int> waits;
  std::map<int, std::vector<Text>> fences;
  bool end_wait = false;
  std::vector<Text> end_fence;
  derive_waits(waits, fences, end_wait, end_fence);

  // Declarations: the nodes' register results and the carried copies.
  std::vector<Stmt> out;
  const std::string note = "loop " + S(li_) + " (" + c_.note(loop_.op) + "), II " + S(loop_.ii) +
                           ", " + S(S_) + " stage(s) in role " + L_.r.name;
  out.push_back(comment(note));
  if (loop_.parent_loop < 0) {
    // Ring-slot counters of this loop and every loop nested in it: they keep counting across
    // the outer iterations, so ring phases never reset.
    std::vector<int> nest{li_};
    for (size_t i = 0; i < nest.size(); ++i)
      for (const auto& n : c_.g.loops.at(static_cast<size_t>(nest[i])).nodes)
        if (n.child_loop >= 0) nest.push_back(n.child_loop);
    for (int k : nest)
      out.push_back(named_decl("uint32_t", "it" + S(k), "0", false,
                               "iterations of loop " + S(k) + " so far (ring slot and phase)"));
  }
  for (int id : nodes_)
    for (const auto& d : lowered_.at(id).decls) decls.push_back(d);
  for (int id : remat_)
    for (const auto& d : lowered_.at(id).decls) decls.push_back(d);
  for (const auto& [v, amax] : max_age_) {
    const std::string ty = L_.ctype(L_.val(v, loop_.op), loop_.op);
    for (int a = 1; a <= amax; ++a) {
      Stmt d = decl(ty, v);
      d.var = Text::ref(v, a);
      decls.push_back(d);
    }
  }
  // Scalar results read in a later step are hoisted out of their step's block.
  std::set<int> hoisted;
  for (const auto& [v, amax] : max_age_) hoisted.insert(v);
  hoisted.insert(cross_step_.begin(), cross_step_.end());
  for (const auto& [k, a] : result_age) hoisted.insert(fl_.yielded[static_cast<size_t>(k)]);
  for (auto& [id, low] : lowered_)
    for (auto& st : low.body)
      if (st.kind == Stmt::Kind::Decl && !st.var.pieces().empty() &&
          hoisted.count(st.var.pieces()[0].value)) {
        Stmt d = decl(st.type, st.var.pieces()[0].value);
        decls.push_back(d);
        st = code(st.var + " = " + st.init + ";", st.note);
      }
  for (auto& e : ev_)
    if (e.kind == Event::Kind::Op) e.low = lowered_.at(e.node);
  // The carried variables start as the inits (what iteration -1 yielded), every copy of them,
  // so a loop that runs no iteration leaves its results at their inits.
  std::vector<Stmt> inits;
  lower_nodes(inits);
  out.insert(out.end(), inits.begin(), inits.end());
  for (size_t k = 0; k < fl_.iter_args.size(); ++k) {
    const int y = fl_.yielded[k];
    if (!yield_of_.count(fl_.iter_args[k])) continue;
    if (L_.val(fl_.iter_args[k], loop_.op).zero_iter >= 0) continue;
    auto it = max_age_.find(y);
    for (int a = 1; it != max_age_.end() && a <= it->second; ++a)
      out.push_back(code(Text::ref(y, a) + " = " + R(y) + ";"));
  }
  // Resident buffers this loop reads: wait for them once (their TMA was issued before the loops).
  for (const auto& ch : c_.g.channels) {
    if (ch.consumer_role != L_.r.id || L_.fn_waited.count(ch.id)) continue;
    bool reads = false;
    for (int u : c_.g.buffers.at(static_cast<size_t>(ch.buffer)).consumer_ops)
      for (int id : nodes_) reads |= node(id).op == u;
    if (!reads) continue;
    out.push_back(bar_op(Stmt::Kind::BarWait, c_.fn_bar(ch.id), 0,
                         "channel " + S(ch.id) + ": resident buffer " + S(ch.buffer) + " landed"));
    L_.fn_waited.insert(ch.id);
  }
  const std::string ity = scalar_ctype(c_, c_.type(fl_.iv), loop_.op);
  const Text trips = R(fl_.ub) + " > " + R(fl_.lb) + " ? (" + R(fl_.ub) + " - " + R(fl_.lb) +
                     " + " + R(fl_.step) + " - 1) / " + R(fl_.step) + " : 0";
  if (li_ == c_.split_loop) kb_ = "kb" + S(li_);
  out.push_back(
      trip_count(ity, T_, split_trip(c_, li_, trips, kb_, out), li_,
                 "iterations of loop " + S(li_) + (c_.split_loop >= 0 ? " (in this CTA)" : "")));
  auto step_code = [&](int sec, int step) { return emit_step(section(sec, step), waits, fences); };
  if (S_ == 1) {
    out.push_back(for_(ity + " " + k_ + " = 0", k_ + " < " + T_, "++" + k_, step_code(1, 0),
                       "steady state: one stage"));
  } else {
    std::vector<Stmt> piped;
    for (int p = 0; p + 1 < S_; ++p)
      piped.push_back(block(step_code(0, p), "prologue step " + S(p) + ": stages 0.." + S(p)));
    piped.push_back(for_(ity + " " + k_ + " = " + S(S_ - 1), k_ + " < " + T_, "++" + k_,
                         step_code(1, 0), "steady state: step k runs stage s of iteration k - s"));
    for (int e = 0; e + 1 < S_; ++e)
      piped.push_back(
          block(step_code(2, e), "drain step " + S(e) + ": stages " + S(e + 1) + ".." + S(S_ - 1)));
    if (end_wait) piped.push_back(mma_wait(0, end_fence, "every wgmma group of the loop is done"));
    std::vector<Stmt> reference;
    if (S_ > 2) {
      // Fewer than S - 1 iterations: the reference order, then each result moved to the copy
      // the code after the loop reads (the pipelined path leaves it there).
      ref_iters_ = S_ - 2;  // it runs only when T < S - 1
      place(0, true);
      std::map<int, int> w2;
      std::map<int, std::vector<Text>> f2;
      bool ew2 = false;
      std::vector<Text> ef2;
      derive_waits(w2, f2, ew2, ef2);
      reference.push_back(for_(ity + " " + k_ + " = 0", k_ + " < " + T_, "++" + k_,
                               emit_step(section(1, 0), w2, f2),
                               "one iteration at a time, no overlap"));
      if (ew2) reference.push_back(mma_wait(0, ef2, "every wgmma group of the loop is done"));
      for (const auto& [k, a] : result_age)
        if (a > 0) {
          const int y = fl_.yielded[static_cast<size_t>(k)];
          reference.push_back(code(Text::ref(y, a) + " = " + R(y) + ";", "the result's copy"));
        }
      place(origin, false);
      ref_iters_ = -1;
    }
    out.push_back(
        if_(T_ + " >= " + S(S_ - 1), piped, "the pipelined loop needs T >= stages - 1", reference));
  }
  if (end_wait && S_ == 1)
    out.push_back(mma_wait(0, end_fence, "every wgmma group of the loop is done"));
  if (!fills_.empty())
    out.push_back(if_(T_ + " == 0", fills_,
                      "the loop ran no iteration: its staging fill still precedes the store"));
  if (c_.g.loops.at(static_cast<size_t>(li_)).parent_loop >= 0)
    out.push_back(code(it_ + " += " + T_ + ";", "ring slots used by this run of the loop"));
  // Folded zero inits: a loop that ran no iteration leaves them unwritten (tail duplication).
  std::vector<Stmt> fills;
  for (size_t k = 0; k < fl_.iter_args.size(); ++k)
    if (yield_of_.count(fl_.iter_args[k]) && L_.val(fl_.iter_args[k], loop_.op).zero_iter >= 0)
      fills.push_back(
          code("acc_fill(" + R(fl_.results[k]) + ", 0.0f);",
               "iter_arg " + S(static_cast<long long>(k)) + " init (folded into scale-d)"));
  if (!fills.empty())
    out.push_back(zero_trip_split(T_ + " == 0", fills,
                                  "loop " + S(li_) +
                                      " ran no iteration: its accumulators hold "
                                      "their init value"));
  if (li_ == c_.split_loop) {
    std::vector<Text> sums;
    for (size_t k = 0; k < fl_.iter_args.size(); ++k)
      if (yield_of_.count(fl_.iter_args[k])) sums.push_back(R(fl_.results[k]));
    if (!sums.empty()) out.push_back(split_sum(c_, L_.r, li_, sums));
  }
  return out;
}

}  // namespace sched2cu::emit::detail

namespace sched2cu::emit {

bool role_works_in(const Lower& L, int li) { return detail::works_in(L, li); }

std::vector<Stmt> expand_loop(Lower& L, int li) {
  detail::Expander x(L, li);
  std::vector<Stmt> body = x.run();
  std::vector<Stmt> out = x.decls;
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace sched2cu::emit
