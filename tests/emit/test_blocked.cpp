// Unit tests of the blocked world of the emitter (docs/emitter.md, "Blocked layouts" and
// "Index math"): the layouts TTGIR encodings give register tensors (with the emitter's two
// choices: warps to the rows, 16-byte runs), and what the emitted code of case6 (LayerNorm, TMA
// tiles in registers) and of the row_softmax harness case (pointer loads and stores with masks)
// must contain. Behaviour of the kernels themselves is checked on the GPU (case6's ABI test,
// `sched2cu check` of row_softmax).
#include <gtest/gtest.h>

#include <set>

#include <cstdlib>
#include <filesystem>

#include "graph_fixture.h"
#include "lower.h"
#include "sched2cu/common/diag.h"
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
const fs::path kCase6 = kRoot / "examples/case6_layernorm/schedule_graph.json";
// The row-softmax test kernel with its idle producer warpgroup and 10-stage loops (`schedule
// --loads tma`; LoadPath.PipelinedRowFixturesReproduce): the pipelined form these tests inspect.
// The committed kernel (no producer, one stage) is kSoftmaxDefault.
const fs::path kSoftmax = kRoot / "tests/emit/row_softmax_tma.schedule_graph.json";
const fs::path kSoftmaxDefault = kRoot / "tests/harness/gpu_cases/row_softmax/schedule_graph.json";
const fs::path kRowOps = kRoot / "tests/harness/gpu_cases/row_ops/schedule_graph.json";

using Fixture = sched2cu::testing::GraphFixture;

TEST(BlockedLayouts, LayerNormTileKeepsWholeRowsInOneWarp) {
  Fixture x(kCase6);
  Lower L(x.c, x.g.launch.roles.at(1));
  // #blocked = sizePerThread [1, 8], threadsPerWarp [1, 32], warpsPerCTA [2, 2]: the emitter
  // moves the warps to the rows (nothing reduces along axis 0).
  Val t = L.from_type(x.value("x_17"), 0);
  EXPECT_EQ(t.lay, Lay::BTile);
  EXPECT_EQ(L.ctype(t, 0), "BTile<float, BLay<8, 512, 1, 8, 1, 32, 4, 1>>");
  Val m = L.from_type(x.value("mean"), 0);  // the row slice: one CTA tile of columns
  EXPECT_EQ(m.lay, Lay::BRow);
  EXPECT_EQ(L.ctype(m, 0), "BRow<float, BLay<8, 256, 1, 8, 1, 32, 4, 1>>");
  // w's rank-1 load: 512 elements do not cover a 16-byte-run CTA tile (8 x 32 x 4), so Triton's
  // one element per run stays.
  Val w = L.from_type(x.value("w_2"), 0);
  EXPECT_EQ(L.ctype(w, 0), "BTile<__half, BLay<1, 512, 1, 1, 1, 32, 1, 4>>");
}

TEST(BlockedLayouts, PointerLoadsGetSixteenByteRuns) {
  Fixture x(kSoftmax);
  Lower L(x.c, x.g.launch.roles.back());
  // Triton's #blocked has sizePerThread [1] (it cannot prove the rows aligned); the emitter
  // widens it to 8 f16 per run and checks alignment and masks at run time.
  Val v = L.from_type(x.value("x_10"), 0);
  EXPECT_EQ(L.ctype(v, 0), "BTile<__half, BLay<1, 1024, 1, 8, 1, 32, 1, 4>>");
}

std::string emitted(const fs::path& p) {
  return emit_cuda(sched2cu::sgraph::read_schedule_graph(p), {});
}

// The schedule of TTGIR `text` (kernel `kernel`) with the default options.
sched2cu::sched::KernelSchedule scheduled(const std::string& text, const std::string& label,
                                          const std::string& kernel) {
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  return sched2cu::sched::schedule_kernel(sched2cu::ttgir::parse_module(text, label), kernel, t,
                                          {});
}

