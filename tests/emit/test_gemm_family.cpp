// Unit tests of the emitter's GEMM-family lowerings (docs/emitter.md): an MN-major (transposed)
// A operand (case7's doutᵀ), blocked tensors spread over a cooperative role of two warpgroups,
// deferred column sums (partial.cpp), column vectors of the accumulator layout loaded through
// pointers (a bias per column), ring releases that keep one MMA group in flight, and case9's
// blockwise-scaled promotion: row vectors of the accumulator layout loaded through pointers,
// scalar loads, a load read a step later without a carried copy. Behaviour
// on the GPU is `sched2cu check` of case7_wgrad_bias and of the harness's gemm_bt_gelu and
// batched_gemm cases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "graph_fixture.h"
#include "lower.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/ttgir/parser.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::emit;
const fs::path kRoot = fs::path(SCHED2CU_SOURCE_DIR);
const fs::path kCase7 = kRoot / "examples/case7_wgrad_bias/schedule_graph.json";
const fs::path kGelu = kRoot / "tests/harness/gpu_cases/gemm_bt_gelu/schedule_graph.json";
const fs::path kCase8 = kRoot / "examples/case8_multiphase_gemm/schedule_graph.json";
const fs::path kCase9 = kRoot / "examples/case9_scaled_mm/blockwise/schedule_graph.json";
const fs::path kCase5 = kRoot / "examples/case5_addmm_bias/schedule_graph.json";
const fs::path kResidual = kRoot / "tests/harness/gpu_cases/gemm_residual/schedule_graph.json";

using Fixture = sched2cu::testing::GraphFixture;

std::string emitted(const fs::path& p) {
  return emit_cuda(sched2cu::sgraph::read_schedule_graph(p), {});
}

