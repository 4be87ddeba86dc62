// Kernel-body lowering: shared-memory plan, barrier setup, the function-scope prologue, and per
// warpgroup role the role's share of every scheduled loop (its nodes in (stage, order, id)
// order, ring waits/arms/releases from the graph's channels) and of the epilogue. Decisions come
// from the schedule graph; what this file cannot lower is an error naming the op.
#include <algorithm>
#include <set>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

using sgraph::Buffer;
using sgraph::Loop;
using sgraph::Node;
using sgraph::Role;

std::string S(long long v) { return std::to_string(v); }

int loop_index_of_op(const Ctx& c, int op) {
  for (size_t i = 0; i < c.g.loops.size(); ++i)
    if (c.g.loops[i].op == op) return static_cast<int>(i);
  return -1;
}

struct BodyState;

class KernelLowering {
 public:
  explicit KernelLowering(Ctx& c) : c_(c) {}

  std::string run();

 private:
  Ctx& c_;
  std::vector<Stmt> prologue_;
  int first_loop_pos_ = -1;
  EpilogueState epi_;  // overlay: function-scope buffers overlay the loop rings (plan_smem)

  void plan_descriptors();
  void plan_smem();
  std::vector<Stmt> lower_role(const Role& r);
  std::set<int> prefetch_;  // descriptors the current nest loads (prefetched once)
  std::vector<Stmt> lower_loop(const Role& r, int li);
  std::vector<Stmt> loop_stmts(const Role& r, int li);
  std::vector<Stmt> declare_accumulators(const Role& r, int li, std::vector<Stmt>& fills);
  void lower_tma_load(const Role& r, int li, const Node& n, BodyState& st, std::vector<Stmt>& body);
  void lower_mma(const Role& r, int li, const Node& n, BodyState& st, std::vector<Stmt>& body);
  void classify(const Role& r, int li, bool& tma, bool& other) const;
  void nest(int li, std::vector<int>& out) const;
  bool has_channel(int li, int ring) const {
    for (const auto& x : c_.g.loops[static_cast<size_t>(li)].channels)
      if (x.ring == ring) return true;
    return false;
  }
  int epilogue_role() const;
};

int KernelLowering::epilogue_role() const {
  int role = -1;
  for (size_t i = 0; i < c_.g.loops.size(); ++i)
    if (c_.g.loops[i].parent_loop == -1) {
      int r = result_role(c_, static_cast<int>(i));
      if (role != -1 && r != role)
        c_.fail(c_.g.loops[i].op, "epilogues in several roles: not implemented yet");
      role = r;
    }
  return role;
}

void KernelLowering::plan_descriptors() {
  for (const auto& o : c_.f.ops) {
    if (o.name != "tt.make_tensor_descriptor") continue;
    Desc d;
    d.op = o.id;
    d.map = "map_" + c_.ident(o.results.at(0));
    const ttgir::Type& t = c_.type(o.results.at(0));
    const ttgir::Type& blk = t.elem.at(0);
    d.elem = blk.element_type().name;
    d.elem_bytes = elem_bytes(d.elem);
    if (d.elem_bytes == 0) c_.fail(o.id, "element type " + d.elem + " has no TMA lowering");
    d.block = blk.shape;
    d.swizzle = swizzle_of(c_, t, o.id);
    c_.descs[o.id] = d;
  }
}