TEST(BlockedEmit, RowSoftmaxLoadsMasksAndReductions) {
  const std::string s = emitted(kSoftmax);
  EXPECT_NE(s.find("bload<8>("), std::string::npos);
  EXPECT_NE(s.find("bstore<8>("), std::string::npos);
  EXPECT_NE(s.find("breduce_all("), std::string::npos);
  // other = -inf of f16 is the bit pattern 0xFC00 of f16 (as an f32 pattern it was a denormal
  // that rounds to 0, and a short row's masked lanes then added exp(-max) each to the sum).
  EXPECT_NE(s.find("__ushort_as_half(static_cast<unsigned short>(0xFC00u))"), std::string::npos);
  EXPECT_EQ(s.find("__uint_as_float(0xFC00u)"), std::string::npos);
  // Index math is recomputed per reader: no mask or pointer tile is carried across stages.
  EXPECT_EQ(s.find("BTile<bool, BLay<1, 1024, 1, 8, 1, 32, 1, 4>> mask_7_54_c1"),
            std::string::npos);
  EXPECT_EQ(s.find("BTile<__half*, BLay<1, 1024, 1, 8, 1, 32, 1, 4>> x_9_28_c1"),
            std::string::npos);
  // Memory-bound through pointer loads, no shared memory to speak of: 4 CTAs per SM, fixed by
  // setmaxnreg's split.
  EXPECT_NE(s.find("__launch_bounds__(kThreads, 4)"), std::string::npos);
  EXPECT_NE(s.find("(4 * num_sms)"), std::string::npos);
  // Without the producer (the default) one role has the launch bounds' registers: they cap it
  // at 8 CTAs' share, and the persistent grid takes every CTA the compiled kernel keeps
  // resident, from the occupancy calculator after the shared-memory attribute is set.
  const std::string d = emitted(kSoftmaxDefault);
  EXPECT_EQ(d.find("setmaxnreg"), std::string::npos);
  EXPECT_NE(d.find("__launch_bounds__(kThreads, 8)"), std::string::npos);
  const size_t attr = d.find("cudaFuncSetAttribute(row_softmax_kernel");
  const size_t occ = d.find(
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, "
      "row_softmax_kernel, kThreads, kSmemAlloc)");
  const size_t grid =
      d.find("const long long grid_x = static_cast<long long>((resident * num_sms));");
  ASSERT_NE(attr, std::string::npos);
  ASSERT_NE(occ, std::string::npos);
  ASSERT_NE(grid, std::string::npos);
  EXPECT_LT(attr, occ);
  EXPECT_LT(occ, grid);
  EXPECT_EQ(d.find("(8 * num_sms)"), std::string::npos);  // not the cap's count
}

TEST(BlockedEmit, LayerNormTilesThroughTmaAndTwoCtasPerSm) {
  const std::string s = emitted(kCase6);
  EXPECT_NE(s.find("bload_smem<0, 512, __half, BLay<8, 512, 1, 8, 1, 32, 4, 1>>"),
            std::string::npos);
  EXPECT_NE(s.find("TmaSwizzle::none"), std::string::npos);  // register-only tiles
  EXPECT_NE(s.find("__launch_bounds__(kThreads, 2)"), std::string::npos);
  EXPECT_NE(s.find("(2 * num_sms)"), std::string::npos);
  EXPECT_NE(s.find("setmaxnreg_inc<232>"), std::string::npos);
  EXPECT_NE(s.find("tma_wait_read<3>()"), std::string::npos);  // a 5-deep staging ring
  // w and b are loaded straight into the tile's column layout (16-byte runs), not converted
  // through shared memory (four conversions with two barriers each cost 5% at M = 16384).
  EXPECT_EQ(s.find("bconvert("), std::string::npos);
  EXPECT_NE(s.find("bload<8>(w_2_21_as_y_10_32"), std::string::npos);
  // Empty and invalid tensors are the launcher's to answer, not the driver's: M = 0 empties Y,
  // the only output, so nothing is launched.
  EXPECT_NE(s.find("const bool outputs_empty = (arg_M == 0 || (512) == 0);"), std::string::npos);
  EXPECT_NE(s.find("if (x == 0) return outputs_empty ? cudaSuccess : cudaErrorInvalidValue;"),
            std::string::npos);
  EXPECT_NE(s.find("if (x < 0 || x > 4294967296LL) return cudaErrorInvalidValue;"),
            std::string::npos);
}