// The part of `s` from the first `from` to the next `to` after it.
std::string between(const std::string& s, const std::string& from, const std::string& to) {
  const size_t a = s.find(from);
  if (a == std::string::npos) return {};
  const size_t b = s.find(to, a + from.size());
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

TEST(GemmFamily, TransposedAIsAnMnMajorOperand) {
  const std::string s = emitted(kCase7);
  // doutᵀ: the loaded [64 M][128 K_out] tile read as A through ttg.memdesc_trans; each consumer
  // warpgroup's 64-row slab is one 128-byte box of 64 K rows (8192 B) further.
  EXPECT_NE(s.find("wgmma_ss<128, __half, __half, Major::MN, Major::MN>"), std::string::npos);
  EXPECT_NE(s.find("wgmma_desc_mn<128, 64>(buf1 + Ring<5>::slot(it1 + (k1)) * 16384u + (slice * "
                   "64 + 0) / 64 * 8192, ks)"),
            std::string::npos);
}

TEST(GemmFamily, BlockedTensorsSpanBothWarpgroupsOfACooperativeRole) {
  Fixture x(kCase7);
  const sched2cu::sgraph::Role& consumer = x.g.launch.roles.at(1);
  ASSERT_EQ(consumer.warpgroups.size(), 2U);
  x.c.blocked_warps = 8;
  Lower L(x.c, consumer);
  // #blocked = [1, 8] x [2, 16] x warps [8, 1], reduced along axis 0 only: the emitter puts the
  // 8 warps on the columns (16 each, two lanes across) so column sums stay inside a warp.
  const Val d = L.from_type(x.value("d_11"), 0);
  EXPECT_EQ(L.ctype(d, 0), "BTile<__half, BLay<64, 128, 1, 8, 16, 2, 1, 8, 8>>");
  // Over one warpgroup the same encoding keeps 4 warps (its count rescaled, not an error).
  x.c.blocked_warps = 4;
  Lower L4(x.c, consumer);
  const Val d4 = L4.from_type(x.value("d_11"), 0);
  EXPECT_EQ(d4.blay.W0 * d4.blay.W1, 4);
  EXPECT_EQ(d4.blay.NW, 4);
}

TEST(GemmFamily, ColumnSumIsReducedOncePerTileNotPerIteration) {
  const std::string s = emitted(kCase7);
  // Inside the M loop: this thread's rows only, no shuffles.
  const std::string steady = between(s, "steady state: step k runs", "drain step");
  EXPECT_NE(steady.find("breduce_rows_partial("), std::string::npos);
  EXPECT_EQ(steady.find("bcol_partial_reduce("), std::string::npos);
  EXPECT_EQ(steady.find("breduce_rows("), std::string::npos);
  // After it, before the layout conversion for db's store.
  const size_t red = s.find("bcol_partial_reduce(db_18_58_c1");
  ASSERT_NE(red, std::string::npos);
  EXPECT_LT(red, s.find("bconvert(v11_70, db_18_58_c1"));
  // The slots the column sum reads are released after the next MMA issue, one group in flight.
  EXPECT_NE(steady.find("wgmma_wait<1>()"), std::string::npos);
  EXPECT_EQ(steady.find("wgmma_wait<0>()"), std::string::npos);
}

TEST(GemmFamily, BiasColumnLoadedInTheAccumulatorsColumnLayout) {
  Fixture x(kGelu);
  x.c.blocked_warps = 8;
  Lower L(x.c, x.g.launch.roles.at(1));
  // tensor<128xi32, #ttg.slice<{dim = 0, parent = #mma}>>: the accumulator's columns
  // (8 j + 2 (lane % 4) + {0, 1}) as a blocked column vector.
  const Val r = L.from_type(x.value("offs_n_5"), 0);
  EXPECT_EQ(r.lay, Lay::BCol);
  EXPECT_TRUE(r.blay.mma_col);
  EXPECT_EQ(L.ctype(r, 0), "BCol<int, BLay<64, 128, 1, 2, 8, 4, 8, 1, 8>>");
  const std::string s = emitted(kGelu);
  EXPECT_NE(s.find("bload<2>(bias_12_42, bias_11_41, bcol(bias_9_39), "
                   "bsplat(static_cast<__half>(0.000000e+00f)))"),
            std::string::npos);
  // The f16 row of the bias, widened, is read by accumulator math through mcol_bcast.
  EXPECT_NE(s.find("mcol_bcast(x_13_44)"), std::string::npos);
  EXPECT_NE(s.find("erff("), std::string::npos);
}

size_t count(const std::string& s, const std::string& x) {
  size_t n = 0;
  for (size_t at = s.find(x); at != std::string::npos; at = s.find(x, at + x.size())) ++n;
  return n;
}

// case8: three K loops in sequence (phases). Their rings start at one offset (the pool), the
// producer joins the phases, each phase's zero-trip split ends where the next phase starts, and
// only the last store waits for its bulk group (the others overlap the next phase; the next
// store waits for their reads before it rewrites the shared staging).
TEST(GemmFamily, PhasesShareOnePoolAndJoin) {
  const std::string s = emitted(kCase8);
  EXPECT_NE(s.find("buf3 = smem + 0;"), std::string::npos);  // loop 0's A ring
  EXPECT_NE(s.find("buf5 = smem + 0;"), std::string::npos);  // loop 1's, the same bytes
  EXPECT_NE(s.find("buf7 = smem + 0;"), std::string::npos);  // loop 2's
  EXPECT_EQ(count(s, "uint8_t* const buf0 = smem + 147456;"), 1U);
  EXPECT_EQ(count(s, "uint8_t* const buf2 = smem + 147456;"), 1U);  // one staging region
  // The producer waits for every slot of the previous phase before refilling the pool.
  const size_t join0 = s.find("ring0_0->wait_empty(it0 + T0 + j);");
  const size_t join1 = s.find("ring1_0->wait_empty(it1 + T1 + j);");
  ASSERT_NE(join0, std::string::npos);
  ASSERT_NE(join1, std::string::npos);
  EXPECT_LT(join0, s.find("ring1_0->wait_empty(it1 + (k1));"));
  EXPECT_LT(join1, s.find("ring2_0->wait_empty(it2 + (k2));"));
  // Each later loop is emitted once per role (producer, consumer), not once per branch of the
  // previous loop's zero-trip split.
  EXPECT_EQ(count(s, "// loop 1 (op 33 scf.for)"), 2U);
  EXPECT_EQ(count(s, "// loop 2 (op 43 scf.for)"), 2U);
  EXPECT_EQ(count(s, std::string("tma_wait_read<0>();  // ") + kExitWait), 2U);
}

// An empty input with a non-empty output (K = 0 of a GEMM: C is the bias, or zero) is refused,
// never skipped with cudaSuccess and C left unwritten (it was); an empty output launches
// nothing; a kernel with pointer stores never proves its outputs empty.
TEST(GemmFamily, EmptyTensorsAreSkippedOnlyWhenEveryOutputIsEmpty) {
  const std::string s5 = emitted(kRoot / "examples/case5_addmm_bias/schedule_graph.json");
  EXPECT_NE(s5.find("const bool outputs_empty = (arg_M == 0 || arg_N == 0);"), std::string::npos);
  EXPECT_NE(s5.find("if (x == 0) return outputs_empty ? cudaSuccess : cudaErrorInvalidValue;"),
            std::string::npos);
  EXPECT_EQ(s5.find("if (x == 0) return cudaSuccess;"), std::string::npos);
  const std::string s7 = emitted(kCase7);
  EXPECT_NE(s7.find("const bool outputs_empty = false;"), std::string::npos);
}

}  // namespace

