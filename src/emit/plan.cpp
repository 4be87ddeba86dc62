// Facts derived once from the schedule graph: the context's lookups and names, the host-built
// TMA descriptors, and the shared-memory plan (resident buffers, loop rings, epilogue staging,
// barriers). Reads decisions; never makes one the graph should have made.
#include <algorithm>
#include <cctype>
#include <tuple>
#include <utility>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

void Ctx::fail(int op_id, const std::string& msg) const {
  const ttgir::Op& o = f.op(op_id);
  std::string where = o.loc.ir.known() ? o.loc.ir.str() : g.kernel.source;
  std::string py = o.loc.src.known() ? " (from " + o.loc.src.str() + ")" : "";
  throw Error(where + ": error: emit: op " + std::to_string(op_id) + " '" + o.name + "'" + py +
              ": " + msg);
}

std::string Ctx::note(int op_id) const {
  return "op " + std::to_string(op_id) + " " + f.op(op_id).name;
}

std::string Ctx::ident(int value) const {
  const ttgir::Value& v = f.value(value);
  for (const auto& p : g.kernel.params)
    if (p.value == value) return p.name;
  std::string s;
  for (char ch : v.name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s + "_" + std::to_string(value);
}

const sgraph::Buffer* Ctx::buffer_of(int op) const {
  for (const auto& b : g.buffers)
    if (b.producer_op == op) return &b;
  return nullptr;
}

int Ctx::loop_index(int for_op) const {
  for (size_t i = 0; i < g.loops.size(); ++i)
    if (g.loops[i].op == for_op) return static_cast<int>(i);
  return -1;
}

int Ctx::loop_of_op(int op) const {
  for (int p = f.op(op).parent_op; p != ttgir::kNoId; p = f.op(p).parent_op) {
    int li = loop_index(p);
    if (li >= 0) return li;
  }
  return -1;
}

const sgraph::Node* Ctx::node_of(int li, int op) const {
  for (const auto& n : g.loops.at(static_cast<size_t>(li)).nodes)
    if (n.op == op) return &n;
  return nullptr;
}

std::string Ctx::ring_name(int loop, int ring) const {
  return "ring" + std::to_string(loop) + "_" + std::to_string(ring);
}
int Ctx::phase_of(int loop) const {
  int top = loop;
  while (g.loops.at(static_cast<size_t>(top)).parent_loop >= 0)
    top = g.loops[static_cast<size_t>(top)].parent_loop;
  int ph = 0;
  for (int i = 0; i < top; ++i)
    if (g.loops[static_cast<size_t>(i)].parent_loop < 0) ++ph;
  return ph;
}

int Ctx::phases() const {
  int n = 0;
  for (const auto& l : g.loops) n += l.parent_loop < 0 ? 1 : 0;
  return n;
}

bool Ctx::later_phase(int op) const {
  const auto& tops = f.top_ops();
  int top = op;
  while (std::find(tops.begin(), tops.end(), top) == tops.end() &&
         f.op(top).parent_op != ttgir::kNoId)
    top = f.op(top).parent_op;
  bool seen = false;
  for (int t : f.top_ops()) {
    if (seen && loop_index(t) >= 0) return true;
    seen |= t == top;
  }
  return false;
}

std::string Ctx::buf_name(int id) const { return "buf" + std::to_string(id); }
std::string Ctx::fn_bar(int channel) const { return "&fn_bar[" + std::to_string(channel) + "]"; }

const sgraph::Buffer* Ctx::fill_of(int load_op) const {
  for (const auto& b : g.buffers)
    if (b.fill_op == load_op) return &b;
  return nullptr;
}

std::string Ctx::fill_ring(int buffer) const { return "fill" + std::to_string(buffer); }

bool Ctx::role_issues_mmas(int li, int role) const {
  for (const auto& n : g.loops.at(static_cast<size_t>(li)).nodes)
    if (n.pipeline == "TC" && n.role == role) return true;
  return false;
}

const sgraph::FnChannel* Ctx::fn_channel_of(int buffer) const {
  for (const auto& ch : g.channels)
    if (ch.buffer == buffer) return &ch;
  return nullptr;
}

namespace {

bool register_only(const Ctx& c, int desc) {
  const auto& users = c.f.value(desc).users;
  if (users.empty()) return false;
  for (int u : users) {
    const ttgir::Op& uo = c.op(u);
    if (uo.name == "tt.descriptor_load") {
      const int r = uo.results.at(0);
      if (!is_blocked_type(c, c.type(r)) || c.type(r).shape.size() != 2) return false;
      for (int x : c.f.value(r).users)
        if (c.op(x).name == "ttg.local_alloc" || c.op(x).name == "ttg.convert_layout") return false;
      continue;
    }
    if (ttgir::is_descriptor_store(uo.name)) {
      const int v = uo.operands.back();
      if (!is_blocked_type(c, c.type(v)) || c.type(v).shape.size() != 2) return false;
      const ttgir::Op* d = c.f.def_op(v);
      // The wgmma world's epilogue converts an accumulator to a blocked layout only to store it.
      if (d != nullptr && d->name == "ttg.convert_layout") return false;
      continue;
    }
    return false;
  }
  return true;
}

long long const_value(const Ctx& c, int v) {
  const ttgir::Op* d = c.f.def_op(v);
  if (d == nullptr || d->name != "arith.constant") return -1;
  const ttgir::Attribute* a = d->attr("value");
  return a != nullptr && a->kind == ttgir::Attribute::Kind::Integer ? a->ival : -1;
}

// The fold of a register-only 2-D descriptor: its block spans whole rows (block width = tensor
// width = row stride, all constants) wider than one 256-element TMA box, and every use reads
// or writes at column 0. Then [M, C] is also [M * C / 256, 256] with the same bytes, and a
// [R * C / 256, 256] box is the [R, C] tile, row-major.
int row_fold(const Ctx& c, const Desc& d) {
  if (d.block.size() != 2) return 1;
  const int64_t cols = d.block[1];
  if (cols <= 256 || cols % 256 != 0) return 1;
  if (const_value(c, d.shape[1]) != cols || const_value(c, d.strides[0]) != cols) return 1;
  for (int u : c.f.value(d.value).users) {
    const ttgir::Op& uo = c.op(u);
    if (uo.operands.size() < 3 || const_value(c, uo.operands[2]) != 0) return 1;
  }
  return static_cast<int>(cols / 256);
}

}  // namespace

int desc_key(const Ctx& c, int value) {
  const ttgir::Op* d = c.f.def_op(value);
  if (d != nullptr) return d->name == "tt.make_tensor_descriptor" ? d->id : -1;
  if (c.type(value).kind != ttgir::Type::Kind::TensorDesc) return -1;
  for (const auto& p : c.g.kernel.params)
    if (p.value == value) return -2 - value;
  return -1;
}

void plan_descriptors(Ctx& c) {
  auto plan = [&](int key, int value, int op, int base, std::vector<int> shape,
                  std::vector<int> strides) {
    // An argument's errors are located at its first use.
    if (op < 0 && c.f.value(value).users.empty()) return;  // unused: no map, only the ABI slots
    if (op < 0) op = c.f.value(value).users.front();
    Desc d;
    d.op = key >= 0 ? op : -1;
    d.where = op;
    d.value = value;
    d.base = base;
    d.shape = std::move(shape);
    d.strides = std::move(strides);
    d.map = "map_" + c.ident(value);
    const ttgir::Type& t = c.type(value);
    const ttgir::Type& blk = t.elem.at(0);
    d.elem = blk.element_type().name;
    d.elem_bytes = elem_bytes(d.elem);
    if (d.elem_bytes == 0) c.fail(op, "element type " + d.elem + " has no TMA lowering");
    d.block = blk.shape;
    d.swizzle = swizzle_of(c, t, op);
    if (d.shape.size() != d.block.size() || d.strides.size() != d.block.size())
      c.fail(op, "descriptor of rank " + S(static_cast<long long>(d.block.size())) + " with " +
                     S(static_cast<long long>(d.shape.size())) + " extents and " +
                     S(static_cast<long long>(d.strides.size())) + " strides");
    // A descriptor whose tiles only ever live in registers (loaded for register math, stored
    // from a blocked tile) gets the emitter's shared layout: unswizzled rows in the widest TMA
    // boxes, read and written conflict-free with 16-byte vectors (blocked.cuh), and a few large
    // copies instead of one per 128-byte swizzle span. wgmma operands keep the IR's swizzle.
    if (register_only(c, value)) {
      d.swizzle = 0;
      d.fold = row_fold(c, d);
    }
    c.descs[key] = d;
  };
  for (const auto& o : c.f.ops) {
    if (o.name != "tt.make_tensor_descriptor") continue;
    const size_t rank = c.type(o.results.at(0)).elem.at(0).shape.size();
    if (o.operands.size() != 1 + 2 * rank) c.fail(o.id, "unexpected operand count");
    std::vector<int> shape(o.operands.begin() + 1, o.operands.begin() + 1 + rank);
    std::vector<int> strides(o.operands.begin() + 1 + rank, o.operands.end());
    plan(o.id, o.results[0], o.id, o.operands[0], std::move(shape), std::move(strides));
  }
  // Host tensor descriptors: Triton passes each as the descriptor and then its extents (i32)
  // and strides (i64) as arguments of their own (the kernel's TTGIR lists them after it).
  const auto& ps = c.g.kernel.params;
  for (size_t i = 0; i < ps.size(); ++i) {
    const ttgir::Type& t = c.type(ps[i].value);
    if (t.kind != ttgir::Type::Kind::TensorDesc) continue;
    const size_t rank = t.elem.at(0).shape.size();
    auto is_int = [&](size_t k, int bits) {
      return k < ps.size() && c.type(ps[k].value).kind == ttgir::Type::Kind::Integer &&
             c.type(ps[k].value).bits == bits;
    };
    std::vector<int> shape, strides;
    for (size_t k = 0; k < rank; ++k) {
      if (!is_int(i + 1 + k, 32) || !is_int(i + 1 + rank + k, 64))
        throw Error("emit: tensor descriptor argument " + ps[i].name + " (" + t.str() +
                    ") is not followed by its " + S(static_cast<long long>(rank)) +
                    " i32 extents and " + S(static_cast<long long>(rank)) +
                    " i64 strides (Triton 3.6 expands a TensorDescriptor argument so)");
      shape.push_back(ps[i + 1 + k].value);
      strides.push_back(ps[i + 1 + rank + k].value);
    }
    plan(-2 - ps[i].value, ps[i].value, -1, ps[i].value, std::move(shape), std::move(strides));
  }
}

// Resident buffers first (filled once, read by the loops), then the loop rings, then epilogue
// staging, then the barriers. A staging buffer that does not fit beside the rest overlays the
// resident buffers and rings from the start (Ctx::overlaid): they are dead once the loops are
// done, and its store first synchronizes what another warpgroup may still read there
// (overlay.cpp). A resident buffer read after the loops is never overlaid.
void plan_smem(Ctx& c) {
  auto align = [](long long v, long long a) { return (v + a - 1) / a * a; };
  auto has_channel = [&](int li, int ring) {
    for (const auto& x : c.g.loops[static_cast<size_t>(li)].channels)
      if (x.ring == ring) return true;
    return false;
  };
  long long off = 0, keep_end = 0;
  for (const auto& b : c.g.buffers) {
    if (b.loop >= 0 || c.fn_channel_of(b.id) == nullptr) continue;
    off = align(off, 1024);
    c.buf_offset[b.id] = off;
    off += static_cast<long long>(b.bytes) * b.depth;
    bool read_after = false;
    for (int u : b.consumer_ops) read_after |= c.loop_of_op(u) < 0;
    if (read_after) keep_end = off;
  }
  // Loop buffers by phase (docs/emitter.md, "Phases"): each top-level loop nest's rings start
  // at the same offset, the pool, since one nest runs after the other (the producer joins them).
  const int phases = c.phases();
  const long long pool = off;
  long long loops_end = off;
  for (int ph = 0; ph < std::max(phases, 1); ++ph) {
    off = pool;
    for (const auto& b : c.g.buffers) {
      if (b.loop < 0 || c.phase_of(b.loop) != ph) continue;
      off = align(off, 1024);
      c.buf_offset[b.id] = off;
      off += static_cast<long long>(b.bytes) * b.depth;
    }
    loops_end = std::max(loops_end, off);
  }
  // Function-scope store staging; across phases, the stores of one shape share a region (each
  // store first waits for the reads of every store its thread issued before it).
  auto staged = [&](const sgraph::Buffer& b) {
    return b.loop < 0 && c.fn_channel_of(b.id) == nullptr;
  };
  auto shares_with = [&](const sgraph::Buffer& b) -> const sgraph::Buffer* {
    if (phases <= 1) return nullptr;
    for (const auto& e : c.g.buffers) {
      if (e.id == b.id) return nullptr;
      if (staged(e) && e.shape == b.shape && e.bytes == b.bytes && e.depth == b.depth) return &e;
    }
    return nullptr;
  };
  long long bar_bytes = 8LL * static_cast<long long>(c.g.channels.size());
  for (size_t li = 0; li < c.g.loops.size(); ++li)
    for (const auto& r : c.g.loops[li].rings)
      if (has_channel(static_cast<int>(li), r.id)) bar_bytes += 16LL * r.depth;  // full + empty
  for (const auto& b : c.g.buffers)
    if (b.fill_op >= 0) bar_bytes += 16LL * c.fill_slots(b);
  const long long budget = c.g.target.smem_bytes - 1024;  // 1024 B alignment slack
  // Staging beside the loops where it fits, in buffer order (a small row-vector staging stays
  // out of the overlay, so it never forces a role-wide barrier); the rest overlays the resident
  // buffers and rings from `keep_end`. Several phases never overlay.
  off = align(loops_end, 1024);
  long long over = align(keep_end, 1024);
  for (const auto& b : c.g.buffers) {
    if (!staged(b)) continue;
    if (const sgraph::Buffer* e = shares_with(b)) {
      c.buf_offset[b.id] = c.buf_offset.at(e->id);
      continue;
    }
    const long long size = static_cast<long long>(b.bytes) * b.depth;
    if (phases > 1 || align(off, 1024) + size + bar_bytes <= budget) {
      off = align(off, 1024);
      c.buf_offset[b.id] = off;
      off += size;
    } else {
      // A fill loads its staging while the loops still run: those bytes must be its own.
      if (b.fill_op >= 0)
        throw Error("emit: staging buffer " + std::to_string(b.id) +
                    " is filled during the loops but does not fit beside the rings (" +
                    std::to_string(size) + " B); the schedule graph's fill_op needs room left");
      over = align(over, 1024);
      c.buf_offset[b.id] = over;
      over += size;
      c.overlaid.insert(b.id);
    }
  }
  off = align(std::max({off, over, loops_end}), 8);
  for (size_t li = 0; li < c.g.loops.size(); ++li)
    for (const auto& r : c.g.loops[li].rings) {
      if (!has_channel(static_cast<int>(li), r.id)) continue;  // no cross-role hand-off
      c.ring_offset[{static_cast<int>(li), r.id}] = off;
      off += 16LL * r.depth;
    }
  for (const auto& ch : c.g.channels) {
    c.fn_bar_offset[ch.id] = off;
    off += 8;
  }
  for (const auto& b : c.g.buffers)
    if (b.fill_op >= 0) {
      c.fill_offset[b.id] = off;
      off += 16LL * c.fill_slots(b);  // a Ring: full + empty barrier per slot
    }
  if (c.split_loop >= 0) {
    // The split sum's region: the loop's own buffers, drained once it ends. Their whole span when
    // no other buffer lies inside it, else the largest of them (more rounds of the sum). Staging
    // overlaid on the rings is written only after a role-wide barrier that follows the sum.
    auto extent = [&](const sgraph::Buffer& b) {
      const long long at = c.buf_offset.at(b.id);
      return std::pair<long long, long long>{at, at + static_cast<long long>(b.bytes) * b.depth};
    };
    long long lo = -1, hi = 0, big_lo = -1, big_hi = 0;
    int lo_buf = -1, big_buf = -1;  // the buffers starting at lo and big_lo
    for (const auto& b : c.g.buffers)
      if (b.loop == c.split_loop) {
        const auto [a, e] = extent(b);
        if (lo < 0 || a < lo) std::tie(lo, lo_buf) = std::pair{a, b.id};
        hi = std::max(hi, e);
        if (e - a > big_hi - big_lo) std::tie(big_lo, big_hi, big_buf) = std::tuple{a, e, b.id};
      }
    if (lo < 0)
      throw Error("emit: loop " + std::to_string(c.split_loop) +
                  " is split (loops[].split) but has no ring to sum its results through");
    for (const auto& b : c.g.buffers) {
      if (b.loop == c.split_loop || c.overlaid.count(b.id) != 0 || c.buf_offset.count(b.id) == 0)
        continue;
      const auto [a, e] = extent(b);
      if (a < hi && lo < e) std::tie(lo, hi, lo_buf) = std::tuple{big_lo, big_hi, big_buf};
    }
    c.split_region = lo;
    c.split_region_buffer = lo_buf;
    c.split_region_bytes = hi - lo;
    c.split_bar_offset = off;
    off += 16;  // SplitBars: ready + go
  }
  c.smem_bytes = off;
  if (off > budget)
    throw Error("emit: shared memory plan needs " + std::to_string(off + 1024) +
                " B (incl. 1024 B alignment slack), target " + c.g.target.name + " has " +
                std::to_string(c.g.target.smem_bytes));
}

}  // namespace sched2cu::emit
