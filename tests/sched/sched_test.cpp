// Unit tests of the scheduler core on synthetic graphs: MII on graphs with known answers, the
// validator rejecting broken schedules, IMS and the exact method agreeing, ring depths from
// lifetimes, and the SMEM budget cut re-deriving II. Every schedule produced here also goes
// through the validator.
#include <gtest/gtest.h>

#include <random>

#include "sched2cu/common/diag.h"
#include "sched2cu/sched/buffers.h"
#include "sched2cu/sched/exact.h"
#include "sched2cu/sched/ims.h"
#include "sched2cu/sched/mii.h"
#include "sched2cu/sched/partition.h"
#include "sched2cu/sched/plan.h"
#include "sched2cu/sched/validate.h"

using namespace sched2cu;
using namespace sched2cu::ddg;
using namespace sched2cu::sched;

namespace {

Node mk(const std::string& name, Pipe pipe, const std::string& stream, int64_t lat, int64_t issue,
        int64_t occ, int64_t tail = -1) {
  Node n;
  n.name = name;
  n.pipe = pipe;
  n.stream = stream;
  n.latency = lat;
  n.latency_tail = tail < 0 ? lat : tail;
  n.issue = issue;
  n.occupancy = occ;
  return n;
}

// The case1 shape: A and B TMA loads, their local_allocs, one wgmma accumulating into itself.
Ddg gemm(int64_t tail = 2000) {
  Ddg g;
  int a = g.add_node(mk("loadA", Pipe::TMA, "producer", 614, 30, 256, tail));
  int aa = g.add_node(mk("allocA", Pipe::NONE, "none", 0, 0, 0));
  int b = g.add_node(mk("loadB", Pipe::TMA, "producer", 678, 30, 512, tail + 64));
  int bb = g.add_node(mk("allocB", Pipe::NONE, "none", 0, 0, 0));
  int m = g.add_node(mk("mma", Pipe::TC, "consumer", 1120, 30, 1024));
  g.add_edge(a, aa, 614, 0);
  g.add_edge(b, bb, 678, 0);
  g.add_edge(aa, m, 0, 0);
  g.add_edge(bb, m, 0, 0);
  g.add_edge(m, m, 1024, 1);  // accumulator chain: occupancy, not latency
  g.rings.push_back({a, aa, {m}, 16384, {128, 64}, "f16", 0});
  g.rings.push_back({b, bb, {m}, 32768, {64, 256}, "f16", 0});
  return g;
}

Ddg random_graph(std::mt19937& rng, int n) {
  Ddg g;
  std::uniform_int_distribution<int> lat(0, 40), iss(0, 6), st(0, 2);
  const char* streams[] = {"producer", "consumer", "none"};
  for (int i = 0; i < n; ++i) {
    int s = st(rng);
    int64_t is = s == 2 ? 0 : iss(rng);
    g.add_node(mk("n" + std::to_string(i), s == 2 ? Pipe::NONE : Pipe::CUDA, streams[s], lat(rng),
                  is, is));
  }
  std::uniform_int_distribution<int> pick(0, n - 1), coin(0, 3);
  for (int i = 1; i < n; ++i) {
    int j = std::uniform_int_distribution<int>(0, i - 1)(rng);
    g.add_edge(j, i, g.nodes[j].latency, 0);
    if (coin(rng) == 0) g.add_edge(i, j, lat(rng) / 4, 1 + coin(rng) % 2);  // recurrence
  }
  return g;
}

}  // namespace

TEST(Mii, GemmIsTensorCoreBound) {
  auto m = compute_mii(gemm());
  EXPECT_EQ(m.engine, 1024);
  EXPECT_EQ(m.engine_pipe, "TC");
  EXPECT_EQ(m.issue, 60);  // two 30-cycle TMA issues on the producer stream
  EXPECT_EQ(m.rec, 1024);
  EXPECT_EQ(m.mii, 1024);
}

