// Kernel-level driver (see kernel.h). Loop order: scheduled innermost first (a nested loop's II
// and stages give its super-node latency), written to the graph in program order (outer first).
#include "sched2cu/sched/kernel.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sched2cu/common/diag.h"
#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/fills.h"
#include "sched2cu/sched/grid.h"
#include "sched2cu/sched/split.h"
#include "sched2cu/sched/validate.h"

namespace sched2cu::sched {
namespace {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;
using ttgir::ValueId;

constexpr int64_t kUnknownTrips = 32;

std::optional<int64_t> const_int(const Function& f, ValueId v) {
  const Op* d = f.def_op(v);
  if (!d || d->name != "arith.constant") return std::nullopt;
  const auto* a = d->attr("value");
  if (!a || a->kind != ttgir::Attribute::Kind::Integer) return std::nullopt;
  return a->ival;
}

}  // namespace

const ttgir::Function& kernel_function(const ttgir::Module& m) {
  for (const auto& f : m.functions)
    if (f.is_public) return f;
  if (m.functions.empty()) throw Error(m.file + ": error: no function in the module");
  return m.functions[0];
}

std::string op_text(const ttgir::Function& f, ttgir::OpId op) {
  const auto& loc = f.op(op).loc;
  return "op " + std::to_string(op) + " " + f.op(op).name +
         (loc.src.known() ? " (" + loc.src.str() + ")" : "");
}

// Runs `step`; an Error it throws without a location gets the loop op's TTGIR location (else
// the kernel's source) and what was being planned, so that no scheduling error is unlocated.
template <class F>
auto located(const Function& f, OpId op, const std::string& source, const std::string& what, F step)
    -> decltype(step()) {
  try {
    return step();
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find(": error: ") != std::string::npos) throw;
    std::string where = source;
    std::string py;
    if (op != ttgir::kNoId) {
      const auto& loc = f.op(op).loc;
      if (loc.ir.known()) where = loc.ir.str();
      if (loc.src.known()) py = " (from " + loc.src.str() + ")";
    }
    throw Error(where + ": error: " + what + py + ": " + msg);
  }
}