// case6 scheduled with `--loads global` (tests/emit/layernorm_plain.schedule_graph.json): the
// X tile comes straight from global memory in its blocked layout, in a kernel of one consumer
// warpgroup (no producer, no setmaxnreg, no load ring, no tensor map for X); Y still leaves
// through its TMA store staging. Measured on the H200 against the TMA path (docs/scheduler.md,
// "Load path"); the golden is regenerated with SCHED2CU_UPDATE_GOLDEN=1.
TEST(BlockedEmit, PlainDescriptorLoadGolden) {
  const fs::path graph = kRoot / "tests/emit/layernorm_plain.schedule_graph.json";
  const std::string s = emitted(graph);
  const fs::path golden = kRoot / "tests/emit/layernorm_plain.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, s);
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_NE(s.find("bload_box<8>(x_16_"), std::string::npos);
  EXPECT_NE(s.find("static_cast<const __half*>(X)"), std::string::npos);
  EXPECT_EQ(s.find("setmaxnreg"), std::string::npos);
  EXPECT_EQ(s.find("map_x_desc"), std::string::npos);
  EXPECT_NE(s.find("map_y_desc"), std::string::npos);
  EXPECT_EQ(s.find("tma_load"), std::string::npos);
  EXPECT_NE(s.find("__launch_bounds__(kThreads, 4)"), std::string::npos);
  EXPECT_NE(s.find("constexpr int kThreads = 128;"), std::string::npos);
}

// tests/harness/gpu_cases/col_atomic (tl.atomic_add of f32, tl.atomic_max of i32, acq_rel, gpu
// scope): one PTX atomic per element with the op's order and scope, runs of four f32 adds as one
// vector atomic, nothing kept where the result is unused. Checked correct on the H200 by
// `sched2cu check` of the case (2026-12-02).
TEST(BlockedEmit, AtomicsKeepTritonsOrderAndScope) {
  const fs::path graph = kRoot / "tests/harness/gpu_cases/col_atomic/schedule_graph.json";
  const std::string s = emitted(graph);
  EXPECT_NE(s.find("batomic<4, AtomOp::fadd, AtomSem::acq_rel, AtomScope::gpu>(nullptr, "),
            std::string::npos);
  EXPECT_NE(s.find("batomic<1, AtomOp::max, AtomSem::acq_rel, AtomScope::gpu>(nullptr, "),
            std::string::npos);
  // An atomic this lowering does not have is refused with the op, not emitted as something else.
  auto g = sched2cu::sgraph::read_schedule_graph(graph);
  auto& f = g.ir.functions.at(0);
  int changed = 0;
  for (auto& op : f.ops)
    if (op.name == "tt.atomic_rmw")
      for (auto& [name, a] : op.attrs)
        if (name == "_pos0" && a.text == "fadd") {
          a.text = "max";  // a float max: Triton builds it from integer atomics; not lowered
          ++changed;
        }
  ASSERT_EQ(changed, 1);
  try {
    (void)emit_cuda(g, {});
    FAIL() << "a float atomic max was emitted";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tt.atomic_rmw 'max' on float is not implemented"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("kernel.py:"), std::string::npos) << e.what();
  }
}

}  // namespace

// A pointer advanced by an inner loop (`ptrs += BLOCK`) whose init the outer loop computes:
// tests/emit/ptr_advance_input.ttgir (Triton 3.6's dump of a persistent row sum) scheduled into
// tests/emit/ptr_advance.schedule_graph.json. The role that carries the iter_arg needs its init
// from the outer loop; without it emit refused the loop ("operand %ptrs_4 has no lowered value
// in role consumer", 2026-12-02, after a child loop's inputs became per role).
TEST(BlockedEmit, InnerLoopPointerStartsAtTheOuterLoopsInit) {
  const std::string s = emit_cuda(
      sched2cu::sgraph::read_schedule_graph(kRoot / "tests/emit/ptr_advance.schedule_graph.json"),
      {});
  const size_t init = s.find("bmap(ptrs_4_17,");
  const size_t inner = s.find("(op 14 scf.for)");
  ASSERT_NE(init, std::string::npos);
  ASSERT_NE(inner, std::string::npos);
  EXPECT_LT(init, inner);
  EXPECT_NE(s.find("ptrs_13_29 = ptrs_4_17;"), std::string::npos);  // the iter_arg starts there
}