TEST(Mii, RecurrencesWithOneAndSeveralBackEdges) {
  Ddg g;
  for (int i = 0; i < 3; ++i) g.add_node(mk("x", Pipe::NONE, "none", 0, 0, 0));
  g.add_edge(0, 1, 10, 0);
  g.add_edge(1, 0, 5, 1);
  EXPECT_EQ(compute_mii(g).rec, 15);
  g.edges.back().distance = 2;
  EXPECT_EQ(compute_mii(g).rec, 8);  // ceil(15 / 2)
  // A circuit through two back edges: 1 -> 2 (d 1), 2 -> 0 (d 1): (10 + 7 + 9) / 2 = 13.
  g.edges.pop_back();
  g.add_edge(1, 2, 7, 1);
  g.add_edge(2, 0, 9, 1);
  EXPECT_EQ(compute_mii(g).rec, 13);
  // The engine bound uses occupancy only, the issue bound issue cost only.
  Ddg h;
  h.add_node(mk("a", Pipe::SFU, "consumer", 500, 7, 300));
  h.add_node(mk("b", Pipe::SFU, "consumer", 500, 9, 200));
  auto m = compute_mii(h);
  EXPECT_EQ(m.engine, 500);
  EXPECT_EQ(m.issue, 16);
  EXPECT_EQ(m.rec, 0);
  EXPECT_EQ(m.mii, 500);
}

// Found by mutation (issue 12): a straight chain of 10,000 ops ran more than 280 s in the
// positive-circuit test (Floyd-Warshall over the whole body, once per binary-search step). The
// test now relaxes longest paths per strongly connected component; the answers stay exact.
TEST(Mii, LongChainsAndComponents) {
  Ddg g;
  const int n = 10000;
  for (int i = 0; i < n; ++i) g.add_node(mk("x", Pipe::NONE, "none", 0, 0, 0));
  for (int i = 0; i + 1 < n; ++i) g.add_edge(i, i + 1, 2, 0);
  EXPECT_EQ(compute_mii(g).rec, 0);  // no loop-carried edge: no recurrence
  g.add_edge(n - 1, n / 2, 3, 4);    // a circuit over the second half: (2 (n/2 - 1) + 3) / 4
  EXPECT_EQ(compute_mii(g).rec, (2 * (n / 2 - 1) + 3 + 3) / 4);
  // Two components: the tighter circuit (latency 40 over distance 1) sets RecMII.
  g.add_node(mk("y", Pipe::NONE, "none", 0, 0, 0));
  g.add_node(mk("z", Pipe::NONE, "none", 0, 0, 0));
  g.add_edge(n, n + 1, 30, 0);
  g.add_edge(n + 1, n, 10, 1);
  EXPECT_EQ(compute_mii(g).rec, std::max<int64_t>(40, (2 * (n / 2 - 1) + 3 + 3) / 4));
}

// The nested loops of one body run one after another on its warps: their latencies add up (the
// longest alone let a row loop's two passes be planned in two stages that overlap nothing).
TEST(Mii, NestedLoopsOfOneBodyAddUp) {
  Ddg g;
  for (int64_t lat : {3000, 2000}) {
    Node n = mk("scf.for", Pipe::NONE, "none", lat, 0, 0);
    n.super_node = true;
    g.add_node(n);
  }
  g.add_node(mk("x", Pipe::CUDA, "consumer", 4, 2, 2));
  const Mii m = compute_mii(g);
  EXPECT_EQ(m.super, 5000);
  EXPECT_EQ(m.mii, 5000);
}

TEST(Mii, ZeroDistanceCircuitIsAnError) {
  Ddg g;
  g.add_node(mk("a", Pipe::NONE, "none", 0, 0, 0));
  g.add_node(mk("b", Pipe::NONE, "none", 0, 0, 0));
  g.add_edge(0, 1, 3, 0);
  g.add_edge(1, 0, 3, 0);
  EXPECT_THROW(compute_mii(g), Error);
}

