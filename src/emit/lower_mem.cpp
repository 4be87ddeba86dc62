// Memory ops of the op table: shared-memory views (ttg.local_alloc), tensor-descriptor loads
// (TMA into a ring slot or a resident buffer, or straight into registers when the graph gives
// the load no buffer) and stores (registers -> swizzled staging -> TMA, as whole tiles, column
// subtiles or row vectors). Ring protocol around them (waits, arms, releases) is the expander's.
#include <algorithm>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

Desc& desc_of(Ctx& c, const ttgir::Op& o) {
  auto it = c.descs.find(desc_key(c, o.operands.at(0)));
  if (it == c.descs.end())
    c.fail(o.id,
           "its descriptor is neither a tt.make_tensor_descriptor of the kernel nor a tensor "
           "descriptor argument");
  return it->second;
}

void fix_box(Ctx& c, Desc& d, std::vector<int64_t> box, int op) {
  if (!d.box.empty() && d.box != box) c.fail(op, "descriptor used with two different TMA boxes");
  d.box = std::move(box);
}

int64_t inner_box(const Ctx& c, const Desc& d, int op) {
  if (d.block.size() != 2)
    c.fail(op, "2-D TMA expected, got rank " + S(static_cast<long long>(d.block.size())));
  if (d.fold > 1) return d.block[1];  // one box is the whole tile (plan_descriptors)
  if (d.swizzle == 0) {
    // Register-only tiles (plan_descriptors): the widest box TMA takes, 256 elements.
    const int64_t w = std::min<int64_t>(256, d.block[1]);
    if (d.block[1] % w != 0 || (w * d.elem_bytes) % 16 != 0)
      c.fail(op, "block width " + S(d.block[1]) + " does not split into 16-byte TMA boxes");
    return w;
  }
  int64_t w = d.swizzle / d.elem_bytes;
  if (d.block[1] % w != 0 && d.block[1] > w)
    c.fail(op, "block width is not a multiple of the swizzle span");
  return std::min<int64_t>(w, d.block[1]);
}

void lower_local_alloc(Lower& L, const ttgir::Op& o, Lowered&) {
  const sgraph::Buffer* b = L.c.buffer_of(o.id);
  // A TMA-loaded tile that registers read too keeps its buffer on the load; an alloc of it
  // is a view of the same slot (the schedule counts the alloc's readers as the slot's).
  const ttgir::Op* src = o.operands.empty() ? nullptr : L.c.f.def_op(o.operands[0]);
  if (b == nullptr && src != nullptr && src->name == "tt.descriptor_load")
    b = L.c.buffer_of(src->id);
  if (b == nullptr)
    L.c.fail(o.id,
             "no buffer of the schedule graph holds this local_alloc (registers written "
             "to shared memory are not implemented yet)");
  Val v;
  v.lay = Lay::Smem;
  v.buffer = b->id;
  v.smem_trans = layout_transposed(L.c, L.c.type(o.results.at(0)), o.id);
  // The alloc is a view of the slot TMA fills, in the descriptor's row-major order. A transposed
  // layout here asks for the tile's bytes transposed, a copy through registers (what Triton does
  // for a [K, N] B of tf32 or fp8, whose wgmma reads K-major only): not implemented, and reading
  // the TMA bytes as if transposed would compute garbage.
  if (v.smem_trans && src != nullptr && src->name == "tt.descriptor_load")
    L.c.fail(o.id,
             "this shared layout stores the loaded tile transposed (a copy through registers, "
             "not what TMA writes); load the operand in the layout the MMA reads instead (for a "
             "B operand of tf32 or 8-bit types: B as [N, K] and b.T)");
  v.storage = o.results[0];
  L.set(o.results[0], v);
}