// A store through a scalar pointer (`tl.store(Y + row, tl.sum(x, axis=0))`, Triton 3.6's dump in
// tests/emit/row_sum_input.ttgir): the full reduction leaves the value in every thread, and one
// thread per warpgroup writes it through the computed `float* const`. It was refused ("the
// pointers of a store must be a tensor of pointers").
TEST(BlockedEmit, ScalarStoreIsOneThreadPerWarpgroup) {
  const std::string s = emit_cuda(
      sched2cu::sgraph::read_schedule_graph(kRoot / "tests/emit/row_sum.schedule_graph.json"), {});
  EXPECT_NE(s.find("breduce_all("), std::string::npos);
  EXPECT_NE(s.find("if (thread_idx_in_warpgroup() == 0) *static_cast<float*>(v0_17) = v1_18;"),
            std::string::npos);
}

// row_ops (a Triton dump; correct on the H200 against a CPU reference: sched2cu_gpu_check_row_ops):
// each of its lowerings in the blocked world.
TEST(BlockedEmit, RowOpsSelectsMathAndReductions) {
  const std::string s = emitted(kRowOps);
  auto has = [&](const std::string& part) {
    EXPECT_NE(s.find(part), std::string::npos) << "missing: " << part;
  };
  has("bsplat(static_cast<__half>(1.000000e+00f))");              // tl.load(..., other=1.0)
  has("[](auto x0, auto x1, auto x2) { return x0 ? x1 : x2; }");  // tl.where
  has("[](auto x0, auto x1) { return x0 > x1; }");                // x > 0.0
  for (const char* fn : {"erff(x0)", "__logf(x0)", "__expf(x0)", "sqrtf(x0)", "rsqrtf(x0)"})
    has(fn);
  // tl.min and the custom combine (max of absolute values) across the row's warps.
  has("breduce_all(lo_20_44, [](float lo_38_46, float lo_39_47) { const float lo_40_48 = "
      "fminf(lo_38_46, lo_39_47); return lo_40_48; }");
  has("return fabsf(x0); })(arg12_52);");
  // The masked tile store, and one scalar per row written by one thread.
  has("bstore<1>(");  // 256 columns over 128 threads: two elements each, no 16-byte runs
  has("if (thread_idx_in_warpgroup() == 0) *static_cast<float*>(");
  has("= num_programs_x;  // op 11 tt.get_num_programs");
}

// Two row loops at function scope with scalar math between them (a plain RMSNorm, one row per
// program: tests/emit/two_phase_rows_input.ttgir, scheduled with --grid 'n_rows,1,1'). The
// 1 / rms between the loops comes from the first loop's reduction, which only the consumer holds;
// it was also emitted in the producer, which named a value it never computed, and nvcc rejected
// the file ("identifier rstd_5_29 is undefined"). The golden is compiled for sm_90a with the
// other tests/emit/*.generated.cu files.
TEST(BlockedEmit, ScalarsBetweenLoopsStayWithTheRoleThatHasTheirOperands) {
  const std::string s = emitted(kRoot / "tests/emit/two_phase_rows.schedule_graph.json");
  const fs::path golden = kRoot / "tests/emit/two_phase_rows.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, s);
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  const size_t producer = s.find("role 0 producer (producer");
  const size_t consumer = s.find("role 1 consumer (consumer");
  ASSERT_NE(producer, std::string::npos);
  ASSERT_NE(consumer, std::string::npos);
  EXPECT_EQ(s.substr(producer, consumer - producer).find("rstd"), std::string::npos);
  EXPECT_NE(s.find("sqrtf(", consumer), std::string::npos);
}

// A top-level loop that carries only scalars (an online log-sum-exp, one row per program:
// tests/emit/online_lse_input.ttgir, --grid 'n_rows,1,1'), and a bf16 scalar loaded through a
// computed pointer after it (the target logit). The scalars run in the consumer and one thread
// per warpgroup stores the loss; a bf16 scalar is a `__nv_bfloat16` (it was refused: "no scalar
// lowering for type bf16"). The golden compiles for sm_90a with the other tests/emit files.
TEST(BlockedEmit, ScalarCarriedLoopAndA16BitScalarLoad) {
  const std::string s = emitted(kRoot / "tests/emit/online_lse.schedule_graph.json");
  const fs::path golden = kRoot / "tests/emit/online_lse.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, s);
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_NE(s.find("const __nv_bfloat16 xt_"), std::string::npos);
  EXPECT_NE(s.find("if (thread_idx_in_warpgroup() == 0) *static_cast<float*>("), std::string::npos);
}