// Loop rings first, then function-scope buffers (epilogue staging), then the ring barriers.
// When everything does not fit, the function-scope buffers overlay the loop buffers: they are
// only written after every loop has finished, and the epilogue synchronizes its role first
// (overlay_ = true) so no warpgroup still reads a ring slot the others start overwriting.
void KernelLowering::plan_smem() {
  auto align = [](long long v, long long a) { return (v + a - 1) / a * a; };
  long long off = 0;
  for (const auto& b : c_.g.buffers) {
    if (b.loop < 0) continue;
    off = align(off, 1024);
    c_.buf_offset[b.id] = off;
    off += static_cast<long long>(b.bytes) * b.depth;
  }
  const long long loops_end = off;
  long long fn_bytes = 0;
  for (const auto& b : c_.g.buffers)
    if (b.loop < 0) fn_bytes = align(fn_bytes, 1024) + static_cast<long long>(b.bytes) * b.depth;
  long long ring_bytes = 0;
  for (size_t li = 0; li < c_.g.loops.size(); ++li)
    for (const auto& r : c_.g.loops[li].rings)
      if (has_channel(static_cast<int>(li), r.id))
        ring_bytes += 16LL * r.depth;                      // N full + N empty
  const long long budget = c_.g.target.smem_bytes - 1024;  // 1024 B alignment slack
  epi_.overlay = fn_bytes > 0 && align(loops_end, 1024) + fn_bytes + ring_bytes > budget;
  off = epi_.overlay ? 0 : align(loops_end, 1024);
  for (const auto& b : c_.g.buffers) {
    if (b.loop >= 0) continue;
    off = align(off, 1024);
    c_.buf_offset[b.id] = off;
    off += static_cast<long long>(b.bytes) * b.depth;
  }
  off = align(std::max(off, loops_end), 8);
  for (size_t li = 0; li < c_.g.loops.size(); ++li)
    for (const auto& r : c_.g.loops[li].rings) {
      if (!has_channel(static_cast<int>(li), r.id))
        continue;  // no cross-role hand-off: no barriers
      c_.ring_offset[{static_cast<int>(li), r.id}] = off;
      off += 16LL * r.depth;
    }
  c_.smem_bytes = off;
  if (off > budget)
    throw Error("emit: shared memory plan needs " + S(off + 1024) +
                " B (incl. 1024 B alignment slack), target " + c_.g.target.name + " has " +
                S(c_.g.target.smem_bytes));
}

// Per-iteration state of one loop body in one role.
struct BodyState {
  std::set<int> armed;         // rings armed (producer) this iteration
  std::set<int> waited;        // rings waited (consumer) this iteration
  std::vector<int> mma_rings;  // rings whose release waits for the wgmma
  int mmas = 0;
  std::string acc_all;  // accumulator fragment the wgmma waits fence
};

// A TMA load of a producer role: wait for a free slot and arm the ring once per iteration,
// then one load per TMA box of the tile.
void KernelLowering::lower_tma_load(const Role& r, int li, const Node& n, BodyState& st,
                                    std::vector<Stmt>& body) {
  const Loop& L = c_.g.loops[li];
  const ttgir::Op& o = c_.op(n.op);
  std::string note = "node " + S(n.id) + " (" + c_.note(n.op) + ", stage " + S(n.stage) + ")";
  const ttgir::Value& res = c_.f.value(o.results.at(0));
  if (res.users.size() != 1 || c_.op(res.users[0]).name != "ttg.local_alloc")
    c_.fail(
        n.op,
        "a TMA load must feed exactly one ttg.local_alloc (register results are not implemented)");
  const Buffer* b = buffer_produced_by(c_, res.users[0]);
  if (b == nullptr || b->ring < 0 || b->loop != li)
    c_.fail(n.op, "no ring buffer of this loop records this load's ttg.local_alloc");
  const sgraph::Channel* ch = nullptr;
  for (const auto& x : L.channels)
    if (x.ring == b->ring && x.producer_role == r.id) ch = &x;
  if (ch == nullptr || ch->mechanism != "tma")
    c_.fail(n.op, "no TMA channel from this role for ring " + S(b->ring));
  const std::string ring = ring_name(li, b->ring), it = it_name(li);
  if (st.armed.insert(b->ring).second) {
    body.push_back(
        wait_empty(ring, it, "ring " + S(b->ring) + ": slot free (channel " + S(ch->id) + ")"));
    body.push_back(arm(ring, it, ch->expect_bytes,
                       "ring " + S(b->ring) + ": expect " + S(ch->expect_bytes) + " B"));
  }
  Desc& d = desc_of(c_, o);
  prefetch_.insert(d.op);
  int64_t w = inner_box(c_, d, n.op);
  fix_box(c_, d, {d.block[0], w}, n.op);
  int64_t nbox = d.block[1] / w;
  std::string row = c_.ident(o.operands.at(1)), col = c_.ident(o.operands.at(2));
  std::string slot =
      buf_name(b->id) + " + Ring<" + S(b->depth) + ">::slot(" + it + ") * " + S(b->bytes) + "u";
  if (nbox == 1) {
    body.push_back(tma_load(d.map, slot, ring, it, {col, row}, note + " -> buffer " + S(b->id)));
  } else {
    body.push_back(for_("int j = 0", "j < " + S(nbox), "++j",
                        {tma_load(d.map, slot + " + j * " + S(d.block[0] * d.swizzle), ring, it,
                                  {col + " + j * " + S(w), row}, "")},
                        note + " -> buffer " + S(b->id) + " as " + S(nbox) + " boxes"));
  }
}