TEST(Validator, AcceptsImsAndRejectsBrokenSchedules) {
  Ddg g = gemm();
  Schedule s = ims(g, 1024, 2048, 16);
  EXPECT_EQ(s.ii, 1024);
  EXPECT_TRUE(check_schedule(g, s).empty());
  // A violated dependence: the MMA before its B tile arrives.
  Schedule bad = s;
  bad.cycle[4] = bad.cycle[2] + 100;
  auto v = check_schedule(g, bad);
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].find("dependence"), std::string::npos);
  EXPECT_THROW(validate_schedule(g, bad, "test"), Error);
  // An overbooked stream column: both loads issue in the same cycle (mod II).
  Schedule clash = s;
  clash.cycle[2] = clash.cycle[0] + 1024;
  clash.cycle[3] = clash.cycle[2] + 678;
  clash.cycle[4] = std::max(clash.cycle[4], clash.cycle[3]);
  bool overbooked = false;
  for (const auto& l : check_schedule(g, clash))
    overbooked |= l.find("overbooked") != std::string::npos;
  EXPECT_TRUE(overbooked);
  // An II below the engine bound overbooks the tensor core.
  Schedule fast = s;
  fast.ii = 1000;
  bool tc = false;
  for (const auto& l : check_schedule(g, fast)) tc |= l.find("pipeline TC") != std::string::npos;
  EXPECT_TRUE(tc);
  // A loop-carried dependence checked with its distance.
  Schedule neg = s;
  neg.cycle[0] = -1;
  EXPECT_FALSE(check_schedule(g, neg).empty());
}

TEST(Ims, ReachesMiiAndIsDeterministic) {
  Ddg g = gemm();
  Schedule a = ims(g, 1024, 4096, 16), b = ims(g, 1024, 4096, 16);
  EXPECT_EQ(a.cycle, b.cycle);
  EXPECT_EQ(a.ii, 1024);
  EXPECT_EQ(a.cycle[2], 0);    // B first: the taller path (678 + 1120)
  EXPECT_EQ(a.cycle[0], 30);   // A right after B's issue on the producer stream
  EXPECT_EQ(a.cycle[4], 678);  // MMA when B lands (A landed at 644)
  EXPECT_EQ(a.max_stage(), 0);
}

TEST(Exact, AgreesWithImsOnRandomGraphs) {
  // IMS reaches MII on these graphs; the exact search, independently, must find a schedule at
  // MII and must prove none exists one below it (MII is a lower bound), and exact_improve must
  // recognise the heuristic's schedule as optimal.
  std::mt19937 rng(7);
  int below_checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Ddg g = random_graph(rng, 6 + trial % 8);
    Mii m = compute_mii(g);
    Schedule h = ims(g, m.mii, m.mii * 4 + 64, 16);
    ASSERT_TRUE(check_schedule(g, h).empty());
    ASSERT_EQ(h.ii, m.mii);
    bool to = false;
    int64_t exp = 0;
    auto e = exact_at(g, h.ii, INT64_MAX, to, exp);
    ASSERT_TRUE(e.has_value()) << "II " << h.ii;
    EXPECT_EQ(e->ii, h.ii);
    EXPECT_TRUE(check_schedule(g, *e).empty());
    EXPECT_EQ(exact_improve(g, m.mii, h, 60000).status, "mii");
    if (m.mii > 1) {
      bool to2 = false, complete = false;
      int64_t exp2 = 0;
      // A node limit keeps the run short; a search cut by it proves nothing and is not counted.
      auto lower = exact_at(g, m.mii - 1, INT64_MAX, to2, exp2, &complete, 20000);
      EXPECT_FALSE(lower.has_value()) << "a schedule below MII " << m.mii;
      if (!to2 && exp2 < 20000) ++below_checked;
    }
  }
  EXPECT_GT(below_checked, 30);
}

