// A register tile stored (tt.descriptor_store) or reduce-added (tt.descriptor_reduce add) by TMA
// every iteration of a scheduled loop through a ring of whole-tile staging slots (docs/emitter.md,
// "Stores inside a loop"): iteration i stages into slot i % depth, so its stores stay in flight
// while the next depth - 1 iterations stage theirs. Each warpgroup stages and stores its own part
// of the tile (its rows, or its columns for a column-split accumulator) as its own TMA boxes, so
// no warpgroup waits for another. Never used for a store outside a loop.
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

std::string tma_copy_2d(const Ctx& c, const ttgir::Op& o, const Desc& d) {
  if (o.name != "tt.descriptor_reduce") return "tma_store_2d";
  // The reduction kind is the op's first positional keyword (`tt.descriptor_reduce add, ...`).
  const ttgir::Attribute* kind = o.attr("_pos0");
  const std::string k = kind == nullptr ? std::string() : kind->text;
  if (k != "add")
    c.fail(o.id, "descriptor_reduce " + (k.empty() ? std::string("(no kind)") : k) +
                     " is not implemented (TMA reduce-add is)");
  if (d.elem != "f32" && d.elem != "f16" && d.elem != "bf16")
    c.fail(o.id, "a TMA reduce-add of " + d.elem + " is not implemented (f32, f16, bf16)");
  return "tma_reduce_add_2d";
}

bool is_tile_ring(const Lower& L, const ttgir::Op& o, const Val& v, const sgraph::Buffer& b) {
  const int li = L.c.loop_of_op(o.id);
  if (li < 0 || b.loop != li || b.depth < 1 || v.lay != Lay::Acc || v.staged >= 0) return false;
  // One slot: the plain staging path (lower_mem.cpp) stores it, unless it cannot: a reduce-add
  // or a column-split tile, which this path handles at any depth (the shared-memory budget cut
  // attention backward's dQ ring to one slot at 128-row Q tiles).
  if (b.depth == 1 && o.name != "tt.descriptor_reduce" && v.col_parts == 1) return false;
  const int row_parts = v.col_parts > 1 ? 1 : L.r.split_parts;
  return b.shape == std::vector<int>{v.rows * row_parts, v.cols * v.col_parts};
}

void store_tile_ring(Lower& L, const ttgir::Op& o, Desc& d, const Val& v, const sgraph::Buffer& b,
                     std::vector<Stmt>& blk) {
  Ctx& c = L.c;
  const bool reduce = o.name == "tt.descriptor_reduce";
  const std::string copy = tma_copy_2d(c, o, d) + "(&";
  if (reduce) {
    if (d.elem != "f32" || v.elem != "f32" || v.packed)
      c.fail(o.id, "a TMA reduce-add is implemented for f32 tiles");
  } else if (v.packed || (v.elem != d.elem) ||
             (elem_bytes(d.elem) != 2 && !(d.elem == "f32" && v.elem == "f32"))) {
    c.fail(o.id, "only 16-bit (converted where stored) and f32 tile stores are implemented");
  }
  const bool col_split = v.col_parts > 1;
  const int row_parts = col_split ? 1 : L.r.split_parts;
  if (d.block.size() != 2 || d.block[0] != static_cast<int64_t>(v.rows) * row_parts ||
      d.block[1] != static_cast<int64_t>(v.cols) * v.col_parts)
    c.fail(o.id, "stored tile shape differs from the descriptor block");
  const int64_t w = inner_box(c, d, o.id);
  if (v.cols % w != 0)
    c.fail(o.id, "a warpgroup's " + S(v.cols) + " columns are no whole TMA boxes of " + S(w));
  fix_box(c, d, {v.rows, w}, o.id);
  const long long box_bytes = static_cast<long long>(v.rows) * w * d.elem_bytes;
  const long long nbox = v.cols / w;
  const long long part_bytes = box_bytes * nbox;
  // This warpgroup's part: its boxes are consecutive, part k at k * part bytes of the slot.
  const Text part = L.split() ? Text("slice * " + S(part_bytes)) : Text("0");
  Text row = R(o.operands.at(1)), col = R(o.operands.at(2));
  if (L.split() && !col_split) row = row + " + slice * " + S(v.rows);
  if (col_split) col = col + " + slice * " + S(v.cols);
  L.stores_in_flight = true;
  // Slot i % depth was last read by the stores of iteration i - depth: this thread commits nbox
  // bulk groups per iteration, so at most (depth - 1) * nbox may still be reading.
  const int li = c.loop_of_op(o.id);
  Stmt drain = bulk_wait(static_cast<int>((b.depth - 1) * nbox), true);
  drain.loop = li;
  drain.iter_dep = -b.depth;  // needless in the first depth iterations
  blk.push_back(
      if_("thread_idx_in_warpgroup() == 0", {drain},
          "this iteration's slot: the stores of iteration i - " + S(b.depth) + " have read it"));
  blk.push_back(
      warpgroup_sync(S(c.bar_warpgroup()) + " + wg", "nobody writes the slot before that"));
  blk.push_back(code("uint8_t* const stage = " + L.slot_addr(b) + " + " + part + ";"));
  const std::string T = d.elem == "f32" ? std::string() : cuda_elem(c, d.elem, o.id);
  std::vector<Stmt> chunk;
  auto at_of = [&](const Text& ch) { return "stage + " + ch + " * " + S(box_bytes) + "u"; };
  // The checker's view: staging bytes (no ring barriers guard them; the bulk waits do).
  auto access = [&](Access::Engine e, bool write) {
    return Lower::staging_access(b,
                                 "(" + counter_ref(li) + ") % " + S(b.depth) + " * " + S(b.bytes) +
                                     " + " + part + " + ch * " + S(box_bytes),
                                 box_bytes, e, write);
  };
  for (int s = 0; s < v.rows / 64; ++s) {
    const Text args = "(" + at_of("ch") + ", " + R(v.storage) + ", " + S(s) + ", " + S(w) +
                      " * ch, " + S(64LL * s) + ");";
    const Text fn = T.empty() ? "acc_store_box_f32<" + S(d.swizzle) + ", " + S(w) + ">"
                              : "acc_store_box<" + T + ", " + S(d.swizzle) + ", " + S(w) + ">";
    chunk.push_back(mem_code(fn + args, access(Access::Engine::Generic, true)));
  }
  chunk.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> TMA"));
  chunk.push_back(warpgroup_sync(S(c.bar_warpgroup()) + " + wg", "the whole box is written"));
  chunk.push_back(if_("thread_idx_in_warpgroup() == 0",
                      {tma_op(Stmt::Kind::TmaStore,
                              {code(copy + d.map + ", " + at_of("ch") + ", " + col + " + " + S(w) +
                                    " * ch, " + row + ");"),
                               code("tma_commit();")},
                              {}, "", {access(Access::Engine::Tma, false)})},
                      reduce ? "one thread reduce-adds the box" : "one thread stores the box"));
  blk.push_back(code("#pragma unroll"));
  blk.push_back(for_("int ch = 0", "ch < " + S(nbox), "++ch", chunk,
                     std::string(reduce ? "reduce-add " : "store ") + S(nbox) +
                         " TMA box(es) of this warpgroup's part"));
}

}  // namespace sched2cu::emit
