// The explorer on small protocols written as emitter statements: a TMA producer filling a
// two-slot ring that a consumer warpgroup reads, and a staged TMA store. Each test breaks one
// property docs/verify.md lists and expects the violation that names it; the intact protocols
// are proven. Plus: every committed graph of the corpus is proven, and case1's mutants caught.
#include <gtest/gtest.h>

#include <filesystem>

#include "sched2cu/common/diag.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/verify/verify.h"

namespace sched2cu::verify {
namespace {

using emit::Access;
using emit::Stmt;
using K = Stmt::Kind;

Access ring_slot(Access::Engine e, bool write) {
  Access a;
  a.engine = e;
  a.write = write;
  a.buffer = 0;
  a.ring = "r";
  a.depth = 2;
  a.index = "k";
  a.bytes = 1024;
  return a;
}

struct Knobs {
  int full = 1, empty = 4;  // ring init counts (4 = the consumer's warps)
  long long arm = 1024;     // expected bytes
  bool fence_init = true, wait_full = true, read_after_release = false;
};

// Warpgroup 0 produces, warpgroup 1 consumes, N iterations.
emit::Program ring_program(const Knobs& k) {
  std::vector<Stmt> init{emit::ring_init("r", 2, k.full, k.empty, "")};
  if (k.fence_init) init.push_back(emit::sync_op(K::InitFence));
  std::vector<Stmt> produce{emit::ring_op(K::WaitEmpty, "r", 2, "k", "slot free"),
                            emit::ring_op(K::Arm, "r", 2, "k", "expect", k.arm),
                            emit::tma_op(K::TmaLoad, {emit::code("tma_load(...);")}, "", "load",
                                         {ring_slot(Access::Engine::Tma, true)}, 1024)};
  std::vector<Stmt> consume;
  if (k.wait_full) consume.push_back(emit::ring_op(K::WaitFull, "r", 2, "k", "landed"));
  Stmt read = emit::mem_code("bload_smem(x, slot);", ring_slot(Access::Engine::Generic, false));
  Stmt rel = emit::ring_op(K::Release, "r", 2, "k", "done");
  if (k.read_after_release) {
    consume.push_back(rel);
    consume.push_back(read);
  } else {
    consume.push_back(read);
    consume.push_back(rel);
  }
  emit::Program p;
  p.warpgroups = 2;
  p.int_params = {"N"};
  p.buffer_offset = {{0, 0}};
  p.body = {
      emit::if_("threadIdx.x == 0", init),
      emit::sync_op(K::CtaSync),
      emit::if_("wg == 0",
                {emit::if_("warp_idx_in_warpgroup() == 0 && elect_one_sync()",
                           {emit::trip_count("int", "T", "N", 0, ""),
                            emit::for_("int k = 0", "k < T", "++k", produce)})},
                "role 0 producer", {}),
  };
  p.body.back().else_body = {emit::if_(
      "wg == 1",
      {emit::trip_count("int", "T", "N", 0, ""), emit::for_("int k = 0", "k < T", "++k", consume)},
      "role 1 consumer")};
  return p;
}

sgraph::ScheduleGraph one_loop(int depth) {
  sgraph::ScheduleGraph g;
  g.kernel.name = "k";
  sgraph::Loop l;
  l.stages = 1;
  sgraph::Ring r;
  r.depth = depth;
  l.rings.push_back(r);
  g.loops.push_back(l);
  return g;
}

std::string failure(const emit::Program& p) {
  const Report r = verify(p, one_loop(2));
  EXPECT_FALSE(r.ok) << "proven, but should fail";
  return r.failure;
}

#define EXPECT_HAS(text, part) \
  EXPECT_NE((text).find(part), std::string::npos) << "missing \"" << (part) << "\" in:\n" << (text)

TEST(VerifyProtocol, IntactRingIsProvenForEveryScenario) {
  const Report r = verify(ring_program({}), one_loop(2));
  EXPECT_TRUE(r.ok) << r.failure;
  EXPECT_GE(r.scenarios, 4);  // 0, 1, 2 and a long run that wraps the ring
  EXPECT_GT(r.states, 10);
}

TEST(VerifyProtocol, ReadWithoutItsFullBarrier) {
  Knobs k;
  k.wait_full = false;
  // Depending on the interleaving the copy has not even been issued, or has landed unobserved.
  const std::string f = failure(ring_program(k));
  EXPECT_TRUE(f.find("without having waited for r.full[0] phase 0") != std::string::npos ||
              f.find("reads smem[0, +1024) as r slot 0 round 0 before that TMA load was issued") !=
                  std::string::npos)
      << f;
}

TEST(VerifyProtocol, ArrivalCountBelowTheArrivers) {
  Knobs k;
  k.empty = 3;
  EXPECT_HAS(failure(ring_program(k)), "more arrivals on r.empty[0] in one phase than its count 3");
}

TEST(VerifyProtocol, ArrivalCountAboveTheArriversDeadlocks) {
  Knobs k;
  k.empty = 5;
  const std::string f = failure(ring_program(k));
  // A short run ends with the phase half done; a long one hangs the producer.
  EXPECT_TRUE(f.find("deadlock") != std::string::npos ||
              f.find("ends in the middle of a phase (4 of 5 arrivals") != std::string::npos)
      << f;
}

TEST(VerifyProtocol, ExpectedBytesBelowWhatTheCopiesDeliver) {
  Knobs k;
  k.arm = 1000;
  EXPECT_HAS(failure(ring_program(k)), "than were armed (24 B too many)");
}

TEST(VerifyProtocol, ExpectedBytesAboveWhatTheCopiesDeliverDeadlocks) {
  Knobs k;
  k.arm = 2048;
  const std::string f = failure(ring_program(k));
  EXPECT_TRUE(f.find("1024 more byte(s)") != std::string::npos ||
              f.find("1024 bytes outstanding") != std::string::npos)
      << f;
}

TEST(VerifyProtocol, BarrierInitNotFencedForTheAsyncProxy) {
  Knobs k;
  k.fence_init = false;
  EXPECT_HAS(failure(ring_program(k)), "no mbar_fence_init");
}

TEST(VerifyProtocol, SlotOverwrittenBeforeItsReaderReleasedIt) {
  Knobs k;
  k.read_after_release = true;
  EXPECT_HAS(failure(ring_program(k)), "has not released its read of r slot 0 round 0");
}

TEST(VerifyProtocol, CounterexampleNamesTheScenarioAndEachWarpgroup) {
  Knobs k;
  k.wait_full = false;
  const std::string f = failure(ring_program(k));
  EXPECT_HAS(f, "scenario loop 0: ");
  EXPECT_HAS(f, "trace (the last events, oldest first)");
  EXPECT_HAS(f, "warpgroup 0 (role 0 producer)");
  EXPECT_HAS(f, "warpgroup 1 (role 1 consumer)");
}

// One warpgroup stages a tile and stores it twice through TMA.
emit::Program store_program(bool fence, bool drain_between, bool drain_at_exit) {
  Access w;
  w.buffer = 0;
  w.write = true;
  w.bytes = 4096;
  Access r = w;
  r.write = false;
  r.engine = Access::Engine::Tma;
  std::vector<Stmt> once{emit::mem_code("acc_store_box(stage, acc);", w)};
  if (fence) once.push_back(emit::sync_op(K::ProxyFence));
  once.push_back(emit::warpgroup_sync("1 + wg"));
  once.push_back(
      emit::if_("thread_idx_in_warpgroup() == 0",
                {emit::tma_op(K::TmaStore, {emit::code("tma_store(...);")}, "", "", {r})}));
  emit::Program p;
  p.warpgroups = 1;
  p.buffer_offset = {{0, 0}};
  p.body = once;
  if (drain_between)
    p.body.push_back(emit::guarded("thread_idx_in_warpgroup() == 0", emit::bulk_wait(0, true)));
  p.body.insert(p.body.end(), once.begin(), once.end());
  if (drain_at_exit)
    p.body.push_back(emit::guarded("thread_idx_in_warpgroup() == 0", emit::bulk_wait(0, false)));
  return p;
}

TEST(VerifyProtocol, StagedStoresProvenWithFenceAndDrains) {
  const Report r = verify(store_program(true, true, true), one_loop(2));
  EXPECT_TRUE(r.ok) << r.failure;
}

TEST(VerifyProtocol, TmaStoreOfUnfencedGenericWrites) {
  EXPECT_HAS(failure(store_program(false, true, true)), "not followed by fence.proxy.async");
}

TEST(VerifyProtocol, StagingRewrittenWhileItsStoreReads) {
  EXPECT_HAS(failure(store_program(true, false, true)), "no tma_wait_read covers it");
}

TEST(VerifyProtocol, StoresNotDrainedBeforeExit) {
  EXPECT_HAS(failure(store_program(true, true, false)), "finishes with 1 TMA store group(s)");
}

// A resident tile [0, 2048) loaded once by warpgroup 0; warpgroups 1 and 2 each read their own
// half with a wgmma, then rewrite half `mine ? own : other` as epilogue staging after only their
// own MMAs retired (no barrier between the two readers).
emit::Program split_resident_program(bool own_half) {
  auto acc = [](Access::Engine e, bool write, long long half) {
    Access a;
    a.engine = e;
    a.write = write;
    a.buffer = 0;
    a.offset = std::to_string(half * 1024);
    a.bytes = 1024;
    return a;
  };
  Access whole;
  whole.engine = Access::Engine::Tma;
  whole.write = true;
  whole.buffer = 0;
  whole.bytes = 2048;
  auto consume = [&](int k) {
    return std::vector<Stmt>{
        emit::bar_op(K::BarWait, "&q", 0, "landed"),
        emit::mma_issue({emit::code("wgmma(...);")}, {"acc"}, "",
                        {acc(Access::Engine::Mma, false, k)}),
        emit::mma_wait(0, {"acc"}, ""), emit::warpgroup_sync("1 + wg"),
        emit::mem_code("stage(...);", acc(Access::Engine::Generic, true, own_half ? k : 1 - k))};
  };
  emit::Program p;
  p.warpgroups = 3;
  p.buffer_offset = {{0, 0}};
  p.body = {
      emit::if_("threadIdx.x == 0", {emit::bar_init("&q", 1, ""), emit::sync_op(K::InitFence)}),
      emit::sync_op(K::CtaSync),
      emit::if_("wg == 0",
                {emit::if_("warp_idx_in_warpgroup() == 0 && elect_one_sync()",
                           {emit::bar_op(K::BarArm, "&q", 2048, "expect"),
                            emit::tma_op(K::TmaLoad, {emit::code("tma_load(...);")}, "&q", "load",
                                         {whole}, 2048)})},
                "role 0 producer",
                {emit::if_("wg == 1", consume(0), "role 1 consumer",
                           {emit::if_("wg == 2", consume(1))})}),
  };
  return p;
}

TEST(VerifyProtocol, WarpgroupsRewriteOnlyTheirOwnRowsOfAResidentTile) {
  // Each reads a part of what one TMA load wrote; rewriting its own part needs no role barrier.
  const Report r = verify(split_resident_program(true), one_loop(2));
  EXPECT_TRUE(r.ok) << r.failure;
  // Rewriting the other warpgroup's rows races with that warpgroup's wgmma (in some
  // interleaving the rewrite comes first, in another while the wgmma still reads).
  const std::string f = failure(split_resident_program(false));
  EXPECT_HAS(f, "warpgroup 1 (role 1 consumer): wgmma group");
  EXPECT_HAS(f, "smem[0, +1024)");
}

TEST(VerifyProtocol, NamedBarrierCountsDisagree) {
  emit::Program p;
  p.warpgroups = 2;
  p.body = {emit::if_("wg == 0", {emit::named_bar(K::NamedSync, 3, 256, "")}, "", {}),
            emit::if_("wg == 1", {emit::named_bar(K::NamedSync, 3, 384, "")}, "", {})};
  const std::string f = failure(p);
  EXPECT_TRUE(f.find("counts 384 threads on named barrier 3") != std::string::npos ||
              f.find("counts 256 threads on named barrier 3") != std::string::npos)
      << f;
}

// A split sum (ClusterSum) in the consumer after its loop, through the ring's bytes: the
// cluster's first CTA stores its words there, so the sum must come after the last release.
emit::Program split_sum_program(const std::string& share, bool before_release) {
  emit::Program p = ring_program({});
  Access region;
  region.write = true;
  region.buffer = 0;
  region.bytes = 2048;  // both slots
  Stmt sum = emit::cluster_sum("split_sum<128, 2048>(...);", share, 2, 128, {region}, "sum");
  // The consumer's loop body: wait, read, release; a sum before the release holds the slot.
  std::vector<Stmt>& consume = p.body.back().else_body[0].body[1].body;
  if (before_release)
    consume.insert(consume.end() - 1, sum);
  else
    p.body.back().else_body[0].body.push_back(sum);
  return p;
}

TEST(VerifyProtocol, SplitSumThroughDrainedRingsIsProven) {
  const Report r = verify(split_sum_program("2", false), one_loop(2));
  EXPECT_TRUE(r.ok) << r.failure;
}

TEST(VerifyProtocol, SplitSumWhileASlotIsHeld) {
  EXPECT_HAS(failure(split_sum_program("2", true)), "while warpgroup 1");
  // A cluster of one passes nothing through shared memory.
  EXPECT_TRUE(verify(split_sum_program("1", true), one_loop(2)).ok);
}

TEST(VerifyProtocol, ConditionOnAnUntrackedValueIsAnError) {
  emit::Program p;
  p.warpgroups = 1;
  p.body = {emit::if_("acc_ready(x)", {emit::sync_op(K::ProxyFence)})};
  try {
    verify(p, one_loop(2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS(std::string(e.what()), "cannot model `if (acc_ready(x)) {`");
  }
}

std::vector<std::filesystem::path> corpus() {
  std::vector<std::filesystem::path> out;
  const std::filesystem::path root = SCHED2CU_SOURCE_DIR;
  for (const char* dir : {"examples", "tests/emit", "tests/harness/gpu_cases"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / dir))
      if (e.path().filename().string().find("schedule_graph.json") != std::string::npos)
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(VerifyCorpus, EveryCommittedGraphIsProven) {
  const auto graphs = corpus();
  ASSERT_GE(graphs.size(), 10u);
  for (const auto& path : graphs) {
    const auto g = sgraph::read_schedule_graph(path.string());
    const Report r = verify(emit::lower_program(g, {}), g);
    EXPECT_TRUE(r.ok) << path << ":\n" << r.failure;
  }
}

TEST(VerifyCorpus, EveryMutantOfCase1IsCaughtAndPrintsTheMutation) {
  const auto path =
      std::filesystem::path(SCHED2CU_SOURCE_DIR) / "examples/case1_simple_gemm/schedule_graph.json";
  const auto g = sgraph::read_schedule_graph(path.string());
  const emit::Program p = emit::lower_program(g, {});
  const auto ms = mutants(p);
  // Each kind of mutation the issue lists has at least one site in case1.
  for (const char* kind :
       {"full-count+1", "empty-count-1", "arm-bytes-16", "release-before-wait", "wait-parity",
        "ring-depth", "fence-removed", "named-count", "store-drain-removed"}) {
    bool any = false;
    for (const auto& m : ms) any |= m.name.rfind(kind, 0) == 0;
    EXPECT_TRUE(any) << kind;
  }
  for (const auto& m : ms) {
    const emit::Program q = mutate(p, m.name);
    EXPECT_TRUE(m.name.rfind("ring-depth", 0) == 0 ||
                emit::print_program(q) != emit::print_program(p))
        << m.name << " does not change the printed kernel";
    const Report r = verify(q, g);
    EXPECT_FALSE(r.ok) << m.name << " not caught";
  }
  EXPECT_THROW(mutate(p, "no-such"), Error);
}

// A split loop inside a persistent tile loop (case2): proven for a cluster of one and as the
// first CTA of a cluster of two; a sum that ignores the tile loop around it (its rings refill
// for the next tile while the sum passes through them) is caught.
TEST(VerifyCorpus, SplitSumOfAPersistentLoopIsProvenAndItsOuterShareMutantCaught) {
  const auto path = std::filesystem::path(SCHED2CU_SOURCE_DIR) /
                    "examples/case2_persistent_gemm/schedule_graph.json";
  const auto g = sgraph::read_schedule_graph(path.string());
  const emit::Program p = emit::lower_program(g, {});
  const Report ok = verify(p, g);
  ASSERT_TRUE(ok.ok) << ok.failure;
  int sites = 0;
  for (const auto& m : mutants(p)) {
    if (m.name.rfind("split-share-outer", 0) != 0) continue;
    ++sites;
    const Report r = verify(mutate(p, m.name), g);
    ASSERT_FALSE(r.ok) << m.name << " not caught";
    EXPECT_HAS(r.failure, "the first CTA of a cluster of 2");
    EXPECT_HAS(r.failure, "stores its words");
  }
  EXPECT_GE(sites, 1);
}

// case5's staged bias (fills of its C staging, docs/emitter.md): every mutant, the fill ring's
// waits, arms and the refill's drain included, is caught.
TEST(VerifyCorpus, EveryMutantOfTheStagedEpilogueIsCaught) {
  const auto path =
      std::filesystem::path(SCHED2CU_SOURCE_DIR) / "examples/case5_addmm_bias/schedule_graph.json";
  const auto g = sgraph::read_schedule_graph(path.string());
  const emit::Program p = emit::lower_program(g, {});
  const auto ms = mutants(p);
  int fill = 0;  // mutants of the fill's own statements
  for (const auto& m : ms) {
    fill += m.name == "ring-depth:fill0" || m.what.find("fill: expect") != std::string::npos;
    const Report r = verify(mutate(p, m.name), g);
    EXPECT_FALSE(r.ok) << m.name << " not caught";
  }
  EXPECT_GE(fill, 5);  // arm bytes +/-16 at both arms (the first boxes, the refill), its depth
}

}  // namespace
}  // namespace sched2cu::verify