TEST(GemmFamily, RowScalesLiveInTheAccumulatorsRowLayout) {
  const std::string s = emitted(kCase9);
  // offs_m = pid_m * 128 + arange(128) over the consumer's two 64-row warpgroups: each
  // warpgroup counts its own rows, in the accumulator's row order (MRowLay).
  EXPECT_NE(s.find("BRow<int, MRowLay<64, 4>> offs_m_31;"), std::string::npos);
  EXPECT_NE(s.find("brange(offs_m_31, 0 + slice * 64);"), std::string::npos);
  // The masked per-row scale load, element by element through a row vector of pointers.
  EXPECT_NE(s.find("bload<1>(sa_25_64, sa_24_63, brow(sa_15_49), bsplat(0.000000e+00f));"),
            std::string::npos);
  // sa[:, None] * sb is an N x 1 tile, broadcast over the partial product's columns.
  EXPECT_NE(s.find("BTile<float, MRowLay<64, 1>> acc_29_69;"), std::string::npos);
  EXPECT_NE(s.find("mrow_bcast(acc_29_69)"), std::string::npos);
  // The per-block scale is one scalar load.
  EXPECT_NE(s.find("sb_26_66 = *sb_65;"), std::string::npos);
}

TEST(GemmFamily, ProducerReadsNoRegisterValueOfTheConsumer) {
  // The K loop reads the consumer's row mask and offsets (register tensors) for its scale load;
  // the producer, which works in that loop only through its TMA loads, must not need them (it
  // was refused: "values crossing roles through registers need a shared-memory channel").
  const std::string s = emitted(kCase9);
  const std::string producer = between(s, "// role 0 producer (", "// role 1 consumer (");
  ASSERT_FALSE(producer.empty());
  EXPECT_NE(producer.find("tma_load_2d("), std::string::npos);
  EXPECT_EQ(producer.find("offs_m_11_44"), std::string::npos);
  EXPECT_EQ(producer.find("sa_15_49"), std::string::npos);
}

TEST(GemmFamily, PrefetchedScaleIsReadWithoutACarriedCopy) {
  const std::string s = emitted(kCase9);
  const std::string steady = between(s, "role 1 consumer (", "drain step");
  const std::string step = between(steady, "steady state: step k runs", "named_bar_arrive");
  ASSERT_FALSE(step.empty());
  // Read (for the promotion of the previous K group) before this step's load overwrites it.
  const size_t read = step.find("brow(sa_25_64), bsplat(sb_26_66)");
  const size_t load = step.find("bload<1>(sa_25_64,");
  ASSERT_NE(read, std::string::npos);
  ASSERT_NE(load, std::string::npos);
  EXPECT_LT(read, load);
  EXPECT_EQ(s.find("sa_25_64_c1"), std::string::npos);
  EXPECT_EQ(s.find("sb_26_66_c1"), std::string::npos);
  // The consumers take turns issuing their MMAs, so one's promotion overlaps the other's MMAs.
  EXPECT_NE(step.find("named_bar_sync(5 + slice, 256);"), std::string::npos);
}