// tests/harness/gpu_cases/bias2d (a loop-free 2-D tile): `offs_m[:, None] < M` is a one-column
// tile broadcast along the tile's columns (`brow` of a BTile; it was refused as "broadcast of a
// materialized tile"), and the bias converted to the tile's column layout is recomputed there,
// its column offsets, which its pointer and its mask both read, declared once (they were
// declared twice and nvcc rejected the file).
TEST(BlockedEmit, OneColumnTileBroadcastAndSharedRecomputation) {
  const std::string s = emitted(kRoot / "tests/harness/gpu_cases/bias2d/schedule_graph.json");
  EXPECT_NE(s.find("brow(mask_"), std::string::npos);
  std::set<std::string> names;
  size_t at = 0;
  while ((at = s.find("_as_", at)) != std::string::npos) {
    const size_t line = s.rfind('\n', at) + 1;
    const size_t end = s.find('\n', at);
    const std::string text = s.substr(line, end - line);
    at = end;
    if (text.find("recomputed in the layout of") == std::string::npos) continue;
    const size_t sp = text.find("> ");
    const size_t semi = text.find(';', sp);
    ASSERT_NE(sp, std::string::npos);
    EXPECT_TRUE(names.insert(text.substr(sp + 2, semi - sp - 2)).second) << text;
  }
  EXPECT_GE(names.size(), 3u);
}

// tl.rand in a loop-free dropout (tests/emit/rand_input.ttgir): Philox's tt.mulhiui (it was
// "unsupported op"), and unsigned ops that read their operands as the unsigned type of their
// width (an i32 extended, shifted or compared as unsigned was read as signed: extui sign-extended,
// minui and ult compared signed), and tt.bitcast. The golden compiles for sm_90a with the other
// tests/emit files.
TEST(BlockedEmit, RandomNumbersAndUnsignedOps) {
  const std::string s = emitted(kRoot / "tests/emit/rand.schedule_graph.json");
  const fs::path golden = kRoot / "tests/emit/rand.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, s);
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_NE(s.find("__umulhi(static_cast<unsigned>(x0), static_cast<unsigned>(x1))"),
            std::string::npos);
  EXPECT_NE(s.find("static_cast<long long>(static_cast<unsigned long long>("), std::string::npos);
}

// tests/harness/gpu_cases/transpose: tl.trans of a blocked tile is a view of its operand, and the
// layout conversion that reads it is the transpose through the role's scratch (`btranspose`; it
// was "no lowering of this op for blocked tensors"). Any other reader of the view is refused.
TEST(BlockedEmit, TransposeOfABlockedTileGoesThroughTheScratch) {
  const std::string s = emitted(kRoot / "tests/harness/gpu_cases/transpose/schedule_graph.json");
  EXPECT_NE(s.find("btranspose(v15_"), std::string::npos);
  EXPECT_NE(s.find("blocked-layout scratch, 8192 B per warpgroup"), std::string::npos);
}

