// Plain Triton kernels a user brings, through the scheduler: loop-free ones (Triton's elementwise
// form) get the grid from their store masks (docs/scheduler.md, "Launch grid", rule 6) and one
// consumer role without a producer (input: the committed dump of
// tests/harness/gpu_cases/elementwise, mutated where a rule must not apply); a kernel the target
// table cannot cost, or a loop the modulo schedule cannot hold, is refused at its op.
#include <gtest/gtest.h>

#include <filesystem>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/build.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/ttgir/parser.h"

using namespace sched2cu;
namespace fs = std::filesystem;

namespace {

const fs::path kInput =
    fs::path(SCHED2CU_SOURCE_DIR) / "tests/harness/gpu_cases/elementwise/pre_modulo.ttgir";

sched::KernelSchedule schedule_text(const std::string& text) {
  const auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  return sched::schedule_kernel(ttgir::parse_module(text, "e.ttgir"), "e.ttgir", t, {});
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string schedule_error(const std::string& text) {
  try {
    schedule_text(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LoopFree, GridFromTheStoreMasksAndNoProducer) {
  const auto ks = schedule_text(read_file(kInput.string()));
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "cdiv(n, 1024)");
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[1]), "1");
  ASSERT_EQ(ks.graph.launch.roles.size(), 1u);
  EXPECT_EQ(ks.graph.launch.roles[0].kind, "consumer");
  EXPECT_EQ(ks.graph.launch.warpgroups, 1);
  EXPECT_TRUE(ks.graph.loops.empty());
}

// The same kernel with its offsets in 64 bits (`tl.program_id(0).to(tl.int64)`): the arange,
// bound and program id sign-extended. The grid is derived through the extensions (it was not:
// "cannot derive the grid extent").
TEST(LoopFree, GridFromStoreMasksWrittenIn64Bits) {
  const fs::path in = fs::path(SCHED2CU_SOURCE_DIR) / "tests/sched/i64_elementwise_input.ttgir";
  const auto ks = schedule_text(read_file(in.string()));
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "cdiv(n, 1024)");
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[1]), "1");
}

// A store without a mask writes from every program, so the grid cannot be read off the others'
// masks: the axis is not derived (the error names the program id and says how to pass --grid).
TEST(LoopFree, AnUnmaskedStoreLeavesTheGridUnderived) {
  const std::string text =
      replaced(read_file(kInput.string()), "tt.store %4, %d_19, %mask_4 :", "tt.store %4, %d_19 :");
  const std::string e = schedule_error(text);
  EXPECT_NE(e.find("cannot derive the grid extent of program id axis x"), std::string::npos) << e;
  EXPECT_NE(e.find("--grid"), std::string::npos) << e;
  EXPECT_NE(e.find("(this kernel's integer parameters: n; "), std::string::npos) << e;
  EXPECT_NE(e.find("needs that count as a parameter"), std::string::npos) << e;
}

// The block start must be the program id times a constant: `pid * n` (a runtime block) or a
// comparison other than `<` is not matched.
TEST(LoopFree, OnlyAConstantBlockAndALessThanBound) {
  const std::string text = read_file(kInput.string());
  EXPECT_NE(schedule_error(replaced(text, "arith.muli %pid, %c1024_i32", "arith.muli %pid, %n"))
                .find("cannot derive the grid extent"),
            std::string::npos);
  EXPECT_NE(schedule_error(
                replaced(text, "arith.cmpi slt, %offs_3, %mask", "arith.cmpi sge, %offs_3, %mask"))
                .find("cannot derive the grid extent"),
            std::string::npos);
}

// A tl.dot of f32 tiles (tests/sched/f32_dot_input.ttgir, Triton 3.6: inputPrecision 0, a tf32
// wgmma) is costed at the table's tf32 rate, half the f16 one: its 128x128x32 MMA holds the
// tensor core for at least its flops at that rate, longer than f16's rate would say. (It was
// refused: the table has no rate for 'f32'.) Any other input precision has no single tensor-core
// instruction: refused at the op.
TEST(LoopFree, AnF32DotIsCostedAsTf32) {
  const fs::path in = fs::path(SCHED2CU_SOURCE_DIR) / "tests/sched/f32_dot_input.ttgir";
  const std::string text = read_file(in.string());
  auto mma_occupancy = [](const sched::KernelSchedule& ks) {
    for (const auto& loop : ks.graph.loops)
      for (const auto& n : loop.nodes)
        if (n.pipeline == "TC") return n.occupancy;
    return -1;
  };
  const int occupancy = mma_occupancy(schedule_text(text));
  // 2 * 128 * 128 * 32 flops at the table's rates (flop per clock per SM).
  const auto t = ddg::TargetModel::load(ddg::TargetModel::default_path());
  const double flops = 2.0 * 128 * 128 * 32;
  EXPECT_GE(occupancy, static_cast<int>(flops / t.tc_rate("tf32"))) << occupancy;
  EXPECT_GT(occupancy, static_cast<int>(flops / t.tc_rate("f16")) * 3 / 2) << occupancy;

  const std::string e = schedule_error(replaced(text, "inputPrecision = 0", "inputPrecision = 2"));
  EXPECT_NE(e.find("e.ttgir:41:7: error: 'ttng.warp_group_dot' of f32 tiles with inputPrecision 2"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("only tf32"), std::string::npos) << e;
}

// Triton's persistent matmul tutorial with tl.range(..., flatten=True): its loops come folded into
// one whose tile changes and epilogue sit under scf.if. Refused at the scf.if with what to write
// instead (it said "no cost class for 'scf.if' (scalar)", after refusing arith.ceildivsi of the
// flattened trip count as an unsupported op).
TEST(LoopFree, FlattenedPersistentLoopIsRefusedSayingHowToWriteIt) {
  const fs::path in =
      fs::path(SCHED2CU_SOURCE_DIR) / "tests/sched/flattened_persistent_input.ttgir";
  const std::string text = read_file(in.string());
  ttgir::check_supported(ttgir::parse_module(text, "e.ttgir"));  // arith.ceildivsi is supported
  const std::string e = schedule_error(text);
  EXPECT_NE(e.find("'scf.if' (from flattened_persistent_kernel.py:37:59)"), std::string::npos) << e;
  EXPECT_NE(e.find("without flatten=True"), std::string::npos) << e;
}

// A per-block scalar store masked by a scalar comparison splat to one element
// (`mask=pid * BLOCK + tl.arange(0, 1) < n`, which Triton folds to `pid * 1024 < n`): the same
// bound and block as the tile's store, so the grid is derived (it was refused).
TEST(LoopFree, ScalarComparisonMasksCountToo) {
  const fs::path in = fs::path(SCHED2CU_SOURCE_DIR) / "tests/emit/fp8_quant_input.ttgir";
  const auto ks = schedule_text(read_file(in.string()));
  EXPECT_EQ(sgraph::to_text(ks.graph.launch.grid[0]), "cdiv(n, 1024)");
}