namespace {

// case5's bias is its C staging's fill: TMA-loaded box by box into the store's slots before the
// K loop, read back and combined one 64-column box at a time; it never occupies registers.
TEST(GemmFamily, EpilogueOperandIsStagedBoxByBoxNotHeldInRegisters) {
  const auto g = sched2cu::sgraph::read_schedule_graph(kCase5);
  ASSERT_EQ(g.buffers.at(0).fill_op, 43);
  const std::string s = emit_cuda(g, {});
  const std::string consumer = between(s, "// role 1 consumer (", "extern \"C\"");
  ASSERT_FALSE(consumer.empty());
  EXPECT_EQ(s.find("packed_load_global"), std::string::npos);
  EXPECT_EQ(s.find("PackedTile<64, 256>"), std::string::npos);
  // The first two boxes, by the storing thread once its earlier stores have read the slots,
  // inside the K loop right after the MMAs of its iteration 1 (of 0 when it runs once), so that
  // they do not compete with the ring's first fills; and after it when it runs no iteration.
  const std::string steady = between(consumer, "for (int k1 = 1; k1 < T1; ++k1)", "drain step");
  const size_t mma = steady.find("wgmma_commit();");
  const size_t fill = steady.find("if ((k1) == (T1 > 1 ? 1 : 0)) {");
  ASSERT_NE(mma, std::string::npos);
  ASSERT_NE(fill, std::string::npos);
  EXPECT_LT(mma, fill);
  EXPECT_LT(fill, steady.find("wgmma_wait<1>();"));
  EXPECT_LT(fill, steady.find("tma_wait_read<0>();  // the previous stores"));
  EXPECT_LT(steady.find("tma_wait_read<0>();  // the previous stores"), steady.find("fill0->arm("));
  EXPECT_NE(consumer.find("if ((0) == (T1 > 1 ? 1 : 0)) {"), std::string::npos);  // T1 == 1
  EXPECT_NE(consumer.find("if (T1 == 0) {  // the loop ran no iteration: its staging fill"),
            std::string::npos);
  EXPECT_GT(consumer.find("fill0->arm("), consumer.find("// loop 1 (op 34 scf.for)"));
  // Per box: wait, read back, add the accumulator's columns of this box, store, refill.
  const std::string box =
      between(consumer, "for (int ch = 0; ch < 4; ++ch) {  // per box", "} else {");
  ASSERT_FALSE(box.empty());
  EXPECT_NE(box.find("fill0->wait_full("), std::string::npos);
  EXPECT_NE(box.find("AccTile<64, 64> bias_10_51;"), std::string::npos);
  EXPECT_NE(
      box.find(
          "acc_load_box<__half, 128, 64>(bias_10_51, buf0 + slice * 8192 + ((ch) % 2) * 16384"),
      std::string::npos);
  EXPECT_NE(box.find("box_cols<64>(tile(acc_19_48), ch), tile(bias_10_51)"), std::string::npos);
  EXPECT_NE(box.find("if (ch + 2 < 4) {  // refill the slot with box ch + 2"), std::string::npos);
  // The bias descriptor now has a tensor map (the register load needed none).
  EXPECT_NE(s.find("tma_make_map(&map_bias_desc_27"), std::string::npos);
}

// gemm_residual: the residual tile is loaded before the K loop at function scope; its fill goes
// into that loop after the MMAs of iteration 1, the GELU chain is evaluated per box, and scalars
// (splats) are read as they are in every box.
TEST(GemmFamily, FunctionScopeFillIsIssuedInTheNextLoop) {
  const std::string s = emitted(kResidual);
  const std::string consumer = between(s, "// role 1 consumer (", "extern \"C\"");
  ASSERT_FALSE(consumer.empty());
  EXPECT_NE(consumer.find("staging fill issued in loop 0, after its first MMA of iteration 1"),
            std::string::npos);
  const size_t loop = consumer.find("// loop 0 (op");
  ASSERT_NE(loop, std::string::npos);
  EXPECT_GT(consumer.find("fill0->arm((0 + (j) / 2) * 6"), loop);  // round 0: once per kernel
  EXPECT_NE(consumer.find("if (T0 == 0) {  // the loop ran no iteration: its staging fill"),
            std::string::npos);
  EXPECT_NE(consumer.find("tile(x_8_38), splat(5.000000e-01f));"), std::string::npos);
  EXPECT_EQ(consumer.find("box_cols<64>(splat("), std::string::npos);
  EXPECT_NE(consumer.find("erff(x0)"), std::string::npos);
}

}  // namespace

