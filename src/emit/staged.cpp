// Staged epilogue operands (docs/emitter.md, "Staged epilogue operands"): a register load the
// graph makes a staging fill (Buffer::fill_op) is TMA-loaded box by box into its store's
// subtile slots by the thread that issues the store, and never held in registers. The store then
// walks its boxes: wait for the box, read it in the accumulator layout, evaluate the elementwise
// chain for that box only, write the result over the same bytes, TMA-store it, and refill the
// slot with box + depth once the store has read it. Never reorders or drops a wait the
// protocol checker relies on: every barrier and bulk wait here is a typed statement.
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

// One store's box geometry and the fill round its box 0 starts at.
struct Geom {
  int rows = 0;       // tile rows per warpgroup
  int w = 0;          // columns of a box (the staging slot's width)
  long long box = 0;  // bytes of one warpgroup's box
  int nbox = 0;       // boxes of the stored tile
  int depth = 0;      // staging slots
  Text round0;        // fills each slot took before this store: counter * (nbox / depth)
};

Geom geom(const Lower& L, const sgraph::Buffer& b, const ttgir::Type& tile, int op) {
  Geom g;
  if (tile.shape.size() != 2 || b.shape.size() != 2)
    L.c.fail(op, "a staged operand's tile and staging must be 2-D");
  g.rows = L.split_rows(static_cast<int>(tile.shape[0]), op);
  g.w = b.shape[1];
  g.depth = b.depth;
  if (g.w <= 0 || g.depth < 2 || tile.shape[1] % g.w != 0)
    L.c.fail(op, "staging buffer " + S(b.id) + " is no ring of column subtiles of this tile");
  g.nbox = static_cast<int>(tile.shape[1] / g.w);
  if (g.nbox % g.depth != 0)
    L.c.fail(op, "the tile's " + S(g.nbox) + " boxes do not cycle staging buffer " + S(b.id) +
                     "'s " + S(g.depth) + " slots evenly");
  g.box = static_cast<long long>(g.rows) * g.w * elem_bytes(b.elem);
  const int li = L.c.loop_of_op(b.producer_op);
  g.round0 = li >= 0 ? "(" + counter_ref(li) + ") * " + S(g.nbox / g.depth) : Text("0");
  return g;
}

// The fill ring counter of box j: warpgroup wg's slot j % depth, round round0 + j / depth.
Text fill_ctr(const Ctx& c, const sgraph::Buffer& b, const Geom& g, const Text& j) {
  return "(" + g.round0 + " + (" + j + ") / " + S(g.depth) + ") * " + S(c.fill_slots(b)) +
         " + wg * " + S(g.depth) + " + (" + j + ") % " + S(g.depth);
}

// This warpgroup's box j in the buffer, in bytes (slot j % depth; warpgroup k's part of a slot
// at k * box bytes, as the store lays it out).
Text box_offset(const Lower& L, const sgraph::Buffer& b, const Geom& g, const Text& j) {
  return (L.split() ? Text("slice * " + S(g.box) + " + ") : Text()) + "((" + j + ") % " +
         S(g.depth) + ") * " + S(b.bytes);
}

// The fill round of box j (the phase of its barrier slot the copy completes).
Text fill_round(const Geom& g, const Text& j) {
  return "(" + g.round0 + " + (" + j + ") / " + S(g.depth) + ")";
}

// An access to this warpgroup's box j of a filled staging buffer, of the fill's round j.
Access box_access(const Lower& L, const sgraph::Buffer& b, const Geom& g, const Text& j,
                  Access::Engine e, bool write) {
  Access a = Lower::staging_access(b, box_offset(L, b, g, j), g.box, e, write);
  a.round = fill_round(g, j);
  return a;
}

// The load's descriptor, checked against the store's: the fill writes the bytes the store's
// box reads back, so both boxes must be laid out alike.
Desc& fill_desc(Lower& L, const ttgir::Op& ld, const sgraph::Buffer& b, const Geom& g) {
  Ctx& c = L.c;
  Desc& d = desc_of(c, ld);
  const Desc& sd = desc_of(c, c.op(b.producer_op));
  if (d.block.size() != 2 || d.elem_bytes != sd.elem_bytes || d.swizzle != sd.swizzle ||
      d.fold != 1)
    c.fail(ld.id, "its descriptor's shared layout (" + S(d.swizzle) + "-byte swizzle, " + d.elem +
                      ") differs from the staging's (" + S(sd.swizzle) + "-byte, " + sd.elem +
                      ") it fills");
  if (inner_box(c, d, ld.id) < g.w) c.fail(ld.id, "its TMA box is narrower than a staging box");
  fix_box(c, d, {g.rows, g.w}, ld.id);
  return d;
}