TEST(Exact, FindsThePackingGreedyPlacementMisses) {
  // One stream, II = issue sum = 10 (3 + 3 + 4): only a perfect packing works. The chain forces
  // x before y before z, and y's earliest start (5) leaves holes z (issue 4) cannot use.
  Ddg g;
  g.add_node(mk("x", Pipe::CUDA, "consumer", 5, 3, 3));
  g.add_node(mk("y", Pipe::CUDA, "consumer", 1, 3, 3));
  g.add_node(mk("z", Pipe::CUDA, "consumer", 1, 4, 4));
  g.add_edge(0, 1, 5, 0);
  g.add_edge(1, 2, 1, 0);
  g.add_edge(2, 0, 0, 2);
  Mii m = compute_mii(g);
  EXPECT_EQ(m.mii, 10);
  bool to = false;
  int64_t exp = 0;
  auto e = exact_at(g, 10, INT64_MAX, to, exp);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(check_schedule(g, *e).empty());
  // Nothing fits below the issue bound: the search exhausts and proves it.
  auto none = exact_at(g, 9, INT64_MAX, to, exp);
  EXPECT_FALSE(none.has_value());
  EXPECT_FALSE(to);
}

TEST(Buffers, DepthFromLifetimesSharedByCoConsumedRings) {
  Ddg g = gemm();
  Schedule s = ims(g, 1024, 4096, 16);
  auto r = ring_depths(g, s, /*use_tail=*/false, 8);
  // A: issue 30 -> MMA completes at 678 + 1120 = 1798: floor(1768/1024)+1 = 2; B shares it.
  EXPECT_EQ(r[0].live_start, 30);
  EXPECT_EQ(r[0].live_end, 1798);
  EXPECT_EQ(r[0].nominal, 2);
  EXPECT_EQ(r[1].depth, r[0].depth);
  // With the loaded tail latency (+1386 for both): A spans 1768 + 1386 = 3154 -> 4.
  auto t = ring_depths(g, s, true, 8);
  EXPECT_EQ(t[0].tail, 4);
  EXPECT_EQ(t[0].depth, 4);
  EXPECT_EQ(t[1].depth, 4);
  EXPECT_EQ(ring_depth_for(1023, 1024), 1);
  EXPECT_EQ(ring_depth_for(1024, 1024), 2);
}

TEST(Buffers, BudgetCutsTailSlackFirstThenRederivesIi) {
  Ddg g = gemm();
  Options o;
  // Plenty of room: the tail depth 4 is granted (4 * 48 KiB + barriers).
  auto full = plan_loop(g, o, 232448, 8);
  EXPECT_EQ(full.sched.ii, 1024);
  EXPECT_EQ(full.rings[0].depth, 4);
  EXPECT_FALSE(full.budget_cut);
  // 3 slots fit: cut inside the tail slack, II unchanged.
  auto three = plan_loop(g, o, 3 * 49152 + 64, 8);
  EXPECT_EQ(three.rings[0].depth, 3);
  EXPECT_TRUE(three.budget_cut);
  EXPECT_EQ(three.sched.ii, 1024);
  // Only one slot fits: below the nominal depth 2, so II must grow until the span fits.
  auto one = plan_loop(g, o, 49152 + 16, 8);
  EXPECT_EQ(one.rings[0].depth, 1);
  EXPECT_GT(one.sched.ii, 1024);
  EXPECT_LE(ring_depth_for(one.rings[0].live_end - one.rings[0].live_start, one.sched.ii), 1);
  EXPECT_TRUE(check_schedule(g, one.sched).empty());
  // Nothing fits at all: an error, never a silent overflow.
  EXPECT_THROW(plan_loop(g, o, 1000, 8), Error);
}