namespace {

bool const_int_is(const Ctx& c, int v, long long want) {
  const ttgir::Op* d = c.f.def_op(v);
  if (d == nullptr || d->name != "arith.constant") return false;
  const ttgir::Attribute* a = d->attr("value");
  return a != nullptr && a->kind == ttgir::Attribute::Kind::Integer && a->ival == want;
}

// A load the graph gives no buffer: its users take it in the accumulator layout, so each
// warpgroup loads its [rows/split, cols] slice straight from global memory into a packed 16-bit
// tile (half the registers of f32), reading 0 outside the tensor as TMA would.
// The descriptor's tensor, checked for what a plain load of its boxes needs: a kernel pointer
// argument as the base, rank 2, an innermost stride of 1.
const ttgir::Op& plain_load_descriptor(Ctx& c, const ttgir::Op& o) {
  const ttgir::Op* mk = c.f.def_op(o.operands.at(0));
  if (mk == nullptr || mk->name != "tt.make_tensor_descriptor")
    c.fail(o.id, "its descriptor is not a tt.make_tensor_descriptor of the kernel");
  const ttgir::Type& t = c.type(o.results.at(0));
  if (t.shape.size() != 2 || o.operands.size() != 3 || mk->operands.size() != 5)
    c.fail(o.id, "register loads of rank other than 2 are not implemented");
  if (!const_int_is(c, mk->operands[4], 1))
    c.fail(o.id, "the descriptor's innermost stride must be the constant 1");
  bool param = false;
  for (const auto& p : c.g.kernel.params) param |= p.value == mk->operands[0];
  if (!param) c.fail(o.id, "the descriptor base must be a kernel pointer argument");
  return *mk;
}

// A load the graph gives no buffer whose result is in a blocked layout (the scheduler chose
// plain loads for it: launch.load_path "global"): every thread loads its own elements of the box
// straight from global memory, 16-byte vectors where the layout's runs allow, 0 outside the
// tensor as TMA would.
void lower_blocked_register_load(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const ttgir::Op& mk = plain_load_descriptor(c, o);
  const int res = o.results.at(0);
  Val v = blocked_val(c, res, o.id);
  if (v.lay != Lay::BTile) c.fail(o.id, "a plain descriptor load must give a blocked tile");
  const int bytes = static_cast<int>(elem_bytes(v.elem));
  int run = 1;
  while (v.blay.S1 % (run * 2) == 0 && run * 2 * bytes <= 16) run *= 2;
  out.decls.push_back(
      decl(blocked_ctype(v), res, {}, false, c.note(o.id) + ": plain loads, no shared memory"));
  out.body.push_back(code("bload_box<" + S(run) + ">(" + R(res) + ", static_cast<const " + v.cty +
                              "*>(" + R(mk.operands[0]) + "), " + R(mk.operands[3]) + ", " +
                              R(o.operands[1]) + ", " + R(o.operands[2]) + ", " +
                              R(mk.operands[1]) + ", " + R(mk.operands[2]) + ");",
                          "global -> registers, out of bounds reads 0 (TMA semantics)" +
                              std::string(run > 1 ? ", runs of " + S(run) : "")));
  L.set(res, v);
}

void lower_register_load(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  if (const sgraph::Buffer* fill = c.fill_of(o.id)) return lower_fill(L, o, *fill, out);
  const ttgir::Value& res = c.f.value(o.results.at(0));
  // Fed only to conversions into the accumulator layout: loaded in that layout (below);
  // otherwise its users read the blocked tile itself.
  bool to_acc = !res.users.empty();
  for (int u : res.users) {
    const ttgir::Op& uo = c.op(u);
    to_acc &= uo.name == "ttg.convert_layout" &&
              c.m.encoding_kind(c.type(uo.results.at(0))) == "ttg.nvidia_mma";
  }
  if (!to_acc && c.m.encoding_kind(res.type) == "ttg.blocked")
    return lower_blocked_register_load(L, o, out);
  if (res.users.empty()) c.fail(o.id, "load without users");
  if (!to_acc)
    c.fail(o.id,
           "a load without a shared-memory buffer must feed only ttg.convert_layout to the "
           "#nvidia_mma accumulator layout (consumed in registers)");
  const ttgir::Op* mk = &plain_load_descriptor(c, o);
  const ttgir::Type& t = c.type(o.results.at(0));
  const std::string elem = t.element_type().name;
  if (elem_bytes(elem) != 2) c.fail(o.id, "register loads of " + elem + " are not implemented");
  Val v;
  v.lay = Lay::Acc;
  v.rows = L.split_rows(static_cast<int>(t.shape[0]), o.id);
  v.cols = static_cast<int>(t.shape[1]);
  v.elem = elem;
  v.packed = true;
  v.packed_t = cuda_elem(c, elem, o.id);
  v.storage = o.results[0];
  if (v.rows % 64 != 0 || v.cols % 8 != 0 || v.cols > 256)
    c.fail(o.id, "tile [" + S(v.rows) + " rows per warpgroup, " + S(v.cols) +
                     "] is not an accumulator-layout tile (rows % 64, cols % 8, cols <= 256)");
  Text row = R(o.operands[1]);
  if (L.split()) row += " + slice * " + S(v.rows);
  const std::string& T = v.packed_t;
  out.decls.push_back(decl(L.ctype(v, o.id), o.results[0], {}, false,
                           c.note(o.id) + ": " + S(v.rows) +
                               " rows per warpgroup, accumulator layout, no shared memory"));
  out.body.push_back(code("packed_load_global<" + T + ">(" + R(o.results[0]) +
                              ", static_cast<const " + T + "*>(" + R(mk->operands[0]) + "), " +
                              R(mk->operands[3]) + ", " + row + ", " + R(o.operands[2]) + ", " +
                              R(mk->operands[1]) + ", " + R(mk->operands[2]) + ");",
                          "global -> registers, out of bounds reads 0 (TMA semantics)"));
  L.set(o.results[0], v);
}

}  // namespace

