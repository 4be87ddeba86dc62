// Column halves of an accumulator (Triton's persistent-matmul tutorial, EPILOGUE_SUBTILE):
// tl.split(tl.permute(tl.reshape(acc, (M, 2, N // 2)), (0, 2, 1))) lowered as two tiles copied
// from the accumulator, the halves stored before the next tile's K loop overwrites nothing they
// need, and every other reshape / permute / split refused at its op.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/ttgir/parser.h"

namespace {

namespace fs = std::filesystem;
const fs::path kCase =
    fs::path(SCHED2CU_SOURCE_DIR) / "tests/harness/gpu_cases/matmul_persistent_tutorial";
const char* kKernel = "matmul_kernel_descriptor_persistent";

sched2cu::sched::KernelSchedule schedule_text(const std::string& text) {
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  return sched2cu::sched::schedule_kernel(sched2cu::ttgir::parse_module(text, "pre_modulo.ttgir"),
                                          kKernel, t, {});
}

std::string input() { return sched2cu::read_file((kCase / "pre_modulo.ttgir").string()); }

TEST(AccSplit, ColumnHalvesAreTilesCopiedFromTheAccumulator) {
  const std::string s = sched2cu::emit::emit_cuda(schedule_text(input()).graph, {});
  EXPECT_NE(s.find("AccTile<64, 128> outLHS_"), std::string::npos);
  EXPECT_NE(s.find("AccTile<64, 128> outRHS_"), std::string::npos);
  EXPECT_NE(s.find("acc_cols<0>(outLHS_"), std::string::npos);
  EXPECT_NE(s.find("acc_cols<128>(outRHS_"), std::string::npos);
  // Each half is stored as two 64-column boxes of its own tile.
  EXPECT_NE(s.find("acc_store_box<__half, 128, 64>(stage + ch * 16384u, outRHS_"),
            std::string::npos);
}

// The halves hold 128 registers a thread beside the next tile's accumulator if their stores
// wait for the next tile: the split was a register rename the scheduler did not follow, so the
// second store was scheduled after the next K loop (ptxas spilled 4976 B).
TEST(AccSplit, HalvesAreStoredBeforeTheNextTilesKLoop) {
  const std::string text = input();
  const auto m = sched2cu::ttgir::parse_module(text, "pre_modulo.ttgir");
  const auto& f = m.function(kKernel);
  const auto ks = schedule_text(text);
  const auto& g = ks.graph;
  ASSERT_FALSE(g.loops.empty());
  const auto& tile_loop = g.loops.front();
  long long k_loop = -1;
  for (const auto& n : tile_loop.nodes)
    if (n.child_loop >= 0) k_loop = n.cycle;
  ASSERT_GE(k_loop, 0);
  int stores = 0;
  for (const auto& n : tile_loop.nodes)
    if (f.op(n.op).name == "tt.descriptor_store") {
      ++stores;
      EXPECT_LT(n.cycle, k_loop + tile_loop.ii) << "a store of tile t after tile t + 1's K loop";
    }
  EXPECT_EQ(stores, 2);
}

void expect_refused(const std::string& from, const std::string& to, const std::string& why) {
  std::string text = input();
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    (void)sched2cu::emit::emit_cuda(schedule_text(text).graph, {});
    FAIL() << "emitted " << to;
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(AccSplit, OtherPermutationsAreRefusedAtTheReshape) {
  expect_refused("order = array<i32: 0, 2, 1>", "order = array<i32: 0, 1, 2>",
                 "only tl.permute(.., (0, 2, 1)) followed by tl.split is implemented");
}

TEST(AccSplit, InterleavedHalvesAreRefused) {
  // reshape (M, N // 2, 2) then split: even and odd columns, not halves.
  expect_refused("tensor<128x256xf32, #mma> -> tensor<128x2x128xf32, #linear>",
                 "tensor<128x256xf32, #mma> -> tensor<128x128x2xf32, #linear>",
                 "is not implemented (only an accumulator tile [M, N] reshaped to [M, 2, N / 2]");
}

}  // namespace