// case7's K loop is split (Loop::split): each CTA of a cluster runs a contiguous share of its
// iterations, the shares' sums meet in the first CTA before the epilogue, and only that CTA
// writes memory. A kernel with no split loop has none of it.
TEST(GemmFamily, SplitLoopSharesItsIterationsAndOnlyTheFirstCtaWrites) {
  const std::string s = emitted(kCase7);
  EXPECT_NE(s.find("const int T1 = split_count("), std::string::npos);
  EXPECT_NE(s.find("const int kb1 = split_first("), std::string::npos);
  EXPECT_NE(s.find("split_sum<256, 163840>(split_bars, smem + 32768, split_rank"),
            std::string::npos);
  // Every global write of the kernel body is the first CTA's.
  const std::string body = between(s, "__global__", "\n}\n");
  ASSERT_FALSE(body.empty());
  int writes = 0;
  for (const std::string w : {"tma_store_2d(", "bstore<"}) {
    for (size_t at = body.find(w); at != std::string::npos; at = body.find(w, at + 1)) {
      const size_t line = body.rfind('\n', at);
      EXPECT_NE(body.substr(line, at - line).find("if (split_rank == 0) "), std::string::npos)
          << body.substr(line, at - line + 40);
      ++writes;
    }
  }
  EXPECT_GT(writes, 0);
  // The launcher asks for the cluster only when it splits, and bounds the split by the M loop's
  // trip count (64-row steps) and its 5-deep rings.
  EXPECT_NE(s.find("const long long split_trip = arg_M > (0) && (64) > 0 ?"), std::string::npos);
  EXPECT_NE(s.find("sched2cu_host_split(grid_x * grid_y * grid_z, num_sms, 4, split_trip, 5)"),
            std::string::npos);
  EXPECT_NE(s.find("attr[0].val.clusterDim.x = split;"), std::string::npos);
  EXPECT_NE(s.find("cudaLaunchKernelEx"), std::string::npos);

  const std::string plain = emitted(kCase8);
  EXPECT_EQ(plain.find("split_"), std::string::npos);
  EXPECT_EQ(plain.find("cudaLaunchKernelEx"), std::string::npos);
}

// case7's kernel.py with 128 x 256 tiles (BLOCK_N = 256; tests/emit/wgrad_n256_input.ttgir,
// scheduled here and committed as tests/emit/wgrad_n256.schedule_graph.json, which the protocol
// checker's mutation suite also runs on): a 128-word accumulator per consumer thread, summed
// across a split cluster by split_sum<256>. The golden compiles for sm_90a with no spills (it
// spilled 12 B while ptxas unrolled split_sum's peer loop and hoisted its remote loads). Its
// first tile has no store in flight before its first staging box, so that box waits for none:
// the wait was an equivalent mutant the suite counted as missed.
TEST(GemmFamily, WideTileWgradSplitSumOfA128WordAccumulator) {
  const std::string text =
      sched2cu::read_file((kRoot / "tests/emit/wgrad_n256_input.ttgir").string());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  const auto ks = sched2cu::sched::schedule_kernel(
      sched2cu::ttgir::parse_module(text, "wgrad_n256_input.ttgir"), "wgrad_bias_kernel", t, {});
  const std::string s = emit_cuda(ks.graph, {});
  const fs::path graph = kRoot / "tests/emit/wgrad_n256.schedule_graph.json";
  const fs::path golden = kRoot / "tests/emit/wgrad_n256.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) {
    sched2cu::write_file_atomic(graph, sched2cu::sgraph::to_json_text(ks.graph));
    sched2cu::write_file_atomic(golden, s);
  }
  EXPECT_EQ(sched2cu::sgraph::to_json_text(ks.graph), sched2cu::read_file(graph))
      << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  // The first tile's store (both forms: loop 1 ran or did not) and the later tiles'.
  EXPECT_EQ(count(s, "if (!(ch == 0)) tma_wait_read<1>();"), 2U);
  EXPECT_EQ(count(s, "if (ch == 0) tma_wait_read<0>(); else tma_wait_read<1>();"), 2U);
  EXPECT_NE(s.find("wgmma_ss<256, __half, __half, Major::MN, Major::MN>"), std::string::npos);
  EXPECT_NE(s.find("split_sum<256, "), std::string::npos);
}