TEST(Partition, CooperativeConsumersAndRegisterAllotment) {
  Ddg g = gemm();
  Budgets b;
  b.regs_per_sm = 65536;
  b.max_regs_per_thread = 255;
  PartitionInput in;
  in.num_warps = 8;
  in.tile_rows = 128;
  in.acc_regs = 128 * 256;  // f32 accumulator
  in.overhead_regs = 24;
  auto p = partition(g, in, b);
  ASSERT_EQ(p.roles.size(), 2u);
  EXPECT_EQ(p.warpgroups, 3);
  EXPECT_EQ(p.roles[0].regs, 24);   // the default producer allotment (setmaxnreg minimum)
  EXPECT_EQ(p.roles[1].regs, 240);  // (512 - 24) / 2 = 244 -> 240
  EXPECT_EQ(p.roles[1].wgs, 2);
  EXPECT_EQ(p.roles[1].split_dim, 0);
  EXPECT_EQ(p.roles[1].split_parts, 2);
  EXPECT_EQ(p.roles[1].est_regs, 128 + 24);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.node_role, (std::vector<int>{0, 0, 0, 0, 1}));
  Budgets b40 = b;
  b40.producer_regs = 40;
  EXPECT_EQ(partition(g, in, b40).roles[1].regs, 232);  // (512 - 40) / 2 = 236 -> 232
  in.num_warps = 4;
  auto q = partition(g, in, b);
  EXPECT_EQ(q.roles[1].regs, 248);
  EXPECT_EQ(q.roles[1].split_parts, 1);
  EXPECT_FALSE(q.warnings.empty());  // 256 + 24 registers do not fit one warpgroup
}

// Without a producer warpgroup (plain loads only) the consumers are the one role, index 0 on
// warpgroups 0..N-1, and a node that would issue on the producer stream is an error, not a role
// nobody runs.
TEST(Partition, WithoutAProducerTheConsumersAreRoleZero) {
  Budgets b;
  b.regs_per_sm = 65536;
  b.max_regs_per_thread = 255;
  Ddg g;
  auto mk = [](const char* name, Pipe pipe, const char* stream) {
    Node n;
    n.name = name;
    n.pipe = pipe;
    n.stream = stream;
    return n;
  };
  const int ld = g.add_node(mk("load", Pipe::CUDA, "consumer"));
  const int ix = g.add_node(mk("index", Pipe::NONE, "none"));
  const int st = g.add_node(mk("math", Pipe::CUDA, "consumer"));
  g.add_edge(ix, ld, 1, 0);
  g.add_edge(ld, st, 600, 0);
  PartitionInput in;
  in.num_warps = 8;
  in.producer = false;
  auto p = partition(g, in, b);
  ASSERT_EQ(p.roles.size(), 1u);
  EXPECT_EQ(p.consumer, 0);
  EXPECT_EQ(p.warpgroups, 2);
  EXPECT_EQ(p.roles[0].kind, "consumer");
  EXPECT_EQ(p.roles[0].first_wg, 0);
  EXPECT_EQ(p.roles[0].wgs, 2);
  EXPECT_EQ(p.roles[0].regs, 248);  // 512 / 2 = 256, capped at 255, rounded down to 8
  EXPECT_EQ(p.node_role, (std::vector<int>{0, 0, 0}));
  in.producer = true;
  EXPECT_EQ(partition(g, in, b).node_role, (std::vector<int>{1, 1, 1}));
  Ddg t = g;
  t.nodes[0].stream = "producer";
  in.producer = false;
  try {
    (void)partition(t, in, b);
    FAIL() << "a producer-stream node was given a role in a kernel without a producer";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without a producer warpgroup"), std::string::npos);
  }
}