// One thread: arm box j's barrier and TMA-load the box into its slot.
std::vector<Stmt> load_box(Lower& L, const ttgir::Op& ld, const Desc& d, const sgraph::Buffer& b,
                           const Geom& g, const Text& j) {
  Ctx& c = L.c;
  const std::string ring = c.fill_ring(b.id);
  const int slots = c.fill_slots(b);
  const Text ctr = fill_ctr(c, b, g, j);
  Text row = R(ld.operands.at(1));
  if (L.split()) row += " + slice * " + S(g.rows);
  const Text col = R(ld.operands.at(2)) + " + " + S(g.w) + " * (" + j + ")";
  const Text off = box_offset(L, b, g, j);
  const Text bar = Text(ring) + "->full_bar(" + ctr + ")";
  std::vector<Stmt> out;
  out.push_back(
      ring_op(Stmt::Kind::Arm, ring, slots, ctr, "fill: expect " + S(g.box) + " B", g.box));
  Stmt t = tma_op(Stmt::Kind::TmaLoad,
                  {code("tma_load_2d(" + c.buf_name(b.id) + " + " + off + ", &" + d.map + ", " +
                        bar + ", " + col + ", " + row + ");")},
                  bar, c.note(ld.id) + " box -> staging buffer " + S(b.id),
                  {box_access(L, b, g, j, Access::Engine::Tma, true)}, g.box);
  t.ring = ring;  // completes on a ring slot whose bytes are a staging box (verify: trace.cpp)
  t.ctr = ctr;
  t.depth = slots;
  out.push_back(t);
  return out;
}

}  // namespace

void lower_fill(Lower& L, const ttgir::Op& o, const sgraph::Buffer& b, Lowered& out) {
  Ctx& c = L.c;
  const int res = o.results.at(0);
  const ttgir::Type& t = c.type(res);
  const Geom g = geom(L, b, t, o.id);
  const Desc& d = fill_desc(L, o, b, g);
  const std::string elem = t.element_type().name;
  if (elem_bytes(elem) != 2) c.fail(o.id, "staged operands of " + elem + " are not implemented");
  // The storing thread alone can tell when its earlier stores have read the slots (bulk groups
  // are per thread), so it issues the fills: the first `depth` boxes here, the rest as the
  // store frees their slots.
  std::vector<Stmt> body;
  // Earlier stores from these slots: the previous iterations' in a loop, or a function-scope
  // store still in flight (the others drained before they ended).
  if (c.loop_of_op(b.producer_op) >= 0 || L.fn_stores_pending)
    body.push_back(bulk_wait(0, true, "the previous stores from these slots have read them"));
  body.push_back(for_("int j = 0", "j < " + S(g.depth), "++j", load_box(L, o, d, b, g, "j"),
                      "the first " + S(g.depth) + " boxes of the tile"));
  out.body.push_back(if_("thread_idx_in_warpgroup() == 0", body,
                         c.note(o.id) + ": staged in buffer " + S(b.id) +
                             " box by box for its store, op " + S(b.producer_op)));
  Val v;
  v.lay = Lay::Acc;
  v.rows = g.rows;
  v.cols = static_cast<int>(t.shape[1]);
  v.elem = elem;
  v.packed = true;
  v.packed_t = cuda_elem(c, elem, o.id);
  v.storage = res;
  v.staged = b.id;
  L.set(res, v);
}