// The tutorial's matmul with its unit strides left to the launch: each lifted descriptor's
// innermost stride is the argument, which the launcher checks is 1 before encoding the map
// (emit refused a descriptor whose innermost stride was not the constant 1).
TEST(GemmFamily, LaunchTimeInnermostStrideIsCheckedByTheLauncher) {
  const std::string text =
      sched2cu::read_file((kRoot / "tests/ttgir/lift/runtime_stride.ttgir").string());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  const auto ks = sched2cu::sched::schedule_kernel(
      sched2cu::ttgir::parse_module(text, "runtime_stride.ttgir"), "matmul_kernel", t, {});
  const std::string s = emit_cuda(ks.graph, {});
  for (const char* st : {"stride_ak", "stride_bn", "stride_cn"})
    EXPECT_NE(s.find(std::string("if (arg_") + st + " != 1) return cudaErrorInvalidValue;"),
              std::string::npos)
        << st;
}

// tl.dot of f32 tiles (gpu case gemm_tf32: A [M, K], B [N, K], b.T): tf32 wgmma, k8, both
// operands K-major; the f32 accumulator stored as it is (4-byte box rows).
TEST(GemmFamily, F32TilesAreATf32WgmmaOfKMajorOperands) {
  const std::string s = emitted(kRoot / "tests/harness/gpu_cases/gemm_tf32/schedule_graph.json");
  EXPECT_NE(s.find("wgmma_ss<128, tf32, tf32, Major::K, Major::K>"), std::string::npos);
  EXPECT_NE(s.find("ks < 4"), std::string::npos);  // 32 columns of K in k8 steps
  EXPECT_NE(s.find("acc_store_box_f32<128, 32>"), std::string::npos);
}

// B loaded as [K, N] for a tf32 dot (tests/emit/tf32_mn_b_kernel.py): Triton's local_alloc stores
// the tile transposed (K-major, through registers), which is not what TMA writes. It was emitted
// as a view of the TMA bytes read K-major, computing garbage; it is refused at the alloc with
// what to write instead.
TEST(GemmFamily, AnAllocThatTransposesATmaTileIsRefused) {
  const std::string text =
      sched2cu::read_file((kRoot / "tests/emit/tf32_mn_b_input.ttgir").string());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  const auto ks = sched2cu::sched::schedule_kernel(
      sched2cu::ttgir::parse_module(text, "tf32_mn_b_input.ttgir"), "mm_kernel", t, {});
  try {
    (void)emit_cuda(ks.graph, {});
    FAIL() << "emitted a transposing alloc of a TMA tile";
  } catch (const sched2cu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'ttg.local_alloc' (from tf32_mn_b_kernel.py:17:64)"), std::string::npos) << m;
    EXPECT_NE(m.find("B as [N, K] and b.T"), std::string::npos) << m;
  }
}

// arith.ceildivsi (Triton's trip counts of strided and flattened loops) is MLIR's signed ceiling
// division: the emitter calls the runtime's ceil_div_signed, whose static_asserts check negative
// operands at every kernel compile. It was `(a + b - 1) / b`, one too high for a negative a not
// a multiple of b (-200 by 132 gave 0, not -1), and `schedule` refused the op as unsupported.
TEST(GemmFamily, CeilDivIsSignedCeilingDivision) {
  std::string text = sched2cu::read_file(
      (kRoot / "tests/harness/gpu_cases/grouped_gemm/pre_modulo.ttgir").string());
  const std::string div = "%group_id = arith.divsi %pid, %num_pid_in_group";
  ASSERT_NE(text.find(div), std::string::npos);
  text.replace(text.find(div), div.size(), "%group_id = arith.ceildivsi %pid, %num_pid_in_group");
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  sched2cu::sched::KernelOptions o;
  o.grid = "cdiv(M, 128) * cdiv(N, 256),1,1";  // the tile decomposition no longer derives it
  const auto ks = sched2cu::sched::schedule_kernel(
      sched2cu::ttgir::parse_module(text, "grouped.ttgir"), "grouped.ttgir", t, o);
  const std::string s = emit_cuda(ks.graph, {});
  EXPECT_NE(s.find("ceil_div_signed<int>("), std::string::npos);
}