TEST(Sink, MathFeedingOnlyAnMmaMovesToItAndOtherMathStays) {
  // x (register math) feeds only the MMA, which waits ~600 cycles for its TMA operand: x moves
  // from cycle 0 to the latest cycle that still meets the MMA. y feeds register math z, not an
  // MMA: it stays where IMS put it; so does the narrowing conversion cvt.
  Ddg g;
  int ld = g.add_node(mk("load", Pipe::TMA, "producer", 600, 30, 256));
  int al = g.add_node(mk("alloc", Pipe::NONE, "none", 0, 0, 0));
  int x = g.add_node(mk("x", Pipe::CUDA, "consumer", 10, 10, 10));
  int v = g.add_node(mk("view", Pipe::NONE, "none", 0, 0, 0));
  int m = g.add_node(mk("mma", Pipe::TC, "consumer", 200, 30, 100));
  int y = g.add_node(mk("y", Pipe::CUDA, "consumer", 10, 10, 10));
  Node cv = mk("cvt", Pipe::CUDA, "consumer", 10, 10, 10);
  cv.narrows = true;  // a 32- to 16-bit conversion feeding the MMA: it stays
  int w = g.add_node(cv);
  int z = g.add_node(mk("z", Pipe::CUDA, "consumer", 10, 10, 10));
  g.add_edge(ld, al, 600, 0);
  g.add_edge(al, m, 0, 0);
  g.add_edge(x, v, 10, 0);
  g.add_edge(v, m, 0, 0);
  g.add_edge(y, z, 10, 0);
  g.add_edge(w, m, 10, 0);
  g.add_edge(m, m, 100, 1);
  g.rings.push_back({ld, al, {m}, 16384, {128, 64}, "f16", 0});
  Mii mi = compute_mii(g);
  Schedule s = ims(g, mi.mii, mi.mii * 4 + 64, 16);
  ASSERT_TRUE(check_schedule(g, s).empty());
  const Schedule before = s;
  ASSERT_LT(before.cycle[x] + 10, before.cycle[m]);  // the premise: x has room to move
  sink_mma_feeders(g, s);
  EXPECT_TRUE(check_schedule(g, s).empty());
  EXPECT_EQ(s.ii, before.ii);
  EXPECT_GT(s.cycle[x], before.cycle[x]);
  EXPECT_LE(s.cycle[x] + 10, s.cycle[m]);
  EXPECT_LE(s.cycle[v], s.cycle[m]);
  EXPECT_EQ(s.cycle[y], before.cycle[y]);
  EXPECT_EQ(s.cycle[w], before.cycle[w]);
  EXPECT_EQ(s.cycle[z], before.cycle[z]);
  EXPECT_EQ(s.cycle[m], before.cycle[m]);
}

TEST(Prefetch, AVectorLoadMovesAStepAheadOfItsReaderOnlyInTensorCoreLoops) {
  // A blockwise-scaled GEMM's scale: addr (index math) -> load (a row vector) -> scale (math),
  // placed as IMS placed case9's: the load one latency before its reader, in the same step. The
  // pass moves the load and its address math (only) about one II earlier, to just after the
  // reader's slot, so that a whole step covers the latency and the loaded register is free
  // before the next load. Without an MMA in the loop nothing moves.
  auto build = [](bool with_mma) {
    Ddg g = with_mma ? gemm() : Ddg{};
    g.add_node(mk("addr", Pipe::NONE, "none", 0, 0, 0));
    Node l = mk("load", Pipe::CUDA, "consumer", 600, 4, 4);
    l.vector_load = true;
    g.add_node(l);
    g.add_node(mk("scale", Pipe::CUDA, "consumer", 10, 10, 10));
    g.add_node(mk("other", Pipe::CUDA, "consumer", 10, 10, 10));
    const int addr = static_cast<int>(g.nodes.size()) - 4;
    g.add_edge(addr, addr + 1, 0, 0);
    g.add_edge(addr + 1, addr + 2, 600, 0);
    g.add_edge(addr, addr, 1, 1);  // an induction-variable chain
    g.add_edge(addr + 3, addr + 3, 10, 1);
    return g;
  };
  Ddg g = build(true);
  const int addr = 5, ld = 6, rd = 7, other = 8;  // after gemm()'s five nodes
  Schedule s;
  s.ii = 1024;
  s.cycle = {0, 614, 256, 934, 934, 0, 4, 604, 700};
  ASSERT_TRUE(check_schedule(g, s).empty());
  const Schedule before = s;
  prefetch_vector_loads(g, s);
  EXPECT_TRUE(check_schedule(g, s).empty());
  EXPECT_EQ(s.ii, before.ii);
  // Nearly a whole II between the load and its reader (it was one latency), yet under one II:
  // the loaded value is dead before the next iteration's load, so it needs no carried copy.
  const int64_t gap = s.cycle[rd] - s.cycle[ld];
  EXPECT_GT(gap, s.ii - 64);
  EXPECT_LT(gap, s.ii);
  EXPECT_EQ(s.cycle[ld] - s.cycle[addr], before.cycle[ld] - before.cycle[addr]);  // moved along
  // Everything else keeps its place relative to the reader.
  for (int u : {0, 1, 2, 3, 4, other})
    EXPECT_EQ(s.cycle[u] - s.cycle[rd], before.cycle[u] - before.cycle[rd]) << u;
  // Row-wise loops (no MMA) keep their placement.
  Ddg h = build(false);
  Schedule t;
  t.ii = 1024;
  t.cycle = {0, 4, 604, 700};
  ASSERT_TRUE(check_schedule(h, t).empty());
  prefetch_vector_loads(h, t);
  EXPECT_EQ(t.cycle, (std::vector<int64_t>{0, 4, 604, 700}));
}