void lower_descriptor_load(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const ttgir::Value& res = c.f.value(o.results.at(0));
  const sgraph::Buffer* b = nullptr;
  if (res.users.size() == 1 && c.op(res.users[0]).name == "ttg.local_alloc")
    b = c.buffer_of(res.users[0]);
  // A load the graph gives a ring of its own (its consumers read the tile from the slot into
  // registers: bind_smem_tile).
  if (b == nullptr) b = c.buffer_of(o.id);
  if (b == nullptr) {
    for (int u : res.users)
      if (c.buffer_of(u) != nullptr)
        c.fail(o.id, "a TMA load must feed exactly one ttg.local_alloc");
    return lower_register_load(L, o, out);
  }
  Desc& d = desc_of(c, o);
  // The bytes TMA writes are the descriptor block's: they must be the loaded tensor's and the
  // slot's exactly (a block larger than the slot writes past it). That the channel expects its
  // slots' bytes is the graph validator's check (sgraph::validate).
  int64_t block_bytes = d.elem_bytes;
  for (int64_t x : d.block) block_bytes *= x;
  if (block_bytes != res.type.byte_size())
    c.fail(o.id, "the descriptor block (" + S(block_bytes) +
                     " B) differs from the loaded tensor (" + S(res.type.byte_size()) + " B)");
  if (block_bytes != b->bytes)
    c.fail(o.id, "the TMA box (" + S(block_bytes) + " B) differs from buffer " + S(b->id) +
                     "'s slot (" + S(b->bytes) + " B)");
  const std::string note = c.note(o.id) + " -> buffer " + S(b->id);
  Text bar;
  if (b->loop >= 0) {
    const sgraph::Loop& loop = c.g.loops.at(static_cast<size_t>(b->loop));
    if (b->ring < 0) c.fail(o.id, "its buffer has no ring");
    bar = Text(c.ring_name(b->loop, b->ring)) + "->full_bar(" + counter_ref(b->loop) + ")";
    bool ok = false;
    for (const auto& ch : loop.channels)
      ok |= ch.ring == b->ring && ch.producer_role == L.r.id && ch.mechanism == "tma";
    if (!ok) c.fail(o.id, "no TMA channel from role " + L.r.name + " fills ring " + S(b->ring));
  } else {
    const sgraph::FnChannel* ch = c.fn_channel_of(b->id);
    if (ch == nullptr || ch->producer_role != L.r.id)
      c.fail(o.id, "no function-scope channel from role " + L.r.name + " fills buffer " + S(b->id));
    bar = c.fn_bar(ch->id);
    out.body.push_back(bar_op(Stmt::Kind::BarArm, bar, ch->expect_bytes,
                              "channel " + S(ch->id) + ": expect " + S(ch->expect_bytes) + " B"));
  }
  const Text dst = L.slot_addr(*b);
  std::vector<Stmt> copies;
  if (d.block.size() == 1) {
    fix_box(c, d, d.block, o.id);
    copies.push_back(code("tma_load_1d(" + dst + ", &" + d.map + ", " + bar + ", " +
                          R(o.operands.at(1)) + ");"));
  } else {
    const int64_t w = inner_box(c, d, o.id);
    const int64_t nbox = d.fold > 1 ? 1 : d.block[1] / w;
    Text row = R(o.operands.at(1)), col = R(o.operands.at(2));
    if (d.fold > 1) {
      fix_box(c, d, {d.block[0] * d.fold, d.block[1] / d.fold}, o.id);
      row = "(" + row + ") * " + S(d.fold);  // the [rows * fold, cols / fold] view
    } else {
      fix_box(c, d, {d.block[0], w}, o.id);
    }
    if (nbox == 1) {
      copies.push_back(
          code("tma_load_2d(" + dst + ", &" + d.map + ", " + bar + ", " + col + ", " + row + ");"));
    } else {
      copies.push_back(
          for_("int j = 0", "j < " + S(nbox), "++j",
               {code("tma_load_2d(" + dst + " + j * " + S(d.block[0] * w * d.elem_bytes) + ", &" +
                     d.map + ", " + bar + ", " + col + " + j * " + S(w) + ", " + row + ");")},
               "as " + S(nbox) + " boxes"));
    }
  }
  out.body.push_back(tma_op(Stmt::Kind::TmaLoad, copies, bar, note,
                            {L.slot_access(*b, Access::Engine::Tma, true)}, block_bytes));
}