// A wgmma of a consumer role: wait for the operand rings (once per iteration), then the MMA
// group into the loop-carried register accumulator. The release of the slots happens after the
// next wgmma_wait<1> (see loop_stmts): wgmma has no completion arrive on Hopper.
void KernelLowering::lower_mma(const Role& r, int li, const Node& n, BodyState& st,
                               std::vector<Stmt>& body) {
  const Loop& L = c_.g.loops[li];
  ttgir::ForLoop fl = c_.f.for_loop(L.op);
  const ttgir::Op& o = c_.op(n.op);
  const std::string it = it_name(li);
  std::string note = "node " + S(n.id) + " (" + c_.note(n.op) + ", stage " + S(n.stage) + ")";
  if (++st.mmas > 1) c_.fail(n.op, "more than one wgmma per loop iteration is not implemented yet");
  auto operand_buffer = [&](int v) -> const Buffer* {
    const ttgir::Op* d = c_.f.def_op(v);
    const Buffer* b = d ? buffer_produced_by(c_, d->id) : nullptr;
    if (b == nullptr || b->loop != li || b->ring < 0)
      c_.fail(n.op, "wgmma operand %" + c_.f.value(v).name +
                        " is not a ring buffer of this loop (register A is not implemented yet)");
    return b;
  };
  const Buffer* ba = operand_buffer(o.operands.at(0));
  const Buffer* bb = operand_buffer(o.operands.at(1));
  int cval = o.operands.at(2);
  auto ti = c_.tiles.find(cval);
  if (ti == c_.tiles.end())
    c_.fail(n.op, "accumulator is not a loop-carried register tile of this role");
  int pos = -1;
  for (size_t k = 0; k < fl.yielded.size(); ++k)
    if (fl.yielded[k] == o.results.at(0) && fl.iter_args[k] == cval) pos = static_cast<int>(k);
  if (pos < 0 || c_.f.value(o.results.at(0)).users.size() != 1)
    c_.fail(
        n.op,
        "wgmma result must only be yielded back into its accumulator (not implemented otherwise)");
  c_.tiles[o.results.at(0)] = ti->second;
  const std::string acc_var = ti->second.var;
  st.acc_all = acc_var + ".v[0]";
  for (const Buffer* b : {ba, bb}) {
    if (!st.waited.insert(b->ring).second) continue;
    const sgraph::Channel* ch = nullptr;
    for (const auto& x : L.channels)
      if (x.ring == b->ring && x.consumer_role == r.id) ch = &x;
    if (ch == nullptr) c_.fail(n.op, "no channel into this role for ring " + S(b->ring));
    body.push_back(wait_full(ring_name(li, b->ring), it,
                             "ring " + S(b->ring) + ": data landed (channel " + S(ch->id) + ")"));
    st.mma_rings.push_back(b->ring);
  }
  const ttgir::Type& ta = c_.type(o.operands.at(0));
  const ttgir::Type& tb = c_.type(o.operands.at(1));
  if (layout_transposed(c_, ta, n.op) || layout_transposed(c_, tb, n.op))
    c_.fail(n.op, "transposed shared layouts are not implemented yet");
  int64_t M = ta.shape.at(0), K = ta.shape.at(1), N = tb.shape.at(1);
  int swa = swizzle_of(c_, ta, n.op), swb = swizzle_of(c_, tb, n.op);
  if (swa == 0 || swb == 0) c_.fail(n.op, "wgmma operands need a swizzled layout");
  std::string ea = ta.element_type().name, eb = tb.element_type().name;
  int kstep_elems = 32 / elem_bytes(ea);
  if (K % kstep_elems != 0) c_.fail(n.op, "K is not a multiple of the wgmma k-step");
  if (N % 8 != 0 || N > 256) c_.fail(n.op, "wgmma N must be a multiple of 8 up to 256");
  if (ti->second.rows != split_rows(c_, r, static_cast<int>(M), n.op) || ti->second.cols != N)
    c_.fail(n.op, "accumulator shape differs from the MMA shape");
  std::string slot_a =
      buf_name(ba->id) + " + Ring<" + S(ba->depth) + ">::slot(" + it + ") * " + S(ba->bytes) + "u";
  std::string slot_b =
      buf_name(bb->id) + " + Ring<" + S(bb->depth) + ">::slot(" + it + ") * " + S(bb->bytes) + "u";
  // A is K-major ([M][K], K contiguous); B [K][N] with N contiguous is MN-major. Slabs differ
  // only in the A row offset, so the rest of the A descriptor text is built once.
  const std::string desc_a_head = "wgmma_desc_k<" + S(swa) + ", " + S(M) + ">(" + slot_a + " + ";
  const std::string desc_a_tail = " * " + S(swa) + ", ks)";
  // A zero-initialized accumulator read straight from its iter_arg starts fresh on the first
  // k-step of the loop's first iteration (in this outer iteration, when nested).
  const std::string scale = ti->second.zero_init_value == cval
                                ? "(" + it + " > " + it + "_start || ks > 0) ? 1 : 0"
                                : "1";
  for (int s = 0; s < ti->second.rows / 64; ++s) {
    Stmt g;
    g.kind = Stmt::Kind::MmaGroup;
    g.note = note + (ti->second.rows > 64 ? ", slab " + S(s) : "");
    g.n = static_cast<int>(N);
    g.ta = cuda_elem(c_, ea, n.op);
    g.tb = cuda_elem(c_, eb, n.op);
    g.major_a = "Major::K";
    g.major_b = "Major::MN";
    const long long row = 64LL * s;
    const std::string row0 =
        r.split_parts > 1 ? "(slice * " + S(ti->second.rows) + " + " + S(row) + ")" : S(row);
    g.desc_a = desc_a_head;
    g.desc_a += row0;
    g.desc_a += desc_a_tail;
    g.desc_b = "wgmma_desc_mn<" + S(swb) + ", " + S(K) + ">(" + slot_b + ", ks)";
    g.acc = acc_var + ".v[" + S(s) + "]";
    g.ksteps = static_cast<int>(K / kstep_elems);
    g.scale = scale;
    body.push_back(g);
  }
}