TEST(Compact, RemovesEmptyStagesAndKeepsColumns) {
  Ddg g = gemm();
  Schedule s = ims(g, 1024, 4096, 16);
  Schedule late = s;
  late.cycle[4] += 2 * 1024;  // the MMA two stages later: still valid, same column
  late.cycle[1] += 1024;
  ASSERT_TRUE(check_schedule(g, late).empty());
  EXPECT_EQ(late.max_stage(), 2);
  compact(g, late);
  EXPECT_TRUE(check_schedule(g, late).empty());
  EXPECT_EQ(late.cycle, s.cycle);
  EXPECT_EQ(late.max_stage(), 0);
}

TEST(Buffers, BudgetCutSpreadsOverEqualSlotRingsByTailShortfall) {
  // case3's K and V rings with the calibrated tails: equal 32 KiB slots, separate groups, K
  // wanting 4 (nominal 1) and V 5 (nominal 2), room for 6 slots. Cuts go where the ring stays
  // closest to its tail depth; the lower id no longer takes every cut (which left K at 1).
  Ddg g = gemm();
  g.rings[0].bytes = g.rings[1].bytes = 32768;
  g.rings[0].group = 0;  // read by different MMAs (QK^T, PV)
  g.rings[1].group = 1;
  std::vector<RingDepth> r(2);
  r[0].req = 0, r[0].nominal = 1, r[0].tail = 4, r[0].depth = 4;
  r[1].req = 1, r[1].nominal = 2, r[1].tail = 5, r[1].depth = 5;
  ASSERT_TRUE(fit_budget(g, r, 6 * (32768 + 16), 8));
  EXPECT_EQ(r[0].depth, 2);  // K 4 -> 3 (tie: lower id), V 5 -> 4, K 3 -> 2 (tie again)
  EXPECT_EQ(r[1].depth, 4);
  // No room beyond the nominal depths: both end at nominal, never below.
  r[0].depth = 4, r[1].depth = 5;
  ASSERT_TRUE(fit_budget(g, r, 3 * (32768 + 16), 8));
  EXPECT_EQ(r[0].depth, 1);
  EXPECT_EQ(r[1].depth, 2);
}

namespace {
// gemm() plus a TMA store of a [128, 256] f16 tile (64 KiB) staged through its own ring, as in
// the tile loop of a persistent GEMM.
Ddg gemm_with_store() {
  Ddg g = gemm();
  Node st = mk("store", Pipe::TMA, "consumer", 1012, 30, 128);
  st.op_class = "tma_store";
  int s = g.add_node(st);
  g.add_edge(4, s, 1120, 0);
  g.rings.push_back({s, s, {s}, 65536, {128, 256}, "f16", -1});
  return g;
}
// Found by mutation (issue 12): eight nested loops asked the scheduler for an outer II of about
// 33^7 cycles (each level: inner II x 32 assumed trips), and its reservation tables, sized by II,
// for terabytes (std::bad_alloc after filling memory). An II past the limit is an error that
// says so; the limit is an option.
TEST(Plan, MinimumIiPastTheLimitIsAnError) {
  Ddg g;
  Node inner = mk("inner_loop", Pipe::NONE, "none", int64_t{1} << 40, 0, 0);
  inner.super_node = true;
  g.add_node(inner);
  Options o;
  try {
    plan_loop(g, o, 1 << 20, 8);
    ADD_FAILURE() << "planned";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("II: the loop's minimum II (ResMII 0, RecMII 0, inner-loop latency > "
                     "16777216 cycles) is above the scheduler's limit of 16777216 (--max-ii)"),
              std::string::npos)
        << m;
  }
  // The limit is an option: a loop of II 5000 is refused under --max-ii 4999, planned under 5000.
  Ddg h;
  Node small = inner;
  small.latency = small.latency_tail = 5000;
  h.add_node(small);
  o.max_ii = 4999;
  EXPECT_THROW(plan_loop(h, o, 1 << 20, 8), Error);
  o.max_ii = 5000;
  EXPECT_EQ(plan_loop(h, o, 1 << 20, 8).sched.ii, 5000);
}

}  // namespace

