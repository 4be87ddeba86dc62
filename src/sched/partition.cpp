// Role partition and register allotment (see partition.h).
#include "sched2cu/sched/partition.h"

#include <algorithm>

#include "sched2cu/common/diag.h"

namespace sched2cu::sched {

Partition partition(const ddg::Ddg& g, const PartitionInput& in, const ddg::Budgets& b) {
  Partition p;
  const int per_wg_warps = b.threads_per_warpgroup / 32;
  int consumers = std::max(1, in.num_warps / per_wg_warps);
  const int prod_wgs = in.producer ? 1 : 0;
  if ((consumers + prod_wgs) * b.threads_per_warpgroup > b.max_threads_per_block)
    throw Error("num_warps " + std::to_string(in.num_warps) +
                (in.producer
                     ? " leaves no room for a producer warpgroup within the block size limit"
                     : " exceeds the block size limit"));
  RolePlan prod{"producer", "producer", 0, 1, in.producer ? b.producer_regs : 0, 0, -1, 1};
  RolePlan cons{"consumer", "consumer", prod_wgs, consumers, 0, 0, -1, 1};
  const int ci = in.producer ? 1 : 0;  // the consumer's role index
  p.consumer = ci;
  if (consumers > 1 && in.tile_rows > 0) {
    if (in.tile_rows % (int64_t{64} * consumers) == 0) {
      cons.split_dim = 0;
      cons.split_parts = consumers;
    } else {
      p.warnings.push_back("tile rows " + std::to_string(in.tile_rows) + " do not split into " +
                           std::to_string(consumers) + " slices of 64-row multiples");
    }
  }
  const int gran = b.setmaxnreg_granularity;
  const int64_t per_thread_slots = b.regs_per_sm / b.threads_per_warpgroup;  // per WG thread
  int64_t share = (per_thread_slots - prod.regs) / consumers;
  int cap = std::min(b.setmaxnreg_max, b.max_regs_per_thread);
  share = std::min<int64_t>(share, cap);
  cons.regs = static_cast<int>(share / gran * gran);
  if (cons.regs < b.setmaxnreg_min) throw Error("register file too small for the partition");
  const int64_t threads = static_cast<int64_t>(b.threads_per_warpgroup) * consumers;
  cons.est_regs =
      static_cast<int>((in.acc_regs + in.temp_regs + threads - 1) / threads + in.overhead_regs);
  prod.est_regs = static_cast<int>(in.overhead_regs);
  if (cons.est_regs > cons.regs)
    p.warnings.push_back("consumer register estimate " + std::to_string(cons.est_regs) +
                         " exceeds the allotment " + std::to_string(cons.regs) +
                         " per thread (spills likely: a smaller tile, or more warps to split "
                         "it over, lowers it)");
  if (in.producer)
    p.roles = {prod, cons};
  else
    p.roles = {cons};
  p.warpgroups = prod_wgs + consumers;

  // Node roles: issue streams decide directly; stream-less nodes follow their readers, except a
  // view materializing a producer's result (local_alloc of a TMA load), which stays with it.
  const int n = static_cast<int>(g.nodes.size());
  p.node_role.assign(n, -2);  // -2 = undecided
  for (int i = 0; i < n; ++i) {
    if (g.nodes[i].stream == "producer") {
      if (!in.producer)
        throw Error("node " + std::to_string(i) + " (op " + std::to_string(g.nodes[i].op) + " " +
                    g.nodes[i].name +
                    ") issues on the producer stream of a kernel planned "
                    "without a producer warpgroup");
      p.node_role[i] = 0;
    } else if (g.nodes[i].stream == "consumer") {
      p.node_role[i] = ci;
    }
  }
  auto preds = g.pred_edges(), succs = g.succ_edges();
  for (int i = 0; i < n; ++i) {
    if (p.node_role[i] != -2) continue;
    for (int ei : preds[i]) {
      const auto& e = g.edges[ei];
      if (e.distance == 0 && g.nodes[e.src].pipe == ddg::Pipe::TMA && p.node_role[e.src] == 0)
        p.node_role[i] = 0;
    }
  }
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (int i = n - 1; i >= 0; --i) {
      if (p.node_role[i] != -2) continue;
      int r = -2;
      bool pending = false;
      for (int ei : succs[i]) {
        int d = g.edges[ei].dst;
        if (d == i) continue;
        int rd = p.node_role[d];
        if (rd == -2) {
          pending = true;
          continue;
        }
        r = (r == -2 || r == rd) ? rd : -1;
      }
      if (pending && r != -1) continue;
      p.node_role[i] = r == -2 ? ci : r;  // nothing reads it in the loop: the consumer keeps it
      changed = true;
    }
    if (!changed) break;
  }
  for (auto& r : p.node_role)
    if (r == -2) r = -1;
  return p;
}