// Register accumulators carried by loop `li` that role `r` uses, declared and initialized from
// their splat constants right before the loop (per outer iteration when nested).
std::vector<Stmt> KernelLowering::declare_accumulators(const Role& r, int li,
                                                       std::vector<Stmt>& fills) {
  const Loop& L = c_.g.loops[li];
  ttgir::ForLoop fl = c_.f.for_loop(L.op);
  std::vector<Stmt> pre;
  for (size_t k = 0; k < fl.iter_args.size(); ++k) {
    int ia = fl.iter_args[k];
    bool used = false;
    for (int u : c_.f.value(ia).users) {
      const Node* n = node_of_op(L, u);
      used |= n && n->role == r.id;
    }
    if (!used) continue;
    const ttgir::Type& t = c_.type(ia);
    if (t.kind != ttgir::Type::Kind::Tensor || t.shape.size() != 2 ||
        c_.m.encoding_kind(t) != "ttg.nvidia_mma" || t.element_type().name != "f32")
      c_.fail(L.op, "loop-carried value " + S(static_cast<long long>(k)) + " (" + t.str() +
                        ") is not an f32 wgmma accumulator: not implemented yet");
    const ttgir::Op* init = c_.f.def_op(fl.inits[k]);
    const ttgir::Attribute* v = init ? init->attr("value") : nullptr;
    if (init == nullptr || init->name != "arith.constant" || v == nullptr ||
        v->kind != ttgir::Attribute::Kind::Dense || v->elems.size() != 1)
      c_.fail(L.op, "accumulator init must be a splat constant (not implemented otherwise)");
    Tile tile;
    tile.var = c_.ident(ia);
    tile.rows = split_rows(c_, r, static_cast<int>(t.shape[0]), L.op);
    tile.cols = static_cast<int>(t.shape[1]);
    tile.elem = "f32";
    if (tile.rows % 64 != 0)
      c_.fail(L.op, "accumulator rows per warpgroup must be a multiple of 64");
    pre.push_back(code("AccTile<" + S(tile.rows) + ", " + S(tile.cols) + "> " + tile.var + ";",
                       "iter_arg " + S(static_cast<long long>(k)) + " of " + c_.note(L.op) + ", " +
                           S(tile.rows) + " rows per warpgroup"));
    if (is_zero_literal(v->elems[0])) {
      // Folded into the first wgmma's scale-d; only a loop that ran no iteration still needs
      // the zeros: the code after the loop is duplicated for that case (split_zero_trip).
      tile.zero_init_value = ia;
      fills.push_back(code("acc_fill(" + tile.var + ", 0.0f);", c_.note(init->id)));
    } else {
      pre.push_back(
          code("acc_fill(" + tile.var + ", " + float_literal(c_, v->elems[0], init->id) + ");",
               c_.note(init->id)));
    }
    c_.tiles[ia] = tile;
    c_.tiles[fl.results.at(k)] = tile;
  }
  return pre;
}