// An fp8 quantization kernel (tests/emit/fp8_quant_input.ttgir, loop-free): tt.fp_to_fp to e4m3
// (`__nv_fp8_e4m3`, round to nearest even with saturation; it had no lowering), scalars derived
// from the block's reduction computed in the consumer rather than at function scope (they named
// the reduction's value before the role computed it and nvcc rejected the file), and a
// one-element store whose pointer, value and mask are uniform written by one thread (it was "the
// pointers of a store must be a tensor of pointers"). The golden compiles for sm_90a.
TEST(BlockedEmit, Fp8QuantizationBlock) {
  const std::string s = emitted(kRoot / "tests/emit/fp8_quant.schedule_graph.json");
  const fs::path golden = kRoot / "tests/emit/fp8_quant.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, s);
  EXPECT_EQ(s, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  EXPECT_NE(s.find("static_cast<__nv_fp8_e4m3>(x0)"), std::string::npos);
  const size_t role = s.find("if (wg == 0)");
  const size_t amax = s.find("fmaxf(amax_");
  ASSERT_NE(role, std::string::npos);
  EXPECT_GT(amax, role);  // the scale's math is inside the role, after the reduction
  EXPECT_NE(s.find("one thread per warpgroup"), std::string::npos);
}

// arith.extui zero-extends: the rand kernel with its seed's i32 -> i64 extension made unsigned
// reads the i32 as unsigned first (its unsigned branch stood after the signed casts, which
// caught extui first, so it sign-extended).
TEST(BlockedEmit, ExtuiZeroExtends) {
  std::string text = sched2cu::read_file((kRoot / "tests/emit/rand_input.ttgir").string());
  const std::string from = "%seed_27 = arith.extsi %seed : i32 to i64";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "%seed_27 = arith.extui %seed : i32 to i64");
  const std::string s = emit_cuda(scheduled(text, "rand_extui.ttgir", "rand_extui").graph, {});
  EXPECT_NE(s.find("static_cast<long long>(static_cast<unsigned>(seed))"), std::string::npos);
}

// `desc.atomic_add` of a blocked tile (tt.descriptor_reduce add, f16): reduce-added by TMA box by
// box. The blocked-tile store path issued tma_store_2d for it, a plain store (wrong results,
// silently); a reduction kind other than add is refused at the op.
TEST(BlockedEmit, DescriptorReduceOfABlockedTileReduceAdds) {
  const std::string text =
      sched2cu::read_file((kRoot / "tests/emit/desc_reduce_input.ttgir").string());
  auto emit_text = [&](const std::string& ttgir) {
    return emit_cuda(scheduled(ttgir, "desc_reduce_input.ttgir", "dred_kernel").graph, {});
  };
  const std::string s = emit_text(text);
  EXPECT_NE(s.find("tma_reduce_add_2d(&"), std::string::npos);
  EXPECT_EQ(s.find("tma_store_2d("), std::string::npos);
  std::string max = text;
  const std::string add = "tt.descriptor_reduce add,";
  ASSERT_NE(max.find(add), std::string::npos);
  max.replace(max.find(add), add.size(), "tt.descriptor_reduce max,");
  try {
    (void)emit_text(max);
    ADD_FAILURE() << "a reduce-max was emitted";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("descriptor_reduce max is not implemented"),
              std::string::npos)
        << e.what();
  }
}

// A kernel without loops whose tile comes in through a tensor descriptor: plain loads into
// registers in the one role (no producer warpgroup, no shared memory for the load), the result
// stored by TMA. emit refused it: "a load before the loops needs a resident buffer and channel".
TEST(BlockedEmit, ALoopFreeDescriptorLoadIsAPlainLoad) {
  const auto ks =
      scheduled(sched2cu::read_file((kRoot / "tests/emit/desc_scale_input.ttgir").string()),
                "desc_scale_input.ttgir", "desc_scale_kernel");
  ASSERT_EQ(ks.graph.launch.roles.size(), 1u);
  EXPECT_EQ(ks.graph.launch.load_path, "global");
  const std::string s = emit_cuda(ks.graph, {});
  EXPECT_NE(s.find("bload_box<"), std::string::npos);
  EXPECT_NE(s.find("tma_store_2d(&"), std::string::npos);
  EXPECT_EQ(s.find("tma_load"), std::string::npos);
}

// tl.clamp (tt.clampf): min(max(x, lo), hi) with the non-NaN operand winning, or, with
// propagate_nan=ALL, a NaN operand winning. emit refused the op ("unsupported op 'tt.clampf'").
TEST(BlockedEmit, ClampKeepsItsNanMode) {
  const std::string s =
      emit_cuda(scheduled(sched2cu::read_file((kRoot / "tests/emit/clamp_input.ttgir").string()),
                          "clamp_input.ttgir", "clamp_kernel")
                    .graph,
                {});
  EXPECT_NE(s.find("{ return fminf(fmaxf(x0, x1), x2); }"), std::string::npos);
  EXPECT_NE(s.find("{ return (x0 != x0 || x1 != x1 || x2 != x2) ? __int_as_float(0x7fc00000) : "
                   "fminf(fmaxf(x0, x1), x2); }"),
            std::string::npos);
}