void store_staged(Lower& L, const ttgir::Op& o, Desc& d, const Val& v, const sgraph::Buffer& b,
                  bool in_loop, std::vector<Stmt>& blk) {
  Ctx& c = L.c;
  if (v.staged != b.id || b.fill_op < 0)
    c.fail(o.id, "the stored value is computed from a tile staged in another store's buffer");
  const ttgir::Op& ld = c.op(b.fill_op);
  const int src = ld.results.at(0);
  const Geom g = geom(L, b, c.type(o.operands.back()), o.id);
  if (elem_bytes(d.elem) != 2 || d.swizzle == 0) c.fail(o.id, "only 16-bit swizzled staging");
  const int64_t w = inner_box(c, d, o.id);
  if (w != g.w) c.fail(o.id, "staging buffer " + S(b.id) + " is not one TMA box wide");
  fix_box(c, d, {g.rows, g.w}, o.id);
  const Desc& ldd = desc_of(c, ld);
  const std::string T = cuda_elem(c, d.elem, o.id);
  const std::string box_t = "AccTile<" + S(g.rows) + ", " + S(g.w) + ">";
  const std::string tmpl = T + ", " + S(d.swizzle) + ", " + S(g.w);
  const Text slot = box_offset(L, b, g, "ch");
  const Text at = c.buf_name(b.id) + " + " + slot;
  const Text rows =
      L.split() ? R(o.operands.at(1)) + " + slice * " + S(g.rows) : R(o.operands.at(1));
  if (in_loop) L.stores_in_flight = true;
  std::vector<Stmt> chunk;
  chunk.push_back(ring_op(Stmt::Kind::WaitFull, c.fill_ring(b.id), c.fill_slots(b),
                          fill_ctr(c, b, g, "ch"), "box ch of " + c.note(ld.id) + " landed"));
  // The staged tile's box, widened to f32 in the accumulator layout.
  chunk.push_back(decl(box_t, src, {}, false, c.note(ld.id) + ": box ch"));
  for (int s = 0; s < g.rows / 64; ++s)
    chunk.push_back(mem_code("acc_load_box<" + tmpl + ">(" + R(src) + ", " + at + ", " + S(s) +
                                 ", 0, " + S(64LL * s) + ");",
                             box_access(L, b, g, "ch", Access::Engine::Generic, false)));
  // The chain for this box: each op's box temporary, operands at the box's columns.
  L.box_w = g.w;
  L.box_ix = "ch";
  for (int id : v.box_ops) {
    const ttgir::Op& x = c.op(id);
    const std::string fn = float_element_fn(x);
    if (fn.empty()) c.fail(id, "not elementwise math: cannot be evaluated box by box");
    const int r = x.results.at(0);
    Text call = "tile_map(" + R(r) + ", " + lambda_text(x.operands.size(), "float", fn);
    for (int a : x.operands) call += ", " + L.operand(a, Lay::Acc, id);
    chunk.push_back(decl(box_t, r, {}, false, c.note(id) + ": box ch"));
    chunk.push_back(code(call + ");", c.note(id)));
  }
  L.box_w = 0;
  L.box_ix = Text();
  // The result over the same bytes: each thread writes exactly the elements it read, so no
  // barrier sits between the read and the write.
  for (int s = 0; s < g.rows / 64; ++s)
    chunk.push_back(mem_code("acc_store_box<" + tmpl + ">(" + at + ", " + R(v.storage) + ", " +
                                 S(s) + ", 0, " + S(64LL * s) + ");",
                             Lower::staging_access(b, slot, g.box, Access::Engine::Generic, true)));
  chunk.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> TMA store"));
  chunk.push_back(warpgroup_sync(S(c.bar_warpgroup()) + " + wg", "the whole box is written"));
  std::vector<Stmt> refill;
  refill.push_back(bulk_wait(0, true, "this box's store has read the slot"));
  for (Stmt& s : load_box(L, ld, ldd, b, g, "ch + " + S(g.depth))) refill.push_back(s);
  chunk.push_back(
      if_("thread_idx_in_warpgroup() == 0",
          {tma_op(Stmt::Kind::TmaStore,
                  {code("tma_store_2d(&" + d.map + ", " + at + ", " + R(o.operands.at(2)) + " + " +
                        S(g.w) + " * ch, " + rows + ");"),
                   code("tma_commit();")},
                  {}, "", {Lower::staging_access(b, slot, g.box, Access::Engine::Tma, false)}),
           if_("ch + " + S(g.depth) + " < " + S(g.nbox), refill,
               "refill the slot with box ch + " + S(g.depth))},
          "one thread stores the box"));
  blk.push_back(code("#pragma unroll"));
  blk.push_back(for_("int ch = 0", "ch < " + S(g.nbox), "++ch", chunk,
                     "per box: " + c.note(ld.id) + " + math -> " + d.elem + " -> TMA store"));
  const bool later = !in_loop && c.later_phase(o.id);
  L.fn_stores_pending = later;  // the next function-scope store's fill waits for these reads
  if (!in_loop && !later)
    blk.push_back(if_("thread_idx_in_warpgroup() == 0", {bulk_wait(0, true, kExitWait)}));
}

}  // namespace sched2cu::emit