// A store's staging ring that would cost the load rings a slot (or not fit at all) becomes a
// 2-slot ring of 64-column subtiles beside them; with room to spare it stays the whole tile.
TEST(Buffers, StoreStagingNarrowsToSubtilesRatherThanCostRingDepth) {
  Ddg g = gemm_with_store();
  Options o;
  const int64_t ab4 = 4 * (49152 + 16), sub2 = 2 * (16384 + 16);
  auto p = plan_loop(g, o, ab4 + sub2, 8);
  ASSERT_EQ(p.rings.size(), 3u);
  EXPECT_EQ(p.rings[0].depth, 4);  // A and B keep the depth they get without any staging
  EXPECT_EQ(p.rings[1].depth, 4);
  EXPECT_EQ(p.rings[2].box_cols, 64);
  EXPECT_EQ(p.rings[2].depth, 2);
  EXPECT_EQ(slot_bytes(g, p.rings[2]), 128 * 64 * 2);
  EXPECT_EQ(p.ring_bytes, ab4 + sub2);
  EXPECT_TRUE(check_schedule(g, p.sched).empty());
  // The whole tile would fit only at A+B depth 3: narrowing wins although it fits.
  auto whole = ring_depths(g, p.sched, true, 8);
  EXPECT_TRUE(fit_budget(g, whole, ab4 + sub2, 8));
  EXPECT_EQ(whole[0].depth, 3);
  // The whole tile does not fit even beside one A+B slot; the subtile ring does.
  auto tight = plan_loop(g, o, (49152 + 16) + sub2, 8);
  EXPECT_EQ(tight.rings[2].box_cols, 64);
  EXPECT_EQ(tight.rings[0].depth, 1);
  EXPECT_TRUE(check_schedule(g, tight.sched).empty());
  // Room for everything: the whole tile, one iteration deep.
  auto roomy = plan_loop(g, o, 1 << 20, 8);
  EXPECT_EQ(roomy.rings[2].box_cols, 0);
  EXPECT_EQ(roomy.rings[2].depth, 1);
  EXPECT_EQ(roomy.rings[0].depth, 4);
}

TEST(Buffers, OnlyWideTwoDimensionalStoreTilesNarrow) {
  EXPECT_EQ(staging_box_cols({128, 256}, 2), 64);
  EXPECT_EQ(staging_box_cols({128, 256}, 4), 32);
  EXPECT_EQ(staging_box_cols({128, 64}, 2), 0);  // already one TMA box wide
  EXPECT_EQ(staging_box_cols({128, 96}, 2), 0);  // not a multiple of the box
  EXPECT_EQ(staging_box_cols({4096}, 2), 0);     // 1-D
  Ddg g = gemm_with_store();
  g.rings[2].shape = {512, 64};  // as many bytes, but nothing to narrow: an error, not a cut
  Options o;
  EXPECT_THROW(plan_loop(g, o, (49152 + 16) + 2 * (16384 + 16), 8), Error);
  std::vector<RingDepth> r(3);
  for (int i = 0; i < 3; ++i) r[i].req = i;
  EXPECT_FALSE(narrow_store_staging(g, r));  // load rings are never narrowed
}