// One loop of a role's nest: its nodes in (stage, order, id) order — scalar index math in every
// role, views skipped, super-nodes recursing into the inner loop, TMA loads, wgmma, and the
// role's remaining ops (epilogue ops of an outer persistent loop) — then the ring protocol
// around the loop. Iteration counters are declared by lower_loop before the outermost loop, so
// a nested loop's counter keeps counting across outer iterations.
std::vector<Stmt> KernelLowering::loop_stmts(const Role& r, int li) {
  const Loop& L = c_.g.loops[li];
  ttgir::ForLoop fl = c_.f.for_loop(L.op);
  std::vector<const Node*> nodes;
  for (const auto& n : L.nodes) nodes.push_back(&n);
  std::stable_sort(nodes.begin(), nodes.end(), [](const Node* a, const Node* b) {
    return std::tie(a->stage, a->order, a->id) < std::tie(b->stage, b->order, b->id);
  });
  std::vector<Stmt> zero_fills;
  std::vector<Stmt> pre = declare_accumulators(r, li, zero_fills), body;
  BodyState st;
  for (const Node* n : nodes) {
    const std::string& name = c_.op(n->op).name;
    if (n->child_loop >= 0) {
      auto v = loop_stmts(r, n->child_loop);
      body.insert(body.end(), v.begin(), v.end());
      continue;
    }
    if (is_scalar_op(c_, n->op)) {  // index math: every role rematerializes it
      body.push_back(lower_scalar(c_, n->op));
      continue;
    }
    if (name == "ttg.local_alloc") continue;  // the ring slot itself
    if (n->role != r.id) continue;
    if (name == "tt.descriptor_load" && n->pipeline == "TMA") {
      lower_tma_load(r, li, *n, st, body);
    } else if (name == "ttng.warp_group_dot") {
      lower_mma(r, li, *n, st, body);
    } else {
      auto v = lower_epilogue_op(c_, r, n->op, epi_);
      body.insert(body.end(), v.begin(), v.end());
    }
  }
  const std::string it = it_name(li);
  std::vector<Stmt> post;
  if (st.mmas > 0) {
    body.push_back(
        mma_wait(1, st.acc_all, "keep one wgmma group in flight; the previous one is done"));
    std::vector<Stmt> rel, last;
    for (int rg : st.mma_rings) {
      rel.push_back(release(ring_name(li, rg), it + " - 1",
                            "ring " + S(rg) + ": previous slot read by its wgmma"));
      last.push_back(release(ring_name(li, rg), it + " - 1", "ring " + S(rg) + ": last slot"));
    }
    // Nested: the counter continues across outer iterations, so "previous" exists iff this
    // loop already ran an iteration in the current outer iteration.
    body.push_back(if_(it + " > " + it + "_start", rel));
    post.push_back(mma_wait(0, st.acc_all, "drain: the last wgmma group is done"));
    post.push_back(if_(it + " > " + it + "_start", last));
  }
  if (!zero_fills.empty() && st.mmas == 0) {
    pre.insert(pre.end(), zero_fills.begin(), zero_fills.end());  // no scale-d to fold into
  } else if (!zero_fills.empty()) {
    post.push_back(zero_trip_split(
        it + " == " + it + "_start", zero_fills,
        "loop " + S(li) + " ran no iteration: its accumulators hold their init value"));
  }
  std::string iv = c_.ident(fl.iv), ty = scalar_ctype(c_, c_.type(fl.iv), L.op);
  std::vector<Stmt> out = pre;
  if (st.mmas > 0) out.push_back(code("const uint32_t " + it + "_start = " + it + ";"));
  out.push_back(for_(ty + " " + iv + " = " + c_.ident(fl.lb), iv + " < " + c_.ident(fl.ub),
                     iv + " += " + c_.ident(fl.step) + ", ++" + it, body,
                     "loop " + S(li) + " (" + c_.note(L.op) + "), II " + S(L.ii) + ", " +
                         S(L.stages) + " stages"));
  out.insert(out.end(), post.begin(), post.end());
  return out;
}

