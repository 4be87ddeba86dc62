// Emitter tests of register-tile epilogues (docs/emitter.md, "Register tiles in the epilogue"):
// a load the graph gives no shared memory becomes direct global loads in the accumulator layout,
// extf is a view of the packed tile, elementwise f32 math uses the runtime's tile ops (widening
// a packed operand on the fly or first), a chain feeding only the store is fused into its chunk
// loop (loads one chunk ahead) while one with another consumer is not, and what is not lowered
// fails with the op.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
const fs::path kSrc = SCHED2CU_SOURCE_DIR;

std::string emit(const sched2cu::sgraph::ScheduleGraph& g) {
  sched2cu::emit::Options o;
  o.graph_path = "x.json";
  return sched2cu::emit::emit_cuda(g, o);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

// tests/emit/regload_input.ttgir (hand-written: case1 + a tile loaded after the K loop, then
// subf with the loaded tile first, mulf, maxnumf) scheduled once by `sched2cu schedule` into
// tests/emit/regload.schedule_graph.json; the golden is regenerated with SCHED2CU_UPDATE_GOLDEN=1.
TEST(EmitRegisterTiles, FunctionScopeLoadAndElementwiseGolden) {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/regload.schedule_graph.json");
  sched2cu::emit::Options o;
  o.graph_path = "regload.schedule_graph.json";
  std::string out = sched2cu::emit::emit_cuda(g, o);
  const fs::path golden = kSrc / "tests/emit/regload.generated.cu";
  if (std::getenv("SCHED2CU_UPDATE_GOLDEN") != nullptr) sched2cu::write_file_atomic(golden, out);
  EXPECT_EQ(out, sched2cu::read_file(golden)) << "regenerate with SCHED2CU_UPDATE_GOLDEN=1";
  // Both copies of the zero-trip split: loaded per warpgroup slice, no tensor map for it.
  // Fused into the store's chunk loop: chunk 0 before it, chunk ch + 1 inside it.
  EXPECT_EQ(count(out, "packed_load_global<__half>(d_"), 4u);
  EXPECT_NE(
      out.find("static_cast<const __half*>(d_ptr), b_desc_17, v0_31 + slice * 64, v1_32, M, N)"),
      std::string::npos);
  EXPECT_EQ(count(out, "v0_31 + slice * 64, v1_32 + 64 * (ch + 1), M, N)"), 2u);
  EXPECT_EQ(out.find("map_d_desc"), std::string::npos);
  EXPECT_EQ(count(out, "acc_unpack<__half>("), 2u);  // subf's first operand is widened first
  EXPECT_EQ(count(out, "acc_sub(s_36_ch, d_33_ch_f32, acc_4_25_ch);"), 2u);
  EXPECT_EQ(count(out, "acc_mul_packed<__half>("), 2u);
  EXPECT_EQ(count(out, "acc_max_packed<__half>("), 2u);  // maxnumf(packed, x): swapped
}

// case5: the bias load is emitted in the consumer role after the K loop's drain (the scheduler
// ordered it after the super-node), in both copies of the zero-trip split, and added on the fly.
// The chain load -> extf -> addf -> truncf feeds only the chunked store, so it is fused into the
// store's chunk loop (docs/emitter.md): 64-column bias chunks, double-buffered, chunk 0 loaded
// before the loop and chunk ch + 1 inside it ahead of chunk ch's add and staging writes; the whole
// 64 x 256 bias tile and the whole-tile sum never exist.
TEST(EmitRegisterTiles, Case5BiasChainIsFusedIntoTheStoreChunkLoop) {
  auto g =
      sched2cu::sgraph::read_schedule_graph(kSrc / "examples/case5_addmm_bias/schedule_graph.json");
  std::string out = emit(g);
  EXPECT_EQ(count(out, "PackedTile<64, 64> bias_10_51_ch[2];"), 2u);
  EXPECT_EQ(count(out, "PackedTile<64, 256>"), 0u);
  EXPECT_EQ(count(out, "AccTile<64, 256> acc_13_54"), 0u);
  EXPECT_EQ(count(out, "packed_load_global<__half>(bias_10_51_ch[0], "), 2u);
  EXPECT_EQ(count(out, "packed_load_global<__half>(bias_10_51_ch[(ch + 1) % 2], "), 2u);
  EXPECT_EQ(count(out, "bias_9_50 + 64 * (ch + 1), M, N);"), 2u);
  EXPECT_EQ(count(out, "acc_extract_cols<64>(arg9_43_ch, arg9_43, 64 * ch);"), 2u);
  EXPECT_EQ(count(out, "acc_add_packed<__half>(acc_13_54_ch, arg9_43_ch, bias_10_51_ch[ch % 2]);"),
            2u);
  EXPECT_EQ(count(out,
                  "acc_store_box<__half, 128, 64>(stage + (ch % 2) * 16384u, acc_13_54_ch, 0, "
                  "0, 0);"),
            2u);
  const size_t consumer = out.find("setmaxnreg_inc<");
  const size_t drain = out.find("wgmma_wait<0>();");
  const size_t first = out.find("packed_load_global<__half>(bias_10_51_ch[0]");
  const size_t loop = out.find("for (int ch = 0; ch < 4; ++ch)", first);
  const size_t next = out.find("packed_load_global<__half>(bias_10_51_ch[(ch + 1) % 2]", first);
  const size_t add = out.find("acc_add_packed<", first);
  const size_t wait = out.find("tma_wait_read<", first);
  const size_t box = out.find("acc_store_box<", first);
  ASSERT_NE(consumer, std::string::npos);
  EXPECT_LT(consumer, drain);
  EXPECT_LT(drain, first);  // chunk 0: after the drain, before the chunk loop
  EXPECT_LT(first, loop);
  EXPECT_LT(loop, next);  // chunk ch + 1 inside the loop, before chunk ch's math and staging
  EXPECT_LT(next, add);
  EXPECT_LT(add, wait);
  EXPECT_LT(wait, box);
  EXPECT_EQ(out.find("map_bias_desc"), std::string::npos);  // no TMA for the bias
}

// A chain whose result has a consumer other than the store keeps the whole-tile lowering: the
// regload graph with its maxnumf result also passed to tt.return (which lowers to nothing).
TEST(EmitRegisterTiles, ChainWithAnotherConsumerIsNotFused) {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/regload.schedule_graph.json");
  auto& f = g.ir.functions.at(0);
  int q = -1, ret = -1;
  for (auto& op : f.ops) {
    if (op.name == "arith.maxnumf") q = op.results.at(0);
    if (op.name == "tt.return") ret = op.id;
  }
  ASSERT_GE(q, 0);
  ASSERT_GE(ret, 0);
  f.ops.at(static_cast<size_t>(ret)).operands.push_back(q);
  f.values.at(static_cast<size_t>(q)).users.push_back(ret);
  std::string out = emit(g);
  EXPECT_EQ(out.find("fused into the store"), std::string::npos);
  EXPECT_EQ(out.find("_extract_cols"), std::string::npos);
  EXPECT_EQ(count(out, "PackedTile<64, 256> d_33;"), 2u);
  EXPECT_EQ(count(out,
                  "acc_store_box<__half, 128, 64>(stage + (ch % 2) * 16384u, q_38, 0, 64 * ch, "
                  "0);"),
            2u);
}

// maximumf propagates NaN (fmaxf does not): never silently lowered as acc_max.
TEST(EmitRegisterTiles, MaximumfIsAnErrorNamingTheOp) {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/regload.schedule_graph.json");
  for (auto& op : g.ir.functions.at(0).ops)
    if (op.name == "arith.maxnumf") op.name = "arith.maximumf";
  try {
    emit(g);
    FAIL() << "expected an error";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("arith.maximumf"), std::string::npos) << e.what();
  }
}