// The occupancy grid of a one-role kernel is capped at the schedule's CTAs per SM where its
// programs update memory by atomics (col_atomic: 48 GB/s at the 12 CTAs the registers allow, 59
// at 4, H100 2026-12-08); a kernel without atomics takes every resident CTA.
TEST(BlockedEmit, AtomicKernelsCapTheOccupancyGrid) {
  const std::string a = emitted(kRoot / "tests/harness/gpu_cases/col_atomic/schedule_graph.json");
  EXPECT_NE(a.find("if (resident > 4) resident = 4;"), std::string::npos);
  const std::string r = emitted(kRoot / "tests/harness/gpu_cases/row_softmax/schedule_graph.json");
  EXPECT_NE(r.find("cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident"), std::string::npos);
  EXPECT_EQ(r.find("if (resident >"), std::string::npos);
}

// tl.max(x, 1, return_indices=True) of a [4, 1024] tile and tl.argmin of a 1-D row: a
// two-operand tt.reduce reduces a tile of value-index pairs with the region's combine and splits
// the reduced pairs (emit refused both: "only single-operand reductions"); a result nothing
// reads is not written (tl.argmin's value: nvcc warned of a variable set but never used).
TEST(BlockedEmit, TwoOperandReductionsReduceValueIndexPairs) {
  const std::string s = emitted(kRoot / "tests/harness/gpu_cases/argmax_rows/schedule_graph.json");
  EXPECT_NE(s.find("BTile<BPair<float, int>, BLay<4, 1024, "), std::string::npos);
  EXPECT_NE(s.find("breduce_cols(red, zip, [](BPair<float, int> x, BPair<float, int> y)"),
            std::string::npos);
  EXPECT_NE(s.find("return p.a; }, brow(red));"), std::string::npos);
  EXPECT_NE(s.find("return p.b; }, brow(red));"), std::string::npos);
  const std::string m = emitted(kRoot / "tests/harness/gpu_cases/argmin_row/schedule_graph.json");
  EXPECT_NE(m.find("red = breduce_all(zip, "), std::string::npos);
  EXPECT_NE(m.find(" = red.b; }"), std::string::npos);
  EXPECT_EQ(m.find(" = red.a;"), std::string::npos);
}

// tl.cumsum of a row (tt.scan; schedule refused it as an unsupported op): an inclusive scan in
// column order, and the row's store pointers recomputed where the store runs, from the row's
// scalar offset, not carried from the load ten stages earlier (2 KB of spills).
TEST(BlockedEmit, ScanAlongARowAndRowPointersRecomputedAtTheStore) {
  // The 10-stage form (`schedule --loads tma`): the committed kernel has one stage.
  const std::string s = emitted(kRoot / "tests/emit/cumsum_rows_tma.schedule_graph.json");
  EXPECT_NE(s.find("bscan_cols(v5_19, x_5_15_c"), std::string::npos);
  EXPECT_NE(s.find("BTile<float*, BLay<1, 1024, 1, 4, 1, 32, 1, 4>> v4_18;"), std::string::npos);
  EXPECT_EQ(s.find("v4_18_c1"), std::string::npos);
  // The row offset of the store's own iteration, nine stages behind the load's.
  EXPECT_NE(s.find("x_1_11 = (v0_5 + (k0 - 9) * v1_6) * n_cols;"), std::string::npos);
}

// The matmul tutorial with a bias epilogue, C stored through pointers: Triton routes the bias
// through blocked [1, N] tiles (expand_dims, convert, extf, convert to the accumulator's layout).
// Each conversion of that column view reloads the bias in the new layout's column slice; the
// accumulator adds it through mcol_bcast. emit refused the first conversion ("layout conversion
// of a broadcast view is not implemented").
TEST(BlockedEmit, BiasColumnViewConvertedThroughBlockedLayoutsIsReloaded) {
  const std::string s =
      emitted(kRoot / "tests/harness/gpu_cases/matmul_tutorial_bias/schedule_graph.json");
  EXPECT_NE(s.find("ttg.convert_layout: the column vector recomputed in the new layout"),
            std::string::npos);
  EXPECT_NE(s.find("mcol_bcast("), std::string::npos);
  EXPECT_EQ(s.find("bconvert("), std::string::npos);  // no pass through shared memory
}