// What role `r` does in the nest of loop `li`: TMA loads and/or other (non-index) work.
void KernelLowering::classify(const Role& r, int li, bool& tma, bool& other) const {
  for (const auto& n : c_.g.loops[li].nodes) {
    if (n.child_loop >= 0) {
      classify(r, n.child_loop, tma, other);
      continue;
    }
    if (n.role != r.id) continue;
    const std::string& name = c_.op(n.op).name;
    if (name == "tt.descriptor_load" && n.pipeline == "TMA")  // else a load into registers
      tma = true;
    else if (name != "ttg.local_alloc" && !is_scalar_op(c_, n.op))
      other = true;
  }
}

void KernelLowering::nest(int li, std::vector<int>& out) const {
  out.push_back(li);
  for (const auto& n : c_.g.loops[li].nodes)
    if (n.child_loop >= 0) nest(n.child_loop, out);
}

// A top-level loop nest in one role. A role whose only work in the nest is TMA loads runs the
// whole nest in one elected thread; a consumer runs it in every thread.
std::vector<Stmt> KernelLowering::lower_loop(const Role& r, int li) {
  bool tma = false, other = false;
  classify(r, li, tma, other);
  if (!tma && !other) return {comment("loop " + S(li) + ": no nodes in this role")};
  if (tma && other)
    c_.fail(c_.g.loops[li].op,
            "role " + r.name +
                " mixes TMA loads with other work in one loop nest: not implemented yet");
  std::vector<int> loops;
  nest(li, loops);
  prefetch_.clear();
  std::vector<Stmt> inner = loop_stmts(r, li);
  std::vector<Stmt> out;
  for (int dop : prefetch_)
    out.push_back(code("tma_prefetch_desc(&" + c_.descs.at(dop).map + ");"));
  for (int k : loops)
    out.push_back(code("uint32_t " + it_name(k) + " = 0;",
                       "iterations of loop " + S(k) + " so far (ring slot and phase)"));
  out.insert(out.end(), inner.begin(), inner.end());
  if (epi_.stores_in_flight) {
    out.push_back(code("if (thread_idx_in_warpgroup() == 0) tma_wait<0>();",
                       "drain the last iteration's TMA stores before exit"));
    epi_.stores_in_flight = false;
  }
  if (tma)
    return {if_("warp_idx_in_warpgroup() == 0 && elect_one_sync()", out,
                "one elected thread issues TMA")};
  return out;
}