KernelSchedule schedule_kernel_with(const ttgir::Module& m, const std::string& source,
                                    const ddg::TargetModel& t, const KernelOptions& o,
                                    const std::set<OpId>& global, bool producer, int copies) {
  KernelSchedule ks;
  const Function& f = kernel_function(m);
  auto& g = ks.graph;
  g.ir = m;
  g.kernel.name = f.name;
  g.kernel.source = source;
  g.kernel.num_warps = m.num_warps();
  for (ValueId a : f.args) g.kernel.params.push_back({f.value(a).name, f.value(a).type.str(), a});
  g.target = {t.name, static_cast<int>(t.budgets.smem_bytes_per_block),
              static_cast<int>(t.budgets.regs_per_sm), t.budgets.max_regs_per_thread,
              t.budgets.max_threads_per_block};
  const int consumer_wgs = std::max(1, g.kernel.num_warps / (t.budgets.threads_per_warpgroup / 32));

  // Function-scope shared memory: TMA loads outside every loop stay resident (read inside
  // loops; a load consumed in registers needs none), epilogue stores after the loops stage through
  // a slot the loops' rings can overlay.
  std::vector<OpId> loops = f.for_ops();
  std::map<OpId, int> loop_index;
  for (size_t i = 0; i < loops.size(); ++i) loop_index[loops[i]] = static_cast<int>(i);
  int64_t resident = 0, staging = 0;
  std::vector<int> staging_ids;  // function-scope store staging, whole tile until planned below
  for (const auto& op : f.ops) {
    if (f.enclosing_for(op.id) != ttgir::kNoId) continue;
    if (op.name == "tt.descriptor_load" && !ddg::is_register_load(m, f, op, global)) {
      sgraph::Buffer b;
      const auto& ty = f.value(op.results.at(0)).type;
      OpId fill = op.id;  // the op whose result is the buffer (the load, or its local_alloc)
      const auto& users = f.value(op.results[0]).users;
      if (users.size() == 1 && f.op(users[0]).name == "ttg.local_alloc") fill = users[0];
      b.shape.assign(ty.shape.begin(), ty.shape.end());
      b.elem = ty.element_type().name;
      b.bytes = static_cast<int>(ty.byte_size());
      b.producer_op = fill;
      for (ValueId r : f.op(fill).results)
        for (OpId u : f.value(r).users) b.consumer_ops.push_back(u);
      std::sort(b.consumer_ops.begin(), b.consumer_ops.end());
      resident += b.bytes + t.budgets.mbarrier_bytes;
      g.buffers.push_back(b);
    } else if (ttgir::is_descriptor_store(op.name)) {
      sgraph::Buffer b;
      const auto& ty = f.value(op.operands.back()).type;
      b.shape.assign(ty.shape.begin(), ty.shape.end());
      b.elem = ty.element_type().name;
      b.bytes = static_cast<int>(ty.byte_size());
      b.producer_op = op.id;
      b.consumer_ops = {op.id};
      staging += b.bytes;
      staging_ids.push_back(static_cast<int>(g.buffers.size()));
      g.buffers.push_back(b);
    }
  }
  const int64_t budget = t.budgets.smem_bytes_per_block;
  if (resident + staging > budget)
    throw Error(source + ": error: function-scope shared memory (" +
                std::to_string(resident + staging) + " bytes) exceeds the budget " +
                std::to_string(budget));

  // Phases (docs/scheduler.md, "Phases"): each top-level loop nest runs after the previous one,
  // so the rings of different nests share one pool (its footprint is the largest nest's) and the
  // emitter joins the phases (the producer waits for every slot of the previous phase to be
  // released before refilling the pool). Function-scope store staging then never overlays the
  // pool (a later phase's loads may already fill it); the staging of stores of one shape shares
  // one region, since each store waits for the reads of the stores before it.
  std::vector<int> phase_of(loops.size(), -1);
  int phases = 0;
  for (size_t k = 0; k < loops.size(); ++k) {
    OpId top = loops[k];
    for (OpId p = f.op(top).parent_op; p != ttgir::kNoId; p = f.op(p).parent_op)
      if (f.op(p).name == "scf.for") top = p;
    phase_of[k] = top == loops[k] ? phases++ : phase_of[static_cast<size_t>(loop_index[top])];
  }
  if (phases > 1 && !staging_ids.empty()) {
    std::map<std::pair<std::vector<int>, int>, int64_t> shapes;  // (shape, bytes) -> bytes
    for (int id : staging_ids) {
      const auto& b = g.buffers[static_cast<size_t>(id)];
      shapes[{b.shape, b.bytes}] = b.bytes;
    }
    staging = 0;
    for (const auto& [k, v] : shapes) staging += v;
  }
  std::vector<int64_t> phase_rings(static_cast<size_t>(std::max(phases, 1)), 0);

  // Schedule innermost loops first. An inner loop would otherwise take every byte its enclosing
  // loops' own rings need (a persistent kernel's per-tile resident load and store staging): when
  // an enclosing loop finds less than its rings need at depth 1, that need is reserved and the
  // nest is planned again, so the inner loop's rings are cut instead (docs/scheduler.md, "Nested
  // loops").
  std::vector<ddg::BuiltLoop> built(loops.size());
  std::vector<int64_t> reserve(loops.size(), 0);  // bytes a loop's descendants must leave it
  auto ancestors_reserve = [&](size_t k) {
    int64_t r = 0;
    for (OpId p = f.op(loops[k]).parent_op; p != ttgir::kNoId; p = f.op(p).parent_op)
      if (f.op(p).name == "scf.for") r += reserve[static_cast<size_t>(loop_index[p])];
    return r;
  };
  auto has_inner = [&](size_t k) {
    for (size_t j = 0; j < loops.size(); ++j)
      for (OpId p = f.op(loops[j]).parent_op; p != ttgir::kNoId; p = f.op(p).parent_op)
        if (p == loops[k]) return true;
    return false;
  };
  std::map<OpId, int64_t> inner_latency;
  int64_t rings_so_far = 0;
  int pingpong_loop = -1;
  for (bool replan = true; replan;) {  // again after a reservation (at most once per loop)
    replan = false;
    ks.plans.assign(loops.size(), {});
    inner_latency.clear();
    rings_so_far = 0;
    pingpong_loop = -1;
    std::fill(phase_rings.begin(), phase_rings.end(), 0);
    ks.tc_turns.assign(loops.size(), 1);
    for (size_t k = loops.size(); k-- > 0;) {
      built[k] = ddg::build_loop(m, f, loops[k], t, consumer_wgs, inner_latency, loop_index, 1,
                                 global, copies);
      // Ping-pong consumers take turns on the tensor core: each warpgroup's MMAs hold it for their
      // share only, which is what the reservation table and the latencies must see.
      // Not where the consumer warpgroups exchange a register tile through shared memory within
      // an iteration (attention backward's dS): under turns a warpgroup would wait, inside its
      // turn, for a tile the other warpgroup computes only in its own later turn.
      bool exchange = false;
      for (const auto& q : built[k].g.rings) exchange |= q.exchange;
      if (pingpong_loop < 0 && consumer_wgs > 1 && !exchange && math_after_mmas(built[k].g)) {
        pingpong_loop = static_cast<int>(k);
        ks.tc_turns[k] = consumer_wgs;
        built[k] = ddg::build_loop(m, f, loops[k], t, consumer_wgs, inner_latency, loop_index,
                                   consumer_wgs, global, copies);
      }
      int64_t& pool = phase_rings[static_cast<size_t>(phase_of[k])];
      const int64_t avail =
          budget - resident - pool - (phases > 1 ? staging + 1024 : 0) - ancestors_reserve(k);
      if (const int64_t need = min_ring_bytes(built[k].g, t.budgets.mbarrier_bytes);
          need > avail && reserve[k] == 0 && has_inner(k)) {
        reserve[k] = need;
        replan = true;
        break;
      }
      ks.plans[k] = located(f, loops[k], source, "loop " + std::to_string(k), [&] {
        return plan_loop(built[k].g, o.sched, avail, t.budgets.mbarrier_bytes);
      });
      const auto& L = built[k].loop;
      auto lb = const_int(f, L.lb), ub = const_int(f, L.ub), st = const_int(f, L.step);
      int64_t trips = kUnknownTrips;
      if (lb && ub && st && *st > 0) {
        int64_t span = 0;  // ub - lb overflows only for a range past 2^63: saturate
        if (__builtin_sub_overflow(*ub, *lb, &span)) span = INT64_MAX;
        trips = span <= 0 ? 0 : span / *st + (span % *st != 0);
      }
      if (!(lb && ub && st)) {  // the stage cap applies to run-time trip counts only
        const std::string name = "loop " + std::to_string(k);
        if (auto note = located(f, loops[k], source, name, [&] {
              return cap_loop_stages(built[k].g, ks.plans[k], o.sched, avail,
                                     t.budgets.mbarrier_bytes, name);
            }))
          ks.notes.push_back(*note);
      }
      pool += ks.plans[k].ring_bytes;
      rings_so_far = *std::max_element(phase_rings.begin(), phase_rings.end());
      const auto& pl = ks.plans[k];
      // Saturated just past the II limit: an outer loop over it is refused by that limit (with
      // its location) instead of overflowing (a constant trip count can be near 2^63).
      int64_t lat = 0, iters = 0;
      if (__builtin_add_overflow(trips, pl.sched.max_stage(), &iters) ||
          __builtin_mul_overflow(pl.sched.ii, iters, &lat) || lat > o.sched.max_ii)
        lat = o.sched.max_ii + 1;
      inner_latency[loops[k]] = lat;
    }
  }
  // Epilogue staging form (docs/scheduler.md, "Epilogue staging"): the rings were planned
  // first and never give up depth for staging. 1024 B is the emitter's alignment slack.
  const int64_t room = budget - 1024 - resident - rings_so_far;
  // Subtile box width: one 128-byte swizzle span of elements (64 for f16), the TMA box width.
  auto elem_bytes = [&](const sgraph::Buffer& b) {
    return std::max<int64_t>(1, b.bytes / (int64_t{b.shape.front()} * b.shape.back()));
  };
  int64_t sub_bytes = 0;
  bool sub_ok = !staging_ids.empty();
  for (int id : staging_ids) {
    const auto& b = g.buffers[id];
    const int64_t eb = elem_bytes(b);
    const int64_t box = staging_box_cols(std::vector<int64_t>(b.shape.begin(), b.shape.end()), eb);
    sub_ok = sub_ok && box > 0;
    if (sub_ok) sub_bytes += int64_t{2} * b.shape[0] * box * eb;
  }
  if (staging > room && sub_ok && sub_bytes <= room) {
    // The whole tile does not fit beside the rings but a 2-deep ring of TMA-box-wide column
    // subtiles does: the epilogue then needs no role-wide barrier (nothing is overlaid).
    for (int id : staging_ids) {
      auto& b = g.buffers[id];
      const int eb = static_cast<int>(elem_bytes(b));
      b.shape[1] = 128 / eb;
      b.bytes = b.shape[0] * b.shape[1] * eb;
      b.depth = 2;
    }
    staging = sub_bytes;
  }
  // Staging that still does not fit beside the rings overlays them once the loops are done
  // (never across phases: the reserve above keeps room beside the pool).
  const bool overlay = phases <= 1 && staging > room;
  if (resident + (overlay ? std::max(rings_so_far, staging) : rings_so_far + staging) > budget)
    throw Error(source + ": error: shared memory over budget after planning (resident " +
                std::to_string(resident) + " + rings " + std::to_string(rings_so_far) +
                " + staging " + std::to_string(staging) + " B > " + std::to_string(budget) + ")");

  ks.smem_resident = resident;
  ks.smem_rings = rings_so_far;
  ks.smem_staging = staging;
  ks.smem_overlay = overlay;
  ks.phases = phases;
  if (phases > 1) {
    std::string per;
    for (int64_t r : phase_rings) per += (per.empty() ? "" : " + ") + std::to_string(r);
    ks.notes.push_back("shared memory pool: " + std::to_string(phases) +
                       " phases (top-level loop nests) share their rings: footprint " +
                       std::to_string(rings_so_far) + " B (the largest), not " + per + " B; " +
                       "staging " + std::to_string(staging) + " B beside it");
  }
  // Partition from the loop with tensor-core work (else the first loop).
  int main_loop = loops.empty() ? -1 : 0;
  for (size_t k = 0; k < loops.size(); ++k) {
    bool tc = false;
    for (const auto& n : built[k].g.nodes) tc |= n.pipe == ddg::Pipe::TC;
    if (tc) {
      main_loop = static_cast<int>(k);
      break;
    }
  }
  PartitionInput pin;
  pin.num_warps = g.kernel.num_warps;
  pin.overhead_regs = 24;
  pin.producer = producer;
  if (main_loop >= 0) {
    pin.tile_rows = built[main_loop].facts.tile_rows;
    pin.temp_regs = built[main_loop].facts.peak_regs;
  }
  ddg::Ddg empty;
  ks.partition = located(
      f, main_loop >= 0 ? loops[static_cast<size_t>(main_loop)] : ttgir::kNoId, source,
      "the role partition",
      [&] { return partition(main_loop >= 0 ? built[main_loop].g : empty, pin, t.budgets); });
  for (const auto& w : ks.partition.warnings) ks.warnings.push_back(w);
  g.launch.warpgroups = ks.partition.warpgroups;
  for (size_t r = 0; r < ks.partition.roles.size(); ++r) {
    const auto& rp = ks.partition.roles[r];
    sgraph::Role role;
    role.id = static_cast<int>(r);
    role.name = rp.name;
    role.kind = rp.kind;
    for (int w = 0; w < rp.wgs; ++w) role.warpgroups.push_back(rp.first_wg + w);
    role.regs = rp.regs;
    role.split_dim = rp.split_dim;
    role.split_parts = rp.split_parts;
    g.launch.roles.push_back(role);
  }
  // CTAs per SM (docs/scheduler.md, "CTAs per SM"): a memory-bound kernel gains nothing from a
  // faster consumer, but one consumer warpgroup works on one tile (or chunk) at a time, so its
  // latency is exposed unless more CTAs on the SM overlap it. Memory-bound: no tensor-core work
  // anywhere, and the main loop is bound by the TMA engine or the kernel loads through
  // pointers. The most CTAs whose shared memory and consumer register estimate fit: 2 or 4 with
  // a producer warpgroup; without one (no setmaxnreg: the launch bounds set the registers), up
  // to 16, with the estimate counting every copy of a plain load the pipeline keeps in flight.
  const int ci = ks.partition.consumer;
  if (main_loop >= 0) {
    const auto& P = ks.plans[static_cast<size_t>(main_loop)];
    bool tc = false, global_access = false;
    for (const auto& B : built)
      for (const auto& n : B.g.nodes) {
        tc |= n.pipe == ddg::Pipe::TC;
        global_access |= n.op_class == "global_access";
      }
    const bool tma_bound = P.mii.engine_pipe == "TMA" && P.mii.engine >= P.mii.issue;
    if (!tc && (tma_bound || global_access)) {
      const auto& b = t.budgets;
      const int64_t smem_cta =
          resident + (overlay ? std::max(rings_so_far, staging) : rings_so_far + staging) + 1024;
      const int64_t sm_smem = budget + 1024;  // the per-SM pool: the block limit + its reserve
      auto& cons = g.launch.roles[static_cast<size_t>(ci)];
      const int prod_regs = producer ? g.launch.roles[0].regs : 0;
      const int nc = static_cast<int>(cons.warpgroups.size());
      const int threads = 128 * g.launch.warpgroups;
      int est = ks.partition.roles.at(static_cast<size_t>(ci)).est_regs;
      // Every loop's live tensors plus the copies of its plain loads that run ahead, over `n`
      // threads, at least `est`.
      auto with_loads = [&](int n) {
        int r = est;
        for (size_t k = 0; k < built.size(); ++k)
          r = std::max<int>(r, static_cast<int>((built[k].facts.peak_regs + n - 1) / n +
                                                pipelined_load_regs(f, built[k], ks.plans[k], n) +
                                                pin.overhead_regs));
        return r;
      };
      if (!producer) {
        est = with_loads(threads);
        ks.partition.roles.at(static_cast<size_t>(ci)).est_regs = est;
      }
      const bool atomics = f.has_atomics();
      const CtaChoice cc =
          choose_ctas_per_sm(b, producer, atomics, smem_cta, sm_smem, prod_regs, nc, est, threads);
      const int chosen = cc.ctas;
      const int64_t chosen_share = cc.share;
      const std::string bound =
          tma_bound ? "bound by the TMA engine (memory)" : "memory-bound (plain global loads)";
      if (producer && chosen > 1) {
        // With a producer the estimate above leaves out the plain loads the consumers keep in
        // flight (counting them moved kernels that do not spill to fewer CTAs, measured slower;
        // docs/scheduler.md, "CTAs per SM"). Counted over the consumers' threads, a total more
        // than 10% beyond the allotment is said, so that a spill is not a surprise; within it
        // the count is not telling (rmsnorm's 105 and cumsum_rows' 112 against 104 compile
        // with no spill, the softmax tutorial's 60 against 48 spills).
        const int full = with_loads(128 * nc);
        if (int64_t{10} * full > 11 * chosen_share) {
          ks.loads_over_allotment = full;
          ks.warnings.push_back("consumer registers with the plain loads in flight counted: " +
                                std::to_string(full) + " per thread against the " +
                                std::to_string(chosen_share) + " of " + std::to_string(chosen) +
                                " CTAs per SM (spills possible: `sched2cu build` reports "
                                "ptxas's count)");
        }
      }
      if (chosen > 1) {
        g.launch.ctas_per_sm = chosen;
        cons.regs = static_cast<int>(chosen_share);
        ks.partition.roles.at(static_cast<size_t>(ci)).regs = cons.regs;  // what --report prints
        ks.notes.push_back(std::to_string(chosen) + " CTAs per SM: the kernel is " + bound +
                           "; more CTAs overlap each consumer's per-tile latency (" +
                           std::to_string(smem_cta) + " B of shared memory per CTA, consumer " +
                           std::to_string(chosen_share) + " regs >= estimate " +
                           std::to_string(est) + ")" +
                           (atomics && !producer ? "; at most " + std::to_string(kAtomicCtasPerSm) +
                                                       ": its atomics contend at shared addresses"
                                                 : std::string()));
      } else {
        ks.notes.push_back("1 CTA per SM: the kernel is " + bound +
                           ", but a second CTA does not fit (" + cc.why + ")");
      }
    }
  }
  if (!o.grid.empty()) {
    g.launch.grid = parse_grid_flag(o.grid);
    ks.notes.push_back("grid: " + sgraph::to_text(g.launch.grid[0]) + ", " +
                       sgraph::to_text(g.launch.grid[1]) + ", " +
                       sgraph::to_text(g.launch.grid[2]) + " (--grid)");
  } else {
    g.launch.grid = derive_grid(m, f, ks.notes);
  }
  // Rasterize only a true 2D grid: programs of a 1D or persistent grid already choose their own
  // order, and the emitter's flattening needs z == 1.
  // Grouping x-programs pays when one operand is indexed by x alone and another by y alone (a
  // GEMM's A and B: the group shares both in L2). With no x-only operand (attention: K and V
  // depend on the head only), the plain x-fastest order keeps one y's operands shared by the
  // most programs in flight.
  bool x_only = false, y_only = false;
  for (const auto& axes : load_axes(f)) {
    x_only |= axes == std::vector<int>{0};
    y_only |= axes == std::vector<int>{1};
  }
  if (o.raster_group > 0 && !g.launch.grid[1].is_int(1) && g.launch.grid[2].is_int(1)) {
    if (x_only && y_only)
      g.launch.raster_group = o.raster_group;
    else
      ks.notes.emplace_back(
          "grid: no rasterization (no operand is indexed by x alone and another "
          "by y alone; the x-fastest launch order already shares them)");
  }
  // Ping-pong consumers (docs/scheduler.md, "Partition").
  if (main_loop >= 0 && main_loop == pingpong_loop &&
      g.launch.roles[static_cast<size_t>(ci)].split_parts > 1) {
    g.launch.roles[static_cast<size_t>(ci)].pingpong = true;
    ks.notes.push_back("consumers ping-pong: register math on the MMA results of loop " +
                       std::to_string(main_loop) +
                       " overlaps the other warpgroup's MMAs (named-barrier turns)");
  }

  // Loops, in program order.
  for (size_t k = 0; k < loops.size(); ++k) {
    const auto& B = built[k];
    const auto& P = ks.plans[k];
    const int li = static_cast<int>(k);
    Partition part = partition(B.g, pin, t.budgets);  // node roles of this loop
    sgraph::Loop L;
    L.op = loops[k];
    OpId parent = f.enclosing_for(loops[k]);
    L.parent_loop = parent == ttgir::kNoId ? -1 : loop_index[parent];
    L.lb = B.loop.lb;
    L.ub = B.loop.ub;
    L.step = B.loop.step;
    L.ii = static_cast<int>(P.sched.ii);
    L.res_mii = static_cast<int>(P.mii.res);
    L.rec_mii = static_cast<int>(P.mii.rec);
    L.ii_optimal = P.sched.ii == P.mii.mii || P.exact.status == "exhausted";
    L.stages = static_cast<int>(P.sched.max_stage() + 1);
    auto order = P.sched.order_in_stage();
    for (const auto& n : B.g.nodes) {
      sgraph::Node sn;
      sn.id = n.id;
      sn.op = n.op;
      sn.pipeline = ddg::pipe_name(n.pipe);
      sn.latency = static_cast<int>(n.latency);
      sn.issue_cost = static_cast<int>(n.issue);
      sn.occupancy = static_cast<int>(n.occupancy);
      sn.cycle = static_cast<int>(P.sched.cycle[n.id]);
      sn.stage = static_cast<int>(P.sched.stage(n.id));
      sn.order = order[n.id];
      sn.role = part.node_role[n.id];
      sn.child_loop = n.child_loop;
      L.nodes.push_back(sn);
    }
    for (const auto& e : B.g.edges)
      L.edges.push_back({e.src, e.dst, static_cast<int>(e.latency), e.distance});
    // Rings: one per co-consumed group (or per lone ring), ids in order of first buffer.
    std::map<int, int> ring_of_group;
    for (const auto& rd : P.rings) {
      const auto& q = B.g.rings[rd.req];
      int key = q.group >= 0 ? q.group : -1 - rd.req;
      sgraph::Buffer b;
      b.id = static_cast<int>(g.buffers.size());
      b.shape.assign(q.shape.begin(), q.shape.end());
      if (rd.box_cols > 0) b.shape[1] = static_cast<int>(rd.box_cols);  // column subtile slots
      b.elem = q.elem;
      b.bytes = static_cast<int>(slot_bytes(B.g, rd));
      b.depth = rd.depth;
      b.loop = li;
      b.producer_op = B.g.nodes[q.def].op;
      for (int c : q.consumers) b.consumer_ops.push_back(B.g.nodes[c].op);
      std::sort(b.consumer_ops.begin(), b.consumer_ops.end());
      b.live_start = static_cast<int>(rd.live_start);
      b.live_end = static_cast<int>(rd.live_end);
      if (!ring_of_group.count(key)) {
        ring_of_group[key] = static_cast<int>(L.rings.size());
        L.rings.push_back({static_cast<int>(L.rings.size()), rd.depth, {}});
        if (B.g.nodes[q.producer].op_class == "tma_load") {
          sgraph::Channel ch;
          ch.id = static_cast<int>(L.channels.size());
          ch.ring = ring_of_group[key];
          ch.producer_role = 0;
          ch.consumer_role = ci;
          ch.mechanism = "tma";
          ch.full_arrivals = 1;
          ch.empty_arrivals = 4 * ks.partition.roles[static_cast<size_t>(ci)].wgs;
          L.channels.push_back(ch);
        } else if (q.exchange) {
          // The consumer warpgroups hand a register tile to each other (and to themselves):
          // each stores its rows, fences and arrives per warp; the MMAs reading the slot
          // release it as for a TMA ring.
          sgraph::Channel ch;
          ch.id = static_cast<int>(L.channels.size());
          ch.ring = ring_of_group[key];
          ch.producer_role = ci;
          ch.consumer_role = ci;
          ch.mechanism = "store";
          ch.full_arrivals = 4 * ks.partition.roles[static_cast<size_t>(ci)].wgs;
          ch.empty_arrivals = ch.full_arrivals;
          L.channels.push_back(ch);
        }
      }
      b.ring = ring_of_group[key];
      L.rings[b.ring].buffers.push_back(b.id);
      for (auto& ch : L.channels)
        if (ch.ring == b.ring && ch.mechanism == "tma") ch.expect_bytes += b.bytes;
      g.buffers.push_back(b);
    }
    g.loops.push_back(std::move(L));
    for (const auto& rd : P.rings)
      if (rd.box_cols > 0)
        ks.notes.push_back("loop " + std::to_string(k) + ": store staging of op " +
                           std::to_string(B.g.nodes[B.g.rings[rd.req].producer].op) + " is a " +
                           std::to_string(rd.depth) + "-slot ring of " +
                           std::to_string(rd.box_cols) +
                           "-column subtiles (the whole tile would not fit beside the "
                           "rings, or only at a smaller ring depth)");
    if (P.budget_cut)
      ks.notes.push_back("loop " + std::to_string(k) + ": shared-memory budget cut ring depths");
    for (int v : P.prefetched) {
      const int op = B.g.nodes[static_cast<size_t>(v)].op;
      ks.notes.push_back("loop " + std::to_string(k) + ": " + op_text(f, op) +
                         " is issued a step ahead of its reader (a vector load in a "
                         "tensor-core loop: a whole step covers its latency)");
    }
  }
  for (size_t i = 0; i < g.buffers.size(); ++i) g.buffers[i].id = static_cast<int>(i);
  // Resident (function-scope) TMA loads: the producer fills them once, the consumers read them.
  for (const auto& b : g.buffers)
    if (b.loop == -1 && f.op(b.producer_op).name == "ttg.local_alloc") {
      sgraph::FnChannel ch;
      ch.id = static_cast<int>(g.channels.size());
      ch.buffer = b.id;
      ch.producer_role = 0;
      ch.consumer_role = ci;
      ch.mechanism = "tma";
      ch.expect_bytes = b.bytes;
      ch.full_arrivals = 1;
      g.channels.push_back(ch);
    }
  // Epilogue operands loaded into their store's staging (fills.h), in the bytes left over.
  {
    const int64_t used =
        resident + (overlay ? std::max(rings_so_far, staging) : rings_so_far + staging) + 1024;
    plan_staging_fills(m, f, g, budget - used, t.budgets.mbarrier_bytes, ks.notes);
  }
  if (o.split) plan_split(f, g, ks.notes);
  // Every schedule is validated again here, on exactly what is written.
  for (size_t k = 0; k < loops.size(); ++k)
    validate_schedule(built[k].g, ks.plans[k].sched, "loop " + std::to_string(k));
  return ks;
}

}  // namespace sched2cu::sched
