// Which shared-memory bytes an overlaid epilogue staging may rewrite without a role-wide barrier
// (docs/emitter.md, "Shared memory plan and epilogue staging"). A warpgroup that starts its
// epilogue knows only that its own MMAs retired; the other warpgroups of its role may still be
// issuing theirs. Staging bytes that only this warpgroup ever reads (its rows of a row-split,
// K-major A operand that stays resident) are safe after a warpgroup barrier; anything else
// (a ring slot, bytes another warpgroup reads, a buffer read any other way) needs the role-wide
// barrier. This file only answers the question; it never emits statements.
#include <algorithm>

#include "lower.h"

namespace sched2cu::emit {

std::optional<RowSlabs> row_slabs(long long tile_bytes, long long rows, long long rows_per_slice,
                                  int swizzle) {
  const long long box = rows * swizzle;
  if (box <= 0 || tile_bytes % box != 0) return {};
  return RowSlabs{box, rows_per_slice * swizzle, tile_bytes / box};
}

std::optional<Spans> slice_rows(const Ctx& c, const sgraph::Buffer& b, const sgraph::Role& r,
                                int slice) {
  if (b.loop >= 0 || b.depth != 1 || r.split_parts <= 1 || b.shape.size() != 2) return {};
  const sgraph::FnChannel* ch = c.fn_channel_of(b.id);
  if (ch == nullptr || ch->consumer_role != r.id || b.consumer_ops.empty()) return {};
  const auto off = c.buf_offset.find(b.id);
  if (off == c.buf_offset.end()) return {};
  int swizzle = 0;
  for (int u : b.consumer_ops) {
    const ttgir::Op& o = c.op(u);
    if (o.name != "ttng.warp_group_dot" || o.operands.size() < 2) return {};
    // Only operand A, straight from the buffer's allocation, in a loop of this role.
    const ttgir::Value& a = c.f.value(o.operands[0]);
    const ttgir::Value& bv = c.f.value(o.operands[1]);
    if (a.def_op != b.producer_op || bv.def_op == b.producer_op) return {};
    if (layout_transposed(c, a.type, u)) return {};
    const int li = c.loop_of_op(u);
    const sgraph::Node* n = li >= 0 ? c.node_of(li, u) : nullptr;
    if (n == nullptr || n->role != r.id) return {};
    const int s = swizzle_of(c, a.type, u);
    if (s <= 0 || (swizzle != 0 && s != swizzle)) return {};
    swizzle = s;
  }
  const long long rows = b.shape[0], parts = r.split_parts;
  if (rows % (64 * parts) != 0) return {};
  const std::optional<RowSlabs> g = row_slabs(b.bytes, rows, rows / parts, swizzle);
  if (!g) return {};
  Spans out;
  for (long long bb = 0; bb < g->boxes; ++bb) {
    const long long start = off->second + bb * g->box + slice * g->slab;
    out.emplace_back(start, start + g->slab);
  }
  return out;
}

bool overlay_private(const Ctx& c, const sgraph::Role& r, int slice, const Spans& mine) {
  auto meets = [](const Spans& x, long long lo, long long hi) {
    return std::any_of(x.begin(), x.end(),
                       [&](const auto& s) { return s.first < hi && lo < s.second; });
  };
  for (const auto& b : c.g.buffers) {
    const bool staging = b.loop < 0 && c.fn_channel_of(b.id) == nullptr;
    if (staging) continue;  // staging buffers never overlap one another (plan_smem)
    const auto off = c.buf_offset.find(b.id);
    if (off == c.buf_offset.end()) continue;
    const long long lo = off->second, hi = lo + static_cast<long long>(b.bytes) * b.depth;
    if (!meets(mine, lo, hi)) continue;
    if (b.loop >= 0) return false;  // a ring slot: any warpgroup's last MMAs may read it
    const sgraph::FnChannel* ch = c.fn_channel_of(b.id);
    if (ch == nullptr || ch->consumer_role != r.id) return false;  // another role reads it
    for (int k = 0; k < r.split_parts; ++k) {
      if (k == slice) continue;
      const std::optional<Spans> theirs = slice_rows(c, b, r, k);
      if (!theirs) return false;
      for (const auto& s : *theirs)
        if (meets(mine, s.first, s.second)) return false;
    }
  }
  return true;
}

}  // namespace sched2cu::emit