std::vector<Stmt> KernelLowering::lower_role(const Role& r) {
  std::vector<Stmt> out;
  out.push_back(code(std::string(r.kind == "producer" ? "setmaxnreg_dec<" : "setmaxnreg_inc<") +
                     S(r.regs) + ">();"));
  if (r.warpgroups.size() > 1)
    out.push_back(code("const int slice = wg - " + S(r.warpgroups.front()) + ";",
                       "warpgroup slice of the role"));
  c_.tiles.clear();
  const auto& top = c_.f.top_ops();
  bool after_loop = false;
  int epi = epilogue_role();
  for (size_t i = static_cast<size_t>(first_loop_pos_); i < top.size(); ++i) {
    int op = top[i];
    int li = loop_index_of_op(c_, op);
    if (li >= 0) {
      auto v = lower_loop(r, li);
      out.insert(out.end(), v.begin(), v.end());
      after_loop = true;
      continue;
    }
    if (c_.op(op).name == "scf.for") c_.fail(op, "loop has no schedule in the graph");
    if (after_loop && epi < 0 && c_.op(op).name != "tt.return")
      c_.fail(op, "no role owns the values this op after the loop needs");
    if (after_loop && r.id == epi) {
      auto v = lower_epilogue_op(c_, r, op, epi_);
      out.insert(out.end(), v.begin(), v.end());
    } else if (!after_loop) {
      c_.fail(op, "op between loops is not implemented yet");
    }
  }
  split_zero_trip(out);
  return out;
}