// Ping-pong pays when the consumers' register math waits for an MMA of the iteration: attention's
// softmax between S = QK^T and O += PV, or a blockwise-scaled GEMM's promotion of each K group's
// partial product (acc += partial * scale). A warpgroup's math can only start once its MMAs are
// done (in-order issue, wgmma.wait_group); under turns the other warpgroup's MMAs keep the
// tensor core busy meanwhile. A GEMM (MMA feeding only the next MMA) has no such math and gains
// nothing.
bool math_after_mmas(const ddg::Ddg& g) {
  const int n = static_cast<int>(g.nodes.size());
  auto succs = g.succ_edges();
  for (int m = 0; m < n; ++m) {
    if (g.nodes[m].pipe != ddg::Pipe::TC) continue;
    // Over distance-0 edges (through views and index math) to a CUDA/SFU node.
    std::vector<char> seen(static_cast<size_t>(n), 0);
    std::vector<int> work{m};
    seen[static_cast<size_t>(m)] = 1;
    while (!work.empty()) {
      const int v = work.back();
      work.pop_back();
      for (int ei : succs[v]) {
        const auto& e = g.edges[ei];
        if (e.distance != 0 || seen[static_cast<size_t>(e.dst)]) continue;
        const auto p = g.nodes[e.dst].pipe;
        if (p == ddg::Pipe::CUDA || p == ddg::Pipe::SFU) return true;
        seen[static_cast<size_t>(e.dst)] = 1;
        work.push_back(e.dst);
      }
    }
  }
  return false;
}

// Registers per consumer thread that the copies of plain (register) loads running ahead of
// their readers hold: a load whose last reader is d iterations later has d more results live.
int pipelined_load_regs(const ttgir::Function& f, const ddg::BuiltLoop& B, const LoopPlan& P,
                        int threads) {
  const int64_t ii = std::max<int64_t>(1, P.sched.ii);
  int64_t words = 0;
  for (const auto& n : B.g.nodes) {
    if (n.op_class != "global_access" || n.op < 0) continue;
    int64_t copies = 0;
    for (const auto& e : B.g.edges) {
      if (e.src != n.id) continue;
      const int64_t d = P.sched.cycle[static_cast<size_t>(e.dst)] + e.distance * ii -
                        P.sched.cycle[static_cast<size_t>(n.id)];
      copies = std::max(copies, d / ii);
    }
    for (ttgir::ValueId r : f.op(n.op).results)
      words += copies * ((f.value(r).type.byte_size() + 3) / 4);
  }
  return static_cast<int>((words + threads - 1) / threads);
}

CtaChoice choose_ctas_per_sm(const ddg::Budgets& b, bool producer, bool atomics, int64_t smem_cta,
                             int64_t sm_smem, int prod_regs, int consumer_wgs, int est,
                             int threads) {
  // Atomics (tl.atomic_add / atomic_max across programs) contend at their addresses, and more
  // CTAs only queue more of them: col_atomic on an H100 ran 60, 59, 53 and 48 GB/s at 2, 4, 8
  // and 12 CTAs per SM (2026-12-08). The emitter's launcher keeps this cap too.
  const std::vector<int> options = producer  ? std::vector<int>{4, 2}
                                   : atomics ? std::vector<int>{kAtomicCtasPerSm, 2}
                                             : std::vector<int>{16, 8, 4, 2};
  CtaChoice c;
  for (int k : options) {
    const int64_t slots = b.regs_per_sm / k / b.threads_per_warpgroup;
    int64_t share = std::min<int64_t>((slots - prod_regs) / consumer_wgs,
                                      std::min(b.setmaxnreg_max, b.max_regs_per_thread));
    share = share / b.setmaxnreg_granularity * b.setmaxnreg_granularity;
    if (k * (smem_cta + 1024) <= sm_smem && share >= est && share >= b.setmaxnreg_min &&
        k * threads <= 2048) {
      c.ctas = k;
      c.share = share;
      return c;
    }
    if (c.why.empty())
      c.why = std::to_string(smem_cta) + " B of shared memory per CTA, consumer estimate " +
              std::to_string(est) + " regs vs " + std::to_string(share) + " at " +
              std::to_string(k) + " CTAs";
  }
  return c;
}

}  // namespace sched2cu::sched