bool later_fn_store(const Ctx& c, int op) {
  const auto& top = c.f.top_ops();
  auto it = std::find(top.begin(), top.end(), op);
  if (it == top.end()) return false;
  for (++it; it != top.end(); ++it)
    if (ttgir::is_descriptor_store(c.op(*it).name)) return true;
  return false;
}

namespace {

// The previous iteration's stores (or, at function scope, the previous phase's) may still be in
// flight, overlapping this iteration's main loop: the storing thread waits until they have read
// the staging, then the warpgroup syncs, before anyone rewrites it. In loop `loop` (-1: function
// scope) the wait is needless in the first iteration (iter_dep -1).
void wait_previous_stores(Lower& L, int loop, std::vector<Stmt>& blk) {
  Stmt drain = bulk_wait(0, true, "previous stores have read the staging");
  if (loop >= 0) {
    drain.loop = loop;
    drain.iter_dep = -1;
  }
  blk.push_back(guarded("thread_idx_in_warpgroup() == 0", drain));
  blk.push_back(warpgroup_sync(S(L.c.bar_warpgroup()) + " + wg"));
}

// A 1-D store of a row vector (one f32 per row, e.g. a log-sum-exp): each warpgroup writes its
// rows into its part of the staging buffer and one thread stores them as one box.
void store_rows(Lower& L, const ttgir::Op& o, Desc& d, const Val& v, const sgraph::Buffer& b,
                bool in_loop, std::vector<Stmt>& blk) {
  Ctx& c = L.c;
  if (d.block.size() != 1 || d.elem != "f32" || v.elem != "f32")
    c.fail(o.id, "row-vector stores are implemented for 1-D f32 descriptors");
  if (b.shape != std::vector<int>{v.rows * L.r.split_parts} || b.depth != 1)
    c.fail(o.id, "staging buffer " + S(b.id) + " must hold the stored vector once");
  fix_box(c, d, {v.rows}, o.id);
  const Text stage = c.buf_name(b.id) + (L.split() ? " + slice * " + S(v.rows * 4LL) + "u" : "");
  Text row = R(o.operands.at(1));
  if (L.split()) row += " + slice * " + S(v.rows);
  const Text off = L.split() ? Text("slice * " + S(v.rows * 4LL)) : Text("0");
  const Access at = Lower::staging_access(b, off, v.rows * 4LL, Access::Engine::Generic, true);
  if (in_loop) {
    L.stores_in_flight = true;
    wait_previous_stores(L, c.loop_of_op(o.id), blk);
  }
  blk.push_back(mem_code(
      "row_store_smem(reinterpret_cast<float*>(" + stage + "), " + R(v.storage) + ");", at));
  blk.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> TMA store"));
  blk.push_back(warpgroup_sync(S(c.bar_warpgroup()) + " + wg"));
  blk.push_back(if_(
      "thread_idx_in_warpgroup() == 0",
      {tma_op(Stmt::Kind::TmaStore,
              {code("tma_store_1d(&" + d.map + ", " + stage + ", " + row + ");"),
               code("tma_commit();")},
              {}, "", {Lower::staging_access(b, off, v.rows * 4LL, Access::Engine::Tma, false)})},
      "one thread stores the rows"));
  // The same thread drains its bulk groups at the next function-scope store; only the last one
  // waits before exit.
  if (!in_loop && !later_fn_store(c, o.id))
    blk.push_back(if_("thread_idx_in_warpgroup() == 0", {bulk_wait(0, true, kExitWait)}));
}

// The bytes warpgroup k of the role writes when it stages this store (the layouts of
// store_rows and of lower_descriptor_store below; the whole buffer for any other form).
Spans staging_spans(const Lower& L, const ttgir::Op& o, const Desc& d, const Val& v,
                    const sgraph::Buffer& b, int k) {
  const long long base = L.c.buf_offset.at(b.id);
  Spans all = {{base, base + static_cast<long long>(b.bytes) * b.depth}};
  if (v.lay == Lay::Row) return {{base + 4LL * k * v.rows, base + 4LL * (k + 1) * v.rows}};
  if (v.lay != Lay::Acc || v.staged >= 0 || v.packed || d.block.size() != 2) return all;
  const long long w = inner_box(L.c, d, o.id);
  if (w <= 0 || v.cols % w != 0) return all;
  const long long parts = L.r.split_parts;
  const long long box = static_cast<long long>(v.rows) * w * d.elem_bytes;
  const int rows = v.rows * L.r.split_parts;
  Spans out;
  if (b.depth == 1 && b.shape == std::vector<int>{rows, v.cols}) {
    for (long long ch = 0; ch < v.cols / w; ++ch)
      out.emplace_back(base + ch * box * parts + k * box, base + ch * box * parts + (k + 1) * box);
  } else if (b.depth >= 2 && b.shape == std::vector<int>{rows, static_cast<int>(w)}) {
    for (long long s = 0; s < b.depth; ++s)
      out.emplace_back(base + s * b.bytes + k * box, base + s * b.bytes + (k + 1) * box);
  } else {
    return all;
  }
  return out;
}

}  // namespace

