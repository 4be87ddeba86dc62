// Register tiles exchanged through shared memory (docs/emitter.md, "Register exchange"): a
// `tt.trans` of a 16-bit accumulator tile is a view of its operand, and the ttg.convert_layout
// that makes it (or any 16-bit tile) a wgmma operand another warpgroup needs writes the tile into
// the ring slot of a "store" channel that the role fills for itself: each warpgroup its own rows,
// a proxy fence, one arrival per warp on the slot's full barrier. The result is a shared-memory
// operand; the MMA reads it K-major, or MN-major when the tile was transposed. The slot's wait
// for a free slot and its release are the expander's, as for any ring. Never used to reshuffle
// registers within a warpgroup (those conversions are views or refused).
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

// tt.trans of a register tile: a view. Only an exchange reads it (whole_operand refuses it).
void lower_trans(Lower& L, const ttgir::Op& o, Lowered& out) {
  if (lower_halves_trans(L, o, out)) return;
  Val v = L.val(o.operands.at(0), o.id);
  const ttgir::Attribute* ord = o.attr("order");
  const auto order = ord ? ord->as_int_array() : std::vector<int64_t>{};
  if (order != std::vector<int64_t>{1, 0})
    L.c.fail(o.id, "only the 2-D transpose (order [1, 0]) is implemented");
  if (v.lay != Lay::Acc || !v.packed || v.reg_trans || v.col_parts != 1)
    L.c.fail(o.id,
             "a register transpose is implemented for 16-bit accumulator-layout tiles split "
             "along their rows, exchanged through shared memory");
  for (int u : L.c.f.value(o.results.at(0)).users)
    if (L.c.buffer_of(u) == nullptr)
      L.c.fail(o.id, "the transposed tile is read by " + L.c.note(u) +
                         ", which no shared-memory exchange of the schedule graph carries (a "
                         "transposed register tile is only exchanged)");
  v.reg_trans = true;
  L.set(o.results.at(0), v);
  out.body.push_back(comment(L.c.note(o.id) + ": a view, written transposed where exchanged"));
}

void lower_exchange(Lower& L, const ttgir::Op& o, const sgraph::Buffer& b, Lowered& out) {
  Ctx& c = L.c;
  const int src = o.operands.at(0);
  const Val& v = L.val(src, o.id);
  if (v.lay != Lay::Acc || !v.packed || v.col_parts != 1)
    c.fail(o.id,
           "a register exchange through shared memory is implemented for 16-bit "
           "accumulator-layout tiles split along their rows (truncate it with arith.truncf)");
  const int li = c.loop_of_op(o.id);
  if (li < 0 || b.loop != li || b.ring < 0)
    c.fail(o.id, "buffer " + S(b.id) +
                     " exchanges registers outside a scheduled loop's ring (only in-loop "
                     "exchanges are implemented)");
  const sgraph::Loop& loop = c.g.loops.at(static_cast<size_t>(li));
  bool ok = false;
  for (const auto& ch : loop.channels)
    ok |= ch.ring == b.ring && ch.mechanism == "store" && ch.producer_role == L.r.id &&
          ch.consumer_role == L.r.id;
  if (!ok)
    c.fail(o.id, "no \"store\" channel of role " + L.r.name + " to itself carries ring " +
                     S(b.ring) + " (the register exchange's)");
  // The slot holds the tile as the registers hold it (before a transpose): [rows][cols].
  const ttgir::Type& st = c.type(v.reg_trans ? c.f.def_op(src)->operands.at(0) : src);
  const int parts = L.r.split_parts;
  const int rows = v.rows * parts;
  if (st.shape.size() != 2 || st.shape[0] != rows || st.shape[1] != v.cols ||
      b.shape != std::vector<int>{rows, v.cols})
    c.fail(o.id, "buffer " + S(b.id) + " must hold the exchanged [" + S(rows) + ", " + S(v.cols) +
                     "] tile");
  const int row_bytes = v.cols * 2;
  const int sw = row_bytes % 128 == 0  ? 128
                 : row_bytes % 64 == 0 ? 64
                 : row_bytes % 32 == 0 ? 32
                                       : 0;
  if (sw == 0)
    c.fail(o.id, "the exchanged tile's rows (" + S(row_bytes) +
                     " B) are no whole swizzle span (32, 64 or 128 B)");
  const long long box_bytes = static_cast<long long>(rows) * sw;
  const Text slot = L.slot_addr(b);
  const Text row0 = L.split() ? Text("slice * " + S(v.rows)) : Text("0");
  // The checker's view: this warpgroup's rows of every box of the slot.
  std::vector<Access> parts_written;
  for (long long j = 0; j < row_bytes / sw; ++j) {
    Access a = L.slot_access(b, Access::Engine::Generic, true);
    a.slot_bytes = b.bytes;
    a.bytes = static_cast<long long>(v.rows) * sw;
    a.offset = (L.split() ? "slice * " + S(a.bytes) + " + " : std::string()) + S(j * box_bytes);
    parts_written.push_back(a);
  }
  std::vector<Stmt> body;
  Stmt st_code = mem_code("packed_store_smem<" + S(sw) + ", " + S(rows) + ">(" + slot + ", " +
                              R(v.storage) + ", " + row0 + ");",
                          parts_written.front(), "this warpgroup's rows of the exchanged tile");
  st_code.mem = parts_written;
  body.push_back(std::move(st_code));
  body.push_back(sync_op(Stmt::Kind::ProxyFence, "generic-proxy writes -> wgmma reads"));
  body.push_back(ring_op(Stmt::Kind::Commit, c.ring_name(li, b.ring), b.depth, counter_ref(li),
                         "ring " + S(b.ring) + ": this warp's part of the exchange is written"));
  out.body.push_back(block(body, c.note(o.id) + " through buffer " + S(b.id)));
  Val r;
  r.lay = Lay::Smem;
  r.buffer = b.id;
  r.smem_trans = v.reg_trans;  // read transposed: MN-major
  r.swizzle = sw;
  r.elem = v.elem;
  r.storage = o.results.at(0);
  L.set(o.results.at(0), r);
}

}  // namespace sched2cu::emit
