// The blocked world's shared-memory tiles (docs/emitter.md, "Blocked layouts"): a TMA-loaded
// tile read from its ring slot into registers where it is first used (bind_smem_tile,
// materialize_smem_tiles), and a blocked 16-bit or f32 tile stored through staging and TMA
// (store_blocked_tile). The protocol events they emit are the ones docs/emitter.md lists; they
// never choose a buffer or a ring depth (the schedule graph did).
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

void bind_smem_tile(Lower& L, int load_op, const sgraph::Buffer& b) {
  const int res = L.c.op(load_op).results.at(0);
  Val v = blocked_val(L.c, res, load_op);
  if (v.lay != Lay::BTile) L.c.fail(load_op, "a TMA load into registers must give a tile");
  v.smem_buffer = b.id;
  L.set(res, v);
}

void materialize_smem_tiles(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  // A local_alloc of the tile is a view of its slot (lower_local_alloc), not a register reader.
  if (o.name == "ttg.local_alloc") return;
  for (int value : o.operands) {
    auto it = L.vals.find(value);
    if (it == L.vals.end() || it->second.smem_buffer < 0) continue;
    const Val& v = it->second;
    const sgraph::Buffer& b = c.g.buffers.at(static_cast<size_t>(v.smem_buffer));
    const ttgir::Op* ld = c.f.def_op(value);
    Desc& d = desc_of(c, *ld);
    const int64_t w = inner_box(c, d, ld->id);
    if (d.block.size() != 2 || d.block[0] != v.blay.R || d.block[1] != v.blay.C)
      c.fail(ld->id, "the loaded tile's shape differs from the descriptor block");
    if (L.smem_declared.insert(value).second)
      out.decls.push_back(
          decl(blocked_ctype(v), value, {}, false, c.note(ld->id) + ": read from its ring slot"));
    out.body.push_back(mem_code("bload_smem<" + S(d.swizzle) + ", " + S(w) + ", " + v.cty + ", " +
                                    v.blay.text() + ">(" + R(value) + ", " + L.slot_addr(b) + ");",
                                L.slot_access(b, Access::Engine::Generic, false),
                                c.note(ld->id) + " -> registers (buffer " + S(b.id) + ")"));
  }
}

// A blocked 16-bit or f32 tile stored through a TMA descriptor: written whole into its staging
// buffer in the boxes' swizzled form, fenced, and stored box by box by one thread.
void store_blocked_tile(Lower& L, const ttgir::Op& o, Desc& d, const Val& v,
                        const sgraph::Buffer& b, bool in_loop, std::vector<Stmt>& blk) {
  Ctx& c = L.c;
  if (v.lay != Lay::BTile) c.fail(o.id, "the stored value is not a register tile");
  if (L.r.split_parts > 1) c.fail(o.id, "blocked tiles in a split role are not implemented");
  // 16-bit and f32 elements (the swizzled box offsets are in bytes: bstore_smem's run is 16 B).
  const bool f32 = d.elem == "f32";
  if ((f32 ? v.cty != "float" : v.cty != cuda_elem(c, d.elem, o.id)) ||
      (elem_bytes(d.elem) != 2 && !f32))
    c.fail(o.id, "only 16-bit or f32 tiles of the descriptor's element type are stored");
  if (d.block.size() != 2 || d.block[0] != v.blay.R || d.block[1] != v.blay.C)
    c.fail(o.id, "stored tile shape differs from the descriptor block");
  if (b.shape != std::vector<int>{v.blay.R, v.blay.C} || (b.depth != 1 && !in_loop))
    c.fail(o.id, "staging buffer " + S(b.id) + " must hold the stored tile (once after a loop)");
  const int64_t w = inner_box(c, d, o.id);
  if (d.fold > 1)
    fix_box(c, d, {d.block[0] * d.fold, d.block[1] / d.fold}, o.id);
  else
    fix_box(c, d, {v.blay.R, w}, o.id);
  const long long box_bytes = static_cast<long long>(v.blay.R) * w * d.elem_bytes;
  const long long nbox = v.blay.C / w;
  const Text row =
      d.fold > 1 ? "(" + R(o.operands.at(1)) + ") * " + S(d.fold) : R(o.operands.at(1));
  // In a loop the staging is a ring of `depth` tiles, slot = iteration % depth. With depth 1 the
  // storing thread waits for the previous store's reads before anyone writes (a barrier before
  // and one after the writes). With depth >= 2 one barrier per tile does both: before it, the
  // storing thread lets at most depth - 2 of its stores still read, so when the barrier opens
  // the store of the slot the next tile writes (depth - 1 tiles back) has read it.
  Text stage = c.buf_name(b.id);
  const bool ring = in_loop && b.depth >= 2;
  Text slot = "0";  // the staging bytes' offset in the buffer, for the protocol checker
  if (in_loop) {
    L.stores_in_flight = true;
    if (ring) {
      stage = "(" + L.slot_addr(b) + ")";
      slot = "(" + counter_ref(b.loop) + ") % " + S(b.depth) + " * " + S(b.bytes);
    } else {
      Stmt drain = bulk_wait(0, true, "the previous store has read the staging");
      drain.loop = c.loop_of_op(o.id);
      drain.iter_dep = -1;
      blk.push_back(guarded("thread_idx_in_warpgroup() == 0", drain));
      blk.push_back(warpgroup_sync(blocked_bar(c)));
    }
  }
  blk.push_back(mem_code("bstore_smem<" + S(d.swizzle) + ", " + S(w) + ", " + v.cty + ", " +
                             v.blay.text() + ">(" + stage + ", btile(" + R(v.storage) + "));",
                         Lower::staging_access(b, slot, b.bytes, Access::Engine::Generic, true)));
  blk.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> TMA store"));
  if (ring) {
    Stmt drain =
        bulk_wait(b.depth - 2, true, "the next tile's staging slot is free once the barrier opens");
    drain.loop = c.loop_of_op(o.id);
    drain.iter_dep = +1;
    blk.push_back(guarded("thread_idx_in_warpgroup() == 0", drain));
  }
  blk.push_back(warpgroup_sync(blocked_bar(c), "the whole tile is written"));
  std::vector<Stmt> st;
  st.push_back(
      for_("int j = 0", "j < " + S(nbox), "++j",
           {code(tma_copy_2d(c, o, d) + "(&" + d.map + ", " + stage + " + j * " + S(box_bytes) +
                 "u, " + R(o.operands.at(2)) + " + j * " + S(w) + ", " + row + ");")},
           S(nbox) + " boxes"));
  st.push_back(code("tma_commit();"));
  std::vector<Stmt> one{
      tma_op(Stmt::Kind::TmaStore, st, {}, "",
             {Lower::staging_access(b, slot, b.bytes, Access::Engine::Tma, false)})};
  // The last function-scope store's thread drains every group it issued (each store stages in
  // its own bytes), so an earlier one does not wait.
  if (!in_loop && !later_fn_store(c, o.id)) one.push_back(bulk_wait(0, true, kExitWait));
  blk.push_back(if_("thread_idx_in_warpgroup() == 0", one, "one thread stores the tile"));
}

}  // namespace sched2cu::emit
