// Shared helpers of the kernel lowering (buffer lookup, TMA boxes, register-tile splits, names)
// and the function-scope epilogue lowering (register tiles -> staging -> TMA store). Nothing
// here decides a schedule; it reads the graph and fails with the op when it cannot lower.
#include <algorithm>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

using sgraph::Buffer;
using sgraph::Loop;
using sgraph::Node;
using sgraph::Role;

namespace {
std::string S(long long v) { return std::to_string(v); }
}  // namespace

const Buffer* buffer_produced_by(const Ctx& c, int op) {
  for (const auto& b : c.g.buffers)
    if (b.producer_op == op) return &b;
  return nullptr;
}

std::string buf_name(int id) { return "buf" + S(id); }
std::string ring_name(int loop, int ring) { return "ring" + S(loop) + "_" + S(ring); }
std::string it_name(int loop) { return "it" + S(loop); }

const Node* node_of_op(const Loop& L, int op) {
  for (const auto& n : L.nodes)
    if (n.op == op) return &n;
  return nullptr;
}

// The role that owns the loop-carried values leaving loop `li` (the epilogue runs there).
int result_role(const Ctx& c, int li) {
  const Loop& L = c.g.loops[li];
  ttgir::ForLoop fl = c.f.for_loop(L.op);
  int role = -1;
  for (int y : fl.yielded) {
    const ttgir::Op* d = c.f.def_op(y);
    const Node* n = d ? node_of_op(L, d->id) : nullptr;
    if (n == nullptr || n->role < 0) c.fail(L.op, "a loop-carried value has no owning role");
    if (role != -1 && role != n->role)
      c.fail(L.op, "loop-carried values owned by several roles: not implemented yet");
    role = n->role;
  }
  return role;
}

int split_rows(const Ctx& c, const Role& r, int rows, int op) {
  if (r.split_dim < 0) return rows;
  if (r.split_dim != 0)
    c.fail(op, "accumulator split along dim " + S(r.split_dim) + " is not implemented");
  if (rows % r.split_parts != 0) c.fail(op, "tile rows do not split evenly across warpgroups");
  return rows / r.split_parts;
}

// TMA box of a descriptor for one use; records it and rejects conflicting uses.
void fix_box(Ctx& c, Desc& d, std::vector<int64_t> box, int op) {
  if (!d.box.empty() && d.box != box) c.fail(op, "descriptor used with two different TMA boxes");
  d.box = std::move(box);
}

// Inner box width (elements) for a 2-D block under the descriptor's swizzle.
int loop_index_of(const Ctx& c, int op) {
  for (size_t i = 0; i < c.g.loops.size(); ++i)
    if (c.g.loops[i].op == op) return static_cast<int>(i);
  return -1;
}

Desc& desc_of(Ctx& c, const ttgir::Op& o) {
  const ttgir::Op* d = c.f.def_op(o.operands.at(0));
  auto it = d ? c.descs.find(d->id) : c.descs.end();
  if (it == c.descs.end())
    c.fail(o.id,
           "its descriptor is not a tt.make_tensor_descriptor of the kernel (host-side "
           "tensor descriptor arguments are not implemented yet)");
  return it->second;
}

int64_t inner_box(const Ctx& c, const Desc& d, int op) {
  if (d.block.size() != 2)
    c.fail(op, "TMA of rank " + S(static_cast<long long>(d.block.size())) + " is not implemented");
  if (d.swizzle == 0)
    c.fail(op, "unswizzled TMA tiles are not implemented (wgmma needs a swizzle)");
  int64_t w = d.swizzle / d.elem_bytes;
  if (d.block[1] % w != 0 && d.block[1] > w)
    c.fail(op, "block width is not a multiple of the swizzle span");
  return std::min<int64_t>(w, d.block[1]);
}

