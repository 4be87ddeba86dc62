// Emitter tests of register-tile epilogues (docs/emitter.md, "Register values and layouts"): a
// load the graph gives no shared memory becomes direct global loads in the accumulator layout,
// extf is a view of the packed tile, elementwise f32 math is one tile_map per op whose operands
// are read through layout adapters (a packed operand widened on the fly), and an op the table
// does not hold fails with the op.
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
  EXPECT_EQ(count(out, "packed_load_global<__half>(d_"), 2u);
  EXPECT_NE(
      out.find("static_cast<const __half*>(d_ptr), b_desc_17, v0_31 + slice * 64, v1_32, M, N)"),
      std::string::npos);
  EXPECT_EQ(out.find("map_d_desc"), std::string::npos);
  // subf(d, acc): the packed tile is the first operand, read through widen<>, no copy first.
  EXPECT_EQ(count(out, "return x0 - x1; }, widen<__half>(d_"), 2u);
  EXPECT_EQ(count(out, "return x0 * x1; }, tile(s_"), 2u);
  EXPECT_EQ(count(out, "return fmaxf(x0, x1); }, widen<__half>(d_"), 2u);
}

// case5: the bias load is emitted once in the consumer role before the K loop (its registers fit
// beside the accumulator, so the scheduler lets it start with the loop's super-node and the
// emitter puts the op first), and added on the fly in both copies of the zero-trip split.
// The register path of case5's bias, as the emitter lowers it for a graph that gives the load no
// fill (the committed graph stages it:
// GemmFamily.EpilogueOperandIsStagedBoxByBoxNotHeldInRegisters).
TEST(EmitRegisterTiles, Case5BiasLoadWithoutAFillIsIssuedBeforeTheKLoop) {
  auto g =
      sched2cu::sgraph::read_schedule_graph(kSrc / "examples/case5_addmm_bias/schedule_graph.json");
  ASSERT_EQ(g.buffers.at(0).fill_op, 43);
  g.buffers.at(0).fill_op = -1;
  std::string out = emit(g);
  EXPECT_EQ(out.find("fill0"), std::string::npos);
  EXPECT_EQ(count(out, "packed_load_global<__half>("), 1u);
  EXPECT_EQ(count(out, "widen<__half>(bias_"), 2u);  // added on the fly, no f32 copy of it
  const size_t consumer = out.find("setmaxnreg_inc<");
  const size_t first_mma = out.find("wgmma_ss<", consumer);
  const size_t load = out.find("packed_load_global<");
  ASSERT_NE(consumer, std::string::npos);
  EXPECT_LT(consumer, load);
  EXPECT_LT(load, first_mma);
  EXPECT_LT(first_mma, out.find("widen<__half>(bias_"));
  EXPECT_EQ(out.find("map_bias_desc"), std::string::npos);  // no TMA for the bias
}

// maximumf propagates NaN (fmaxf does not): lowered with its own NaN check, never as maxnum.
TEST(EmitRegisterTiles, MaximumfKeepsItsNaNSemantics) {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/regload.schedule_graph.json");
  for (auto& op : g.ir.functions.at(0).ops)
    if (op.name == "arith.maxnumf") op.name = "arith.maximumf";
  std::string out = emit(g);
  EXPECT_EQ(count(out, "(x0 != x0 || x1 != x1) ? __int_as_float(0x7fc00000) : fmaxf(x0, x1)"), 2u);
}

// An op the table does not hold is an error naming the op, its TTGIR line and its Python line.
TEST(EmitRegisterTiles, OpMissingFromTheTableNamesItsLines) {
  auto g = sched2cu::sgraph::read_schedule_graph(kSrc / "tests/emit/regload.schedule_graph.json");
  int id = -1;
  for (auto& op : g.ir.functions.at(0).ops)
    if (op.name == "arith.maxnumf") {
      op.name = "tt.precise_divf";  // the front end takes it, the op table has no lowering
      id = op.id;
    }
  try {
    emit(g);
    FAIL() << "expected an error";
  } catch (const sched2cu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("op " + std::to_string(id) + " 'tt.precise_divf'"), std::string::npos) << m;
    EXPECT_NE(m.find("not in the emitter's op table"), std::string::npos) << m;
    EXPECT_NE(m.find("tests/emit/regload_input.ttgir:"), std::string::npos) << m;
    EXPECT_NE(m.find("(from kernel.py:"), std::string::npos) << m;
  }
}
