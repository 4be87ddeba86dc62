// The load-path model (see load_path.h): which descriptor loads may skip shared memory, the
// streaming rate a schedule predicts for them, and the refusal of pointer-tile MMA operands.
#include "sched2cu/sched/load_path.h"

#include <algorithm>
#include <cstdio>

#include "sched2cu/common/diag.h"
#include "sched2cu/ddg/build.h"

namespace sched2cu::sched {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;

LoadMode parse_load_mode(const std::string& s) {
  if (s == "auto") return LoadMode::Auto;
  if (s == "tma") return LoadMode::Tma;
  if (s == "global") return LoadMode::Global;
  throw Error("--loads must be auto, tma or global, not '" + s + "'");
}

void refuse_pointer_mma_operands(const ttgir::Function& f, const std::string& source) {
  for (const auto& op : f.ops) {
    if (op.name != "tt.load" || op.results.size() != 1 ||
        f.value(op.results[0]).type.shape.size() != 2)
      continue;
    for (ttgir::OpId u : f.value(op.results[0]).users) {
      const auto& uo = f.op(u);
      if (uo.name != "ttg.local_alloc" || uo.results.empty()) continue;
      std::vector<ttgir::OpId> readers(f.value(uo.results[0]).users);
      for (size_t i = 0; i < readers.size(); ++i) {
        const auto& r = f.op(readers[i]);
        if (r.name == "ttg.memdesc_trans" && !r.results.empty())
          for (ttgir::OpId v : f.value(r.results[0]).users) readers.push_back(v);
        if (r.name != "ttng.warp_group_dot") continue;
        std::string msg = op.loc.ir.known() ? op.loc.ir.str() : source;
        msg += ": error: schedule: a tile loaded through pointers";
        if (op.loc.src.known()) msg += " (from " + op.loc.src.str() + ")";
        msg +=
            " is an operand of an MMA: only tensor-descriptor loads are pipelined into shared "
            "memory (by TMA); load it with tl.make_tensor_descriptor(...).load(...) "
            "(out-of-bounds rows and columns read as zero, as a bounds mask with other=0 does)";
        throw Error(msg);
      }
    }
  }
}

LoadCandidates load_candidates(const ttgir::Module& m, const Function& f) {
  LoadCandidates c;
  // In a kernel without loops a tile only registers read has nothing to be pipelined with: a
  // plain load is its only sensible path (TMA would need a producer role and a channel for one
  // tile, which the emitter does not build at function scope).
  for (const Op& op : f.ops) c.loops |= op.name == "scf.for";
  for (const Op& op : f.ops) {
    if (op.name == "ttng.warp_group_dot" || op.name == "tt.dot") c.tensor_core = true;
    if (op.name != "tt.descriptor_load") continue;
    c.descriptor_loads = true;
    if (op.results.size() != 1) continue;
    if (ddg::is_register_load(m, f, op)) continue;  // already plain loads (accumulator layout)
    const ttgir::Value& r = f.value(op.results[0]);
    bool regs_only = (!c.loops || f.enclosing_for(op.id) != ttgir::kNoId) &&
                     r.type.shape.size() == 2 && m.encoding_kind(r.type) == "ttg.blocked" &&
                     !r.users.empty();
    for (OpId u : r.users) regs_only &= f.op(u).name != "ttg.local_alloc";
    if (regs_only)
      c.ops.insert(op.id);
    else if (c.needs_tma == ttgir::kNoId)
      c.needs_tma = op.id;
  }
  return c;
}

namespace {

std::string fmt1(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", x);
  return b;
}

}  // namespace

LoadRate predict_load_rate(const sgraph::ScheduleGraph& g, int loop, const ddg::TargetModel& t,
                           int64_t tile_bytes) {
  const sgraph::Loop& L = g.loops.at(static_cast<size_t>(loop));
  const Function* fp = nullptr;
  for (const auto& fn : g.ir.functions)
    if (fn.name == g.kernel.name) fp = &fn;
  if (fp == nullptr)
    throw Error("load-path model: the graph's IR has no function " + g.kernel.name);
  const Function& f = *fp;
  const ddg::OpClass* tma = t.classify("tt.descriptor_load", true);
  if (tma == nullptr) throw Error("load-path model: the target has no class for TMA loads");
  ddg::OpShape shape;
  shape.bytes = tile_bytes;
  const ddg::Costs tc = t.costs(*tma, shape);
  const double lat = static_cast<double>(std::max<int64_t>(1, tc.latency_tail));
  const double k = std::max(1, g.launch.ctas_per_sm);
  const double tile = static_cast<double>(tile_bytes);
  const double ii = std::max(1, L.ii);
  // Loads in flight per CTA: the ring's slots (the producer runs that far ahead), or how many
  // iterations ahead of its first reader the schedule issues a plain load.
  double ahead = 0;
  bool tma_path = false;
  for (const auto& n : L.nodes) {
    if (n.op < 0 || f.op(n.op).name != "tt.descriptor_load") continue;
    if (n.pipeline == "TMA") {
      tma_path = true;
      for (const auto& b : g.buffers) {
        if (b.loop != loop) continue;
        bool mine = b.producer_op == n.op;
        for (OpId u : f.value(f.op(n.op).results.at(0)).users) mine |= b.producer_op == u;
        if (mine) ahead = std::max(ahead, static_cast<double>(b.depth));
      }
    } else {
      double dist = -1;
      for (const auto& e : L.edges) {
        if (e.src != n.id) continue;
        const double d = L.nodes.at(static_cast<size_t>(e.dst)).cycle + e.distance * ii - n.cycle;
        dist = dist < 0 ? d : std::min(dist, d);
      }
      ahead = std::max(ahead, std::max(1.0, dist / ii));
    }
  }
  LoadRate r;
  struct Bound {
    double rate;
    const char* name;
  };
  std::vector<Bound> bounds;
  const double hbm = t.budgets.hbm_bytes_per_clk_sm;
  if (hbm > 0) bounds.push_back({hbm, "HBM"});
  bounds.push_back({k * ahead * tile / lat, "bytes in flight"});
  if (tma_path && tc.occupancy > 0)
    bounds.push_back({k * tile / static_cast<double>(tc.occupancy), "TMA issue"});
  bounds.push_back({k * tile / ii, "loop II"});
  const auto best = *std::min_element(
      bounds.begin(), bounds.end(), [](const Bound& a, const Bound& b) { return a.rate < b.rate; });
  r.bytes_per_clk = best.rate;
  r.bound = best.name;
  r.detail = fmt1(r.bytes_per_clk) + " B/clk/SM (" + r.bound +
             "): " + std::to_string(static_cast<int>(k)) + " CTAs/SM x " + fmt1(ahead) +
             " tiles of " + std::to_string(tile_bytes) + " B in flight over a loaded latency of " +
             std::to_string(static_cast<long long>(lat)) + " cycles, II " + std::to_string(L.ii) +
             (hbm > 0 ? ", HBM " + fmt1(hbm) : "");
  return r;
}

}  // namespace sched2cu::sched