std::vector<Stmt> lower_epilogue_op(Ctx& c, const sgraph::Role& r, int op, EpilogueState& st) {
  const ttgir::Op& o = c.op(op);
  if (is_scalar_op(c, op)) return {lower_scalar(c, op)};
  if (o.name == "tt.return") return {};
  if (std::vector<Stmt> v; lower_register_tile_op(c, r, op, v)) return v;
  if (o.name == "arith.truncf" || o.name == "ttg.convert_layout") {
    auto t = c.tiles.find(o.operands.at(0));
    if (t == c.tiles.end()) c.fail(op, "operand is not a register tile of this role");
    Tile tile = t->second;  // conversion happens where the tile is stored (no register copy)
    tile.elem = c.type(o.results.at(0)).element_type().name;
    if (o.name == "arith.truncf" && elem_bytes(tile.elem) != 2)
      c.fail(op, "truncation to " + tile.elem + " is not implemented");
    c.tiles[o.results.at(0)] = tile;
    return {comment(c.note(op) + ": " + tile.elem + " view of " + tile.var +
                    " (converted when stored)")};
  }
  if (o.name == "tt.descriptor_store") {
    Desc& d = desc_of(c, o);
    auto t = c.tiles.find(o.operands.back());
    if (t == c.tiles.end()) c.fail(op, "stored value is not a register tile of this role");
    const Tile& tile = t->second;
    if (!tile.packed.empty())
      c.fail(op, "storing a loaded 16-bit register tile is not implemented");
    if (tile.elem != d.elem || elem_bytes(d.elem) != 2)
      c.fail(op, "only 16-bit tile stores are implemented");
    const Buffer* b = buffer_produced_by(c, op);
    const bool in_loop = c.op(op).parent_op != ttgir::kNoId;
    if (b == nullptr)
      c.fail(op, "no function-scope staging buffer for this store in the schedule graph");
    const int parts = r.split_parts;
    if (d.block[0] != static_cast<int64_t>(tile.rows) * parts || d.block[1] != tile.cols)
      c.fail(op, "stored tile shape differs from the descriptor block");
    if (b->loop >= 0 && b->loop != loop_index_of(c, c.op(op).parent_op))
      c.fail(op, "staging buffer " + S(b->id) + " belongs to another loop");
    int64_t w = inner_box(c, d, op);
    // Two staging forms (docs/emitter.md): the whole stored tile once, or a ring of `depth`
    // column subtiles one TMA box wide (box ch uses slot ch % depth).
    const bool whole = b->shape == std::vector<int>{tile.rows * parts, tile.cols} && b->depth == 1;
    const bool sub = b->shape == std::vector<int>{tile.rows * parts, static_cast<int>(w)} &&
                     b->depth >= 2 && tile.cols % w == 0;
    if (!whole && !sub)
      c.fail(op, "staging buffer " + S(b->id) + " must hold the stored [" +
                     S(static_cast<long long>(tile.rows) * parts) + ", " + S(tile.cols) +
                     "] tile once (depth 1) or be a ring of [" +
                     S(static_cast<long long>(tile.rows) * parts) + ", " + S(w) +
                     "] subtiles (depth >= 2)");
    fix_box(c, d, {tile.rows, w}, op);
    const long long box_bytes = static_cast<long long>(tile.rows) * w * d.elem_bytes;
    const long long nbox = tile.cols / w;
    std::string row = c.ident(o.operands.at(1)), col = c.ident(o.operands.at(2));
    std::string rows = parts > 1 ? row + " + slice * " + S(tile.rows) : row;
    std::string T = cuda_elem(c, d.elem, op);
    std::vector<Stmt> blk;
    if (st.overlay && !st.role_synced) {
      // The staging bytes overlay ring slots other warpgroups of the role may still read.
      blk.push_back(
          code("named_bar_sync(" + S(1 + c.g.launch.warpgroups) + ", " +
                   S(128LL * static_cast<long long>(r.warpgroups.size())) + ");",
               "role-wide: every warpgroup is done with the loop rings staging overlays"));
      st.role_synced = true;
    }
    if (in_loop) st.stores_in_flight = true;
    std::vector<Stmt> chunk;
    std::string at;  // this box's staging bytes
    if (whole) {
      // Warpgroup k stages its rows as cols/w TMA boxes [rows][w] at k * slice bytes.
      if (in_loop) {
        // The previous iteration's stores may still be in flight (they overlap this iteration's
        // main loop); wait until they have read the staging before anyone rewrites it.
        blk.push_back(code("if (thread_idx_in_warpgroup() == 0) tma_wait_read<0>();",
                           "previous stores have read the staging"));
        blk.push_back(code("warpgroup_sync(1 + wg);"));
      }
      blk.push_back(code("uint8_t* const stage = " + buf_name(b->id) +
                         (parts > 1 ? " + slice * " + S(box_bytes * nbox) + "u" : "") + ";"));
      at = "stage + ch * " + S(box_bytes) + "u";
    } else {
      // Slot s holds every warpgroup's [rows][w] box of one column subtile: warpgroup k's at
      // s * slot bytes + k * box bytes. Box ch reuses the bytes of box ch - depth, so the
      // storing thread first waits until at most depth - 1 of its stores are still reading.
      const long long slot_bytes = static_cast<long long>(b->bytes);
      blk.push_back(code("uint8_t* const stage = " + buf_name(b->id) +
                         (parts > 1 ? " + slice * " + S(box_bytes) + "u" : "") + ";"));
      if (in_loop)
        // Stores of the previous iteration may still read any slot; box 0 waits for all of
        // them (their count and slots depend on that iteration), later boxes for box ch - depth.
        chunk.push_back(if_("thread_idx_in_warpgroup() == 0",
                            {code("if (ch == 0) tma_wait_read<0>(); else tma_wait_read<" +
                                  S(b->depth - 1) + ">();")},
                            "slot ch % " + S(b->depth) + " has been read by its last store"));
      else
        chunk.push_back(if_(
            "thread_idx_in_warpgroup() == 0", {code("tma_wait_read<" + S(b->depth - 1) + ">();")},
            "the store of box ch - " + S(b->depth) + " (same slot) has read its bytes"));
      chunk.push_back(code("warpgroup_sync(1 + wg);", "nobody writes the slot before that"));
      at = "stage + (ch % " + S(b->depth) + ") * " + S(slot_bytes) + "u";
    }
    // Box by box: convert box ch into its staging bytes, fence, sync the warpgroup, and let one
    // thread store it, so the TMA engine writes box ch while the warpgroup converts ch + 1.
    const std::string box_call =
        "acc_store_box<" + T + ", " + S(d.swizzle) + ", " + S(w) + ">(" + at + ", " + tile.var;
    for (int s = 0; s < tile.rows / 64; ++s) {
      std::string call = box_call;
      call += ", " + S(s) + ", " + S(w) + " * ch, " + S(64LL * s) + ");";
      chunk.push_back(code(call));
    }
    chunk.push_back(code("fence_proxy_async();", "generic-proxy writes -> TMA store"));
    chunk.push_back(code("warpgroup_sync(1 + wg);", "the whole box is written"));
    chunk.push_back(
        if_("thread_idx_in_warpgroup() == 0",
            {tma_store(d.map, at, {col + " + " + S(w) + " * ch", rows}, ""), code("tma_commit();")},
            "one thread stores the box"));
    blk.push_back(code("#pragma unroll"));
    blk.push_back(for_("int ch = 0", "ch < " + S(nbox), "++ch", chunk,
                       "convert to " + d.elem + " and store " + S(nbox) + " TMA boxes"));
    if (!in_loop)
      blk.push_back(
          if_("thread_idx_in_warpgroup() == 0",
              {code("tma_wait<0>();", "stores complete (and staging read) before exit")}));
    return {block(blk, c.note(op) + " via staging buffer " + S(b->id))};
  }
  c.fail(op, "no epilogue lowering for this op yet");
}

}  // namespace sched2cu::emit