void lower_descriptor_store(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  Desc& d = desc_of(c, o);
  const Val& v = L.val(o.operands.back(), o.id);
  const sgraph::Buffer* b = c.buffer_of(o.id);
  if (b == nullptr) c.fail(o.id, "no staging buffer for this store in the schedule graph");
  const int li = c.loop_of_op(o.id);
  const bool in_loop = li >= 0;
  if (b->loop >= 0 && b->loop != li)
    c.fail(o.id, "staging buffer " + S(b->id) + " belongs to another loop");
  std::vector<Stmt> blk;
  if (c.overlaid.count(b->id) != 0 && !L.role_synced) {
    // The staging bytes overlay buffers the loops read. When no other warpgroup can still
    // access them (overlay.cpp), this warpgroup's own barrier suffices: all of its warps are
    // past their last MMA wait. Otherwise the whole role synchronizes.
    bool mine_only = true;
    for (int k = 0; k < L.r.split_parts && mine_only; ++k)
      mine_only = overlay_private(c, L.r, k, staging_spans(L, o, d, v, *b, k));
    if (!mine_only) {
      blk.push_back(named_bar(Stmt::Kind::NamedSync, c.bar_role(),
                              128 * static_cast<int>(L.r.warpgroups.size()),
                              "role-wide: every warpgroup is done with what the staging overlays"));
      L.role_synced = true;
    } else if (!L.overlay_synced) {
      blk.push_back(warpgroup_sync(S(c.bar_warpgroup()) + " + wg",
                                   "the staging overlays only this warpgroup's own rows"));
      L.overlay_synced = true;
    }
  }
  // A reduce-add goes through the paths that ask tma_copy_2d; the row-vector and staged-operand
  // paths store only.
  if (o.name == "tt.descriptor_reduce" &&
      (v.lay == Lay::Row || (v.lay == Lay::Acc && v.staged >= 0)))
    c.fail(o.id,
           std::string("a TMA reduce-add of ") +
               (v.lay == Lay::Row ? "a row vector" : "a tile computed from a staged operand") +
               " is not implemented");
  if (v.lay == Lay::BTile) {
    store_blocked_tile(L, o, d, v, *b, in_loop, blk);
    out.body.push_back(block(blk, c.note(o.id) + " via staging buffer " + S(b->id)));
    return;
  }
  if (v.lay == Lay::Row) {
    store_rows(L, o, d, v, *b, in_loop, blk);
    out.body.push_back(block(blk, c.note(o.id) + " via staging buffer " + S(b->id)));
    return;
  }
  if (v.lay != Lay::Acc) c.fail(o.id, "the stored value is not a register tile");
  if (v.staged >= 0) {
    store_staged(L, o, d, v, *b, in_loop, blk);
    out.body.push_back(block(blk, c.note(o.id) + " via staging buffer " + S(b->id)));
    return;
  }
  if (is_tile_ring(L, o, v, *b)) {
    store_tile_ring(L, o, d, v, *b, blk);
    out.body.push_back(block(blk, c.note(o.id) + " via staging ring " + S(b->id)));
    return;
  }
  if (v.col_parts > 1)
    c.fail(o.id,
           "storing a column-split accumulator tile outside a staging ring is not "
           "implemented");
  if (v.packed) c.fail(o.id, "storing a loaded 16-bit register tile is not implemented");
  const bool fp8 = d.elem == "f8E4M3FN" || d.elem == "f8E5M2";
  if (v.elem != d.elem || (elem_bytes(d.elem) != 2 && d.elem != "f32" && !fp8))
    c.fail(o.id, "only 16-bit, fp8 and f32 tile stores are implemented");
  const int parts = L.r.split_parts;
  if (d.block.size() != 2 || d.block[0] != static_cast<int64_t>(v.rows) * parts ||
      d.block[1] != v.cols)
    c.fail(o.id, "stored tile shape differs from the descriptor block");
  const int64_t w = inner_box(c, d, o.id);
  // Two staging forms (docs/emitter.md): the whole stored tile once, or a ring of `depth` column
  // subtiles one TMA box wide (box ch uses slot ch % depth).
  const bool whole = b->shape == std::vector<int>{v.rows * parts, v.cols} && b->depth == 1;
  const bool sub = b->shape == std::vector<int>{v.rows * parts, static_cast<int>(w)} &&
                   b->depth >= 2 && v.cols % w == 0;
  if (!whole && !sub)
    c.fail(o.id, "staging buffer " + S(b->id) + " must hold the stored [" +
                     S(static_cast<long long>(v.rows) * parts) + ", " + S(v.cols) +
                     "] tile once (depth 1) or be a ring of [" +
                     S(static_cast<long long>(v.rows) * parts) + ", " + S(w) +
                     "] subtiles (depth >= 2)");
  fix_box(c, d, {v.rows, w}, o.id);
  const long long box_bytes = static_cast<long long>(v.rows) * w * d.elem_bytes;
  const long long nbox = v.cols / w;
  const Text row = R(o.operands.at(1)), col = R(o.operands.at(2));
  const Text rows = L.split() ? row + " + slice * " + S(v.rows) : row;
  // The box writer: converted to 16 bits, or the f32 accumulator as it is.
  const Text store_fn = d.elem == "f32" ? "acc_store_box_f32<" + S(d.swizzle) + ", " + S(w) + ">"
                                        : "acc_store_box<" + cuda_elem(c, d.elem, o.id) + ", " +
                                              S(d.swizzle) + ", " + S(w) + ">";
  if (in_loop) L.stores_in_flight = true;
  // The staging bytes are one set (the whole tile, or a ring of column subtiles indexed by the
  // box, not by the loop iteration): the loop's previous stores are waited for below.
  std::vector<Stmt> chunk;
  Text at;    // this box's staging bytes
  Text slot;  // and their offset in the buffer, for the protocol checker
  // A function-scope store with a later phase after it leaves its bulk group in flight (it
  // overlaps that phase's main loop); the next function-scope store waits for its reads first,
  // since the stores of one shape share their staging across phases (plan_smem).
  const bool later = !in_loop && c.later_phase(o.id);
  const bool pending = L.fn_stores_pending;
  L.fn_stores_pending = later;
  if (whole) {
    // Box ch holds every warpgroup's [rows][w] part, warpgroup k's at k * box bytes: the layout
    // of a TMA-loaded tile whose rows the warpgroups split, so that staging overlaying such a
    // tile rewrites only this warpgroup's own rows (overlay.cpp).
    if (in_loop || pending) {
      wait_previous_stores(L, in_loop ? li : -1, blk);
    }
    blk.push_back(code(Text("uint8_t* const stage = ") + c.buf_name(b->id) +
                       (parts > 1 ? " + slice * " + S(box_bytes) + "u" : "") + ";"));
    at = "stage + ch * " + S(box_bytes * parts) + "u";
    slot = (parts > 1 ? "slice * " + S(box_bytes) + " + " : std::string()) + "ch * " +
           S(box_bytes * parts);
  } else {
    // Slot s holds every warpgroup's [rows][w] box of one column subtile: warpgroup k's at
    // s * slot bytes + k * box bytes. Box ch reuses the bytes of box ch - depth, so the storing
    // thread first waits until at most depth - 1 of its stores are still reading.
    blk.push_back(code(Text("uint8_t* const stage = ") + c.buf_name(b->id) +
                       (parts > 1 ? " + slice * " + S(box_bytes) + "u" : "") + ";"));
    if (in_loop) {
      // Stores of the previous iteration may still read any slot; box 0 waits for all of them
      // (their count and slots depend on that iteration; needless in the first one, iter_dep
      // -1), later boxes for box ch - depth.
      Stmt previous = bulk_wait(0, true);
      previous.loop = li;
      previous.iter_dep = -1;
      Stmt wait = if_("ch == 0", {previous}, "", {bulk_wait(b->depth - 1, true)});
      wait.one_line = true;
      chunk.push_back(if_("thread_idx_in_warpgroup() == 0", {wait},
                          "slot ch % " + S(b->depth) + " has been read by its last store"));
    } else {
      chunk.push_back(
          if_("thread_idx_in_warpgroup() == 0", {bulk_wait(b->depth - 1, true)},
              "the store of box ch - " + S(b->depth) + " (same slot) has read its bytes"));
    }
    chunk.push_back(
        warpgroup_sync(S(c.bar_warpgroup()) + " + wg", "nobody writes the slot before that"));
    at = "stage + (ch % " + S(b->depth) + ") * " + S(b->bytes) + "u";
    slot = (parts > 1 ? "slice * " + S(box_bytes) + " + " : std::string()) + "(ch % " +
           S(b->depth) + ") * " + S(b->bytes);
  }
  // Box by box: convert box ch into its staging bytes, fence, sync the warpgroup, and let one
  // thread store it, so the TMA engine writes box ch while the warpgroup converts ch + 1.
  for (int s = 0; s < v.rows / 64; ++s)
    chunk.push_back(
        mem_code(store_fn + "(" + at + ", " + R(v.storage) + ", " + S(s) + ", " + S(w) + " * ch, " +
                     S(64LL * s) + ");",
                 Lower::staging_access(*b, slot, box_bytes, Access::Engine::Generic, true)));
  chunk.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> TMA store"));
  chunk.push_back(warpgroup_sync(S(c.bar_warpgroup()) + " + wg", "the whole box is written"));
  chunk.push_back(if_(
      "thread_idx_in_warpgroup() == 0",
      {tma_op(Stmt::Kind::TmaStore,
              {code(tma_copy_2d(c, o, d) + "(&" + d.map + ", " + at + ", " + col + " + " + S(w) +
                    " * ch, " + rows + ");"),
               code("tma_commit();")},
              {}, "", {Lower::staging_access(*b, slot, box_bytes, Access::Engine::Tma, false)})},
      "one thread stores the box"));
  blk.push_back(code("#pragma unroll"));
  blk.push_back(for_("int ch = 0", "ch < " + S(nbox), "++ch", chunk,
                     "convert to " + d.elem + " and store " + S(nbox) + " TMA boxes"));
  // The last function-scope store's thread drains every group it issued (the stores of one
  // phase stage in distinct bytes), so only that one waits before exit.
  if (!in_loop && !later && !later_fn_store(c, o.id))
    blk.push_back(if_("thread_idx_in_warpgroup() == 0", {bulk_wait(0, true, kExitWait)}));
  out.body.push_back(block(blk, c.note(o.id) + " via staging buffer " + S(b->id)));
}

}  // namespace sched2cu::emit