std::string KernelLowering::run() {
  plan_descriptors();
  plan_smem();
  const auto& top = c_.f.top_ops();
  for (size_t i = 0; i < top.size(); ++i)
    if (c_.op(top[i]).name == "scf.for") {
      first_loop_pos_ = static_cast<int>(i);
      break;
    }
  if (first_loop_pos_ < 0) throw Error("emit: kernel has no loop: not implemented yet");
  // Function-scope prologue: index math shared by every role (unused values are dead code).
  for (int i = 0; i < first_loop_pos_; ++i) {
    int op = top[static_cast<size_t>(i)];
    const std::string& n = c_.op(op).name;
    if (n == "tt.make_tensor_descriptor") continue;  // built on the host
    if (is_scalar_op(c_, op)) {
      prologue_.push_back(lower_scalar(c_, op));
      continue;
    }
    if (n == "arith.constant") continue;  // tensor constants are materialized where used
    c_.fail(op, "no function-scope lowering for this op yet");
  }
  std::vector<Stmt> roles;
  std::vector<Stmt> chain;
  for (const Role& r : c_.g.launch.roles) {
    int lo = r.warpgroups.front(), hi = r.warpgroups.back();
    if (hi - lo + 1 != static_cast<int>(r.warpgroups.size()))
      throw Error("emit: role " + r.name + ": non-contiguous warpgroups are not implemented");
    std::string cond = lo == hi ? "wg == " + S(lo) : "wg >= " + S(lo) + " && wg <= " + S(hi);
    roles.push_back(
        if_(cond, lower_role(r),
            "role " + S(r.id) + " " + r.name + " (" + r.kind + ", " + S(r.regs) + " regs)"));
  }
  // Chain roles as if / else if.
  for (size_t i = roles.size(); i-- > 0;) {
    if (!chain.empty()) roles[i].else_body = chain;
    chain = {roles[i]};
  }
  std::string out;
  std::vector<Stmt> head;
  head.push_back(code("uint8_t* const smem = smem_align<1024>(dyn_smem);"));
  for (const auto& b : c_.g.buffers)
    head.push_back(
        code("uint8_t* const " + buf_name(b.id) + " = smem + " + S(c_.buf_offset.at(b.id)) + ";",
             "buffer " + S(b.id) + ": " + S(b.depth) + " x " + S(b.bytes) + " B, " +
                 c_.note(b.producer_op)));
  std::vector<Stmt> init;
  for (size_t li = 0; li < c_.g.loops.size(); ++li)
    for (const auto& rg : c_.g.loops[li].rings) {
      if (!has_channel(static_cast<int>(li), rg.id)) continue;
      std::string name = ring_name(static_cast<int>(li), rg.id);
      head.push_back(code("Ring<" + S(rg.depth) + ">* const " + name + " = reinterpret_cast<Ring<" +
                              S(rg.depth) + ">*>(smem + " +
                              S(c_.ring_offset.at({static_cast<int>(li), rg.id})) + ");",
                          "loop " + S(static_cast<long long>(li)) + " ring " + S(rg.id)));
      const sgraph::Channel* ch = nullptr;
      for (const auto& x : c_.g.loops[li].channels)
        if (x.ring == rg.id) ch = &x;
      if (ch == nullptr)
        throw Error("emit: loop " + S(static_cast<long long>(li)) + " ring " + S(rg.id) +
                    " has no channel");
      init.push_back(
          code(name + "->init(" + S(ch->full_arrivals) + ", " + S(ch->empty_arrivals) + ");",
               "channel " + S(ch->id) + ": role " + S(ch->producer_role) + " -> role " +
                   S(ch->consumer_role)));
    }
  init.push_back(code("mbar_fence_init();"));
  head.push_back(if_("threadIdx.x == 0", init));
  head.push_back(code("__syncthreads();"));
  head.push_back(code("const int wg = warpgroup_idx();"));
  const int G = c_.g.launch.raster_group;
  if (G > 0) {
    head.push_back(comment("CTA rasterization (launch.raster_group " + S(G) + "): groups of " +
                           S(G) + " x-programs share the y-indexed operand in L2"));
    head.push_back(code("const int cta_ = static_cast<int>(blockIdx.x);"));
    head.push_back(code("const int group_ = " + S(G) + " * num_programs_y;"));
    head.push_back(code("const int first_x_ = cta_ / group_ * " + S(G) + ";"));
    head.push_back(code("const int gsize_ = min(num_programs_x - first_x_, " + S(G) + ");"));
    head.push_back(code("const int program_id_x = first_x_ + cta_ % group_ % gsize_;"));
    head.push_back(code("const int program_id_y = cta_ % group_ / gsize_;"));
    head.push_back(code("const int program_id_z = 0;"));
  } else {
    head.push_back(code("const int program_id_x = static_cast<int>(blockIdx.x);"));
    head.push_back(code("const int program_id_y = static_cast<int>(blockIdx.y);"));
    head.push_back(code("const int program_id_z = static_cast<int>(blockIdx.z);"));
  }
  head.insert(head.end(), prologue_.begin(), prologue_.end());
  head.insert(head.end(), chain.begin(), chain.end());
  print(head, 2, out);
  return out;
}

}  // namespace

std::string lower_kernel(Ctx& c) { return KernelLowering(c).run(); }

}  // namespace sched2cu::emit