// An epilogue converting the accumulator to fp8 (tests/emit/fp8_out_kernel.py,
// `(acc * scale).to(tl.float8e4nv)`): the conversion is a view converted where the tile is
// stored, 128 fp8 columns per 128-byte box. (It fell through to the scalar lowering: "no scalar
// lowering for type tensor<...>".) A rounding other than rtne is refused at the op.
TEST(GemmFamily, AnAccumulatorConvertedToFp8IsStoredAsFp8Boxes) {
  const std::string text = sched2cu::read_file((kRoot / "tests/emit/fp8_out_input.ttgir").string());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  auto emit_of = [&](const std::string& ir) {
    const auto ks = sched2cu::sched::schedule_kernel(
        sched2cu::ttgir::parse_module(ir, "fp8_out_input.ttgir"), "k", t, {});
    return emit_cuda(ks.graph, {});
  };
  const std::string s = emit_of(text);
  EXPECT_NE(s.find("acc_store_box<__nv_fp8_e4m3, 128, 128>("), std::string::npos);
  std::string rtz = text;
  rtz.replace(rtz.find("rounding = rtne"), 15, "rounding = rtz");
  try {
    (void)emit_of(rtz);
    FAIL() << "emitted an fp8 conversion rounding toward zero";
  } catch (const sched2cu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'tt.fp_to_fp' (from fp8_out_kernel.py:18:62)"), std::string::npos) << m;
    EXPECT_NE(m.find("rounding rtz is not implemented"), std::string::npos) << m;
  }
}

// A GEMM whose K offset the loop carries (`offs_k += BLOCK_K`, gpu case gemm_carried_offset): the
// offset is the producer's, the accumulator the consumer's, and the offset's final value is read
// by nothing. Emit refused it ("loop-carried values owned by several roles"); a loop result no
// one reads needs no owner, and the producer carries the offset for its loads.
TEST(GemmFamily, AnUnreadLoopResultNeedsNoOwningRole) {
  const std::string s =
      emitted(kRoot / "tests/harness/gpu_cases/gemm_carried_offset/schedule_graph.json");
  const std::string producer = between(s, "setmaxnreg_dec", "setmaxnreg_inc");
  EXPECT_NE(producer.find("offs_k_9_35 = offs_k_9_35_c1 + c64_i32_10;"), std::string::npos);
  EXPECT_NE(producer.find("tma_load_2d("), std::string::npos);
}

// Triton's fused-attention tutorial, causal (tests/emit/attn_tutorial_kernel.py): two loops over K
// and V (off-diagonal, then the masked diagonal block), the K/V row offsets carried by the
// producer, and the log-sum-exp stored through pointers. Three refusals stood in its way: the
// carried offsets ("loop-carried values owned by several roles"), the row vector's pointer store
// ("layout conversion to ttg.blocked is not implemented"), and the diagonal loop's column range,
// built between the loops inside the first loop's zero-trip branches only (nvcc: "identifier
// mask_13_92 is undefined").
TEST(GemmFamily, AttentionTutorialStoresItsRowVectorAndKeepsRangesAcrossPhases) {
  const std::string text =
      sched2cu::read_file((kRoot / "tests/emit/attn_tutorial_input.ttgir").string());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  sched2cu::sched::KernelOptions o;
  o.grid = "32,Z * H,1";  // the tutorial's rows index a flattened tensor: no grid is derived
  const auto ks = sched2cu::sched::schedule_kernel(
      sched2cu::ttgir::parse_module(text, "attn_tutorial_input.ttgir"), "_attn_fwd", t, o);
  const std::string s = emit_cuda(ks.graph, {});
  // The log-sum-exp: one lane per row, at M + off_hz * N_CTX + start_m * 128 + this slice's rows.
  EXPECT_NE(s.find("row_store_global<float>(static_cast<float*>("), std::string::npos);
  // The column range is declared in both zero-trip branches of loop 0 and again after them.
  const std::string decl = "BCol<int, BLay<64, 128, 1, 2, 8, 4, 8, 1, 8>> mask_13_";
  size_t n = 0;
  for (size_t at = s.find(decl); at != std::string::npos; at = s.find(decl, at + 1)) ++n;
  EXPECT_EQ(n, 3u);
}

// Split-K's `tl.atomic_add(c_ptrs, acc, mask=...)` of the accumulator after the K loop, lifted to
// tt.descriptor_reduce add: the function-scope staging path reduce-adds each box (it refused
// reduce-adds outside a loop's staging ring); nothing is stored plainly.
TEST(GemmFamily, SplitKReduceAddsTheAccumulatorAfterTheLoop) {
  const std::string s = emitted(kRoot / "tests/harness/gpu_cases/splitk_gemm/schedule_graph.json");
  EXPECT_NE(s.find("tma_reduce_add_2d(&"), std::string::npos);
  EXPECT_EQ(s.find("tma_store_2d("), std::string::npos);
}
