// Tests of lifting pointer tiles to tensor descriptors (sched2cu/ttgir/lift.h) and of the IR edits
// it relies on (edit.h): Triton's tutorial matmul lifted whole, the IR invariants after the edit,
// and each way a pointer tile feeding an MMA is refused, with its reason at the op's location.
#include <gtest/gtest.h>

#include <string>

#include "sched2cu/common/file_util.h"
#include "sched2cu/ttgir/edit.h"
#include "sched2cu/ttgir/json.h"
#include "sched2cu/ttgir/lift.h"
#include "test_common.h"

namespace sched2cu::ttgir {
namespace {

const std::string kRoot = SCHED2CU_SOURCE_DIR;

Module load(const std::string& rel) { return parse_module(read_file(kRoot + "/" + rel), rel); }

// Every id is its index, every cross reference points back, users are exact and in order.
void expect_consistent(const Function& f) {
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Op& o = f.ops[i];
    ASSERT_EQ(o.id, static_cast<OpId>(i));
    for (size_t k = 0; k < o.results.size(); ++k) {
      EXPECT_EQ(f.value(o.results[k]).def_op, o.id);
      EXPECT_EQ(f.value(o.results[k]).result_index, static_cast<int>(k));
    }
    for (ValueId v : o.operands) {
      const auto& us = f.value(v).users;
      EXPECT_NE(std::find(us.begin(), us.end(), o.id), us.end()) << o.name;
      // Defined before use: a result of an earlier op, or an argument of an enclosing block.
      const OpId d = f.value(v).def_op;
      if (d != kNoId) EXPECT_LT(d, o.id) << o.name << " reads " << f.value(v).name;
    }
  }
  for (size_t i = 0; i < f.values.size(); ++i) EXPECT_EQ(f.values[i].id, static_cast<ValueId>(i));
}

TEST(Lift, TutorialMatmulBecomesDescriptorLoadsAndStore) {
  Module m = load("tests/harness/gpu_cases/matmul_tutorial/pre_modulo.ttgir");
  const auto notes = lift_pointer_tiles(m, "matmul_kernel");
  ASSERT_EQ(notes.size(), 3U);
  EXPECT_NE(notes[0].find("kernel.py:30:20: pointer load lifted to a TMA load of a_ptr as [M, K] "
                          "(row stride stride_am), box 128x64, stepping the columns by 64"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("rows wrapped by % M"), std::string::npos);
  EXPECT_NE(notes[1].find("b_ptr as [K, N] (row stride stride_bk), box 64x256, stepping the rows "
                          "by 64 per iteration; columns wrapped by % N"),
            std::string::npos)
      << notes[1];
  EXPECT_NE(notes[2].find("pointer store lifted to a TMA store of c_ptr as [M, N]"),
            std::string::npos)
      << notes[2];
  const Function& f = m.functions.at(0);
  expect_consistent(f);
  const auto n = test::op_counts(f);
  EXPECT_EQ(n.count("tt.load"), 0U);
  EXPECT_EQ(n.count("tt.store"), 0U);
  EXPECT_EQ(n.count("tt.addptr"), 0U);  // the pointer arithmetic is gone with the pointers
  EXPECT_EQ(n.at("tt.make_tensor_descriptor"), 3);
  EXPECT_EQ(n.at("tt.descriptor_load"), 2);
  EXPECT_EQ(n.at("tt.descriptor_store"), 1);
  // The loop carries the accumulator only (the pointer tiles were loop-carried).
  const ForLoop L = f.for_loop(f.for_ops().at(0));
  ASSERT_EQ(L.iter_args.size(), 1U);
  EXPECT_EQ(f.value(L.iter_args[0]).type.element_type().name, "f32");
  // Shared memory holds each operand as TMA writes it: columns contiguous.
  for (const Op& o : f.ops)
    if (o.name == "ttg.local_alloc")
      EXPECT_EQ(m.encoding_param(f.value(o.results[0]).type, "transposed")->ival, 0);
  // The lifted module survives a JSON round trip (the schedule graph embeds it).
  EXPECT_EQ(module_from_json(nlohmann::json::parse(to_json(m).dump())), m);
}

// The other ways users write the same loads: both dimensions masked (no wrap), the mask as
// `offs_k + k < K` over `range(0, K, BLOCK_K)`, the pointers recomputed each iteration, a
// persistent kernel setting its pointer tiles up per tile, the unit strides left to the launch
// (the descriptor's innermost stride is the argument, which the launcher checks is 1), and a
// B of [N, K] loaded as [BN, BK] tiles and transposed for the MMA (b.T, rows wrapped by % N), and
// index math in 64 bits (`tl.program_id(0).to(tl.int64)`; it was refused: "an index computed by
// arith.extsi"), its tile starts truncated to TMA's 32-bit coordinates.
class LiftAccepts : public ::testing::TestWithParam<const char*> {};

TEST_P(LiftAccepts, EveryLoadAndStore) {
  Module m = load(std::string("tests/ttgir/lift/") + GetParam());
  const auto notes = lift_pointer_tiles(m, "matmul_kernel");
  ASSERT_EQ(notes.size(), 3U);
  const Function& f = m.functions.at(0);
  expect_consistent(f);
  const auto n = test::op_counts(f);
  EXPECT_EQ(n.count("tt.load") + n.count("tt.store") + n.count("tt.addptr"), 0U);
  EXPECT_EQ(n.at("tt.descriptor_load"), 2);
  // The K loop (the innermost) carries the accumulator only.
  EXPECT_EQ(f.for_loop(f.for_ops().back()).iter_args.size(), 1U);
}

INSTANTIATE_TEST_SUITE_P(Lift, LiftAccepts,
                         ::testing::Values("both_masks.ttgir", "offset_mask.ttgir",
                                           "recomputed.ttgir", "persistent.ttgir",
                                           "runtime_stride.ttgir", "b_transposed.ttgir",
                                           "i64_offsets.ttgir"));

// Split-K: each program's K index starts at its slice (pid_k * BLOCK_K + arange) and steps by
// BLOCK_K * SPLIT_K, masked `offs_k < K - k * step`; it was refused ("a stepped dimension whose
// index does not start at 0"). The start is the first iteration's coordinate and the extent is K.
// The tl.atomic_add of the partial tile (acq_rel, the kernel's only write, nothing read after it)
// becomes a TMA reduce-add; one that a later load could observe stays an atomic.
TEST(Lift, SplitKSlicesStartAtTheProgramsSlice) {
  // The gpu case splitk_gemm (its kernel.py: 128x128 tiles, BLOCK_K 64, SPLIT_K 4).
  const std::string path = "tests/harness/gpu_cases/splitk_gemm/pre_modulo.ttgir";
  const std::string text = read_file(kRoot + "/" + path);
  Module m = parse_module(text, path);
  const auto notes = lift_pointer_tiles(m, "splitk_kernel");
  ASSERT_EQ(notes.size(), 3U);
  EXPECT_NE(notes[0].find("a_ptr as [M, K] (row stride stride_am), box 128x64, stepping the "
                          "columns by 256"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("b_ptr as [K, N] (row stride stride_bk), box 64x128, stepping the rows "
                          "by 256"),
            std::string::npos)
      << notes[1];
  EXPECT_NE(notes[2].find("pointer atomic add lifted to a TMA reduce-add of c_ptr as [M, N]"),
            std::string::npos)
      << notes[2];
  const Function& f = m.functions.at(0);
  expect_consistent(f);
  const auto n = test::op_counts(f);
  EXPECT_EQ(n.count("tt.load") + n.count("tt.atomic_rmw"), 0U);
  EXPECT_EQ(n.at("tt.descriptor_load"), 2);
  EXPECT_EQ(n.at("tt.descriptor_reduce"), 1);
  // Each load's K coordinate is the slice's start plus k times the step: pid_k * 64 + k * 256.
  int starts = 0;
  for (const Op& o : f.ops) {
    if (o.name != "tt.descriptor_load") continue;
    for (ValueId c : o.operands) {
      const Op* add = f.def_op(c);
      if (add == nullptr || add->name != "arith.addi") continue;
      const Op* start = f.def_op(add->operands.at(0));
      starts += start != nullptr && start->name == "arith.muli";
    }
  }
  EXPECT_EQ(starts, 2);
  EXPECT_EQ(module_from_json(nlohmann::json::parse(to_json(m).dump())), m);
  // A load of C after the atomic could observe the order acq_rel gives and TMA does not.
  std::string later = text;
  const std::string ret = "    tt.return";
  ASSERT_NE(later.find(ret), std::string::npos);
  later.insert(later.find(ret), "    %late = tt.load %c_ptr : !tt.ptr<f32>\n");
  Module m2 = parse_module(later, "late.ttgir");
  EXPECT_EQ(lift_pointer_tiles(m2, "splitk_kernel").size(), 2U);
  EXPECT_EQ(test::op_counts(m2.functions.at(0)).at("tt.atomic_rmw"), 1);
}

TEST(Lift, NothingToLiftLeavesTheModuleAlone) {
  Module m = load("examples/case1_simple_gemm/pre_modulo.ttgir");
  const Module before = m;
  EXPECT_TRUE(lift_pointer_tiles(m, m.functions.at(0).name).empty());
  EXPECT_EQ(m, before);
}

// Malformed TTGIR the parser accepts (found by the fuzzer): a mask's comparison whose first
// operand lost its '%' parses as a one-operand arith.cmpi. Lifting read past its operands; it
// must refuse at the load instead.
TEST(Lift, AnOpMissingAnOperandIsRefusedAtTheLoad) {
  std::string text = read_file(kRoot + "/tests/ttgir/lift/both_masks.ttgir");
  const std::string cmp = "arith.cmpi slt, %a_ptrs, %a :";
  ASSERT_NE(text.find(cmp), std::string::npos);
  text.replace(text.find(cmp), cmp.size(), "arith.cmpi slt, a_ptrs, %a :");
  Module m = parse_module(text, "both_masks.ttgir");
  try {
    lift_pointer_tiles(m, "matmul_kernel");
    FAIL() << "lifted a one-operand arith.cmpi";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lacks an operand or a result"), std::string::npos)
        << e.what();
  }
}

struct Refusal {
  const char* file;
  const char* where;
  const char* why;
};

class LiftRefuses : public ::testing::TestWithParam<Refusal> {};

TEST_P(LiftRefuses, WithTheReasonAtTheOp) {
  const Refusal r = GetParam();
  Module m = load(std::string("tests/ttgir/lift/") + r.file);
  try {
    lift_pointer_tiles(m, "matmul_kernel");
    FAIL() << "lifted " << r.file;
  } catch (const Error& e) {
    const std::string s = e.what();
    EXPECT_NE(s.find(r.where), std::string::npos) << s;
    EXPECT_NE(s.find(r.why), std::string::npos) << s;
    EXPECT_NE(s.find("tl.make_tensor_descriptor"), std::string::npos) << s;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lift, LiftRefuses,
    ::testing::Values(
        // No mask and no `% M`: the tensor's extent is unknown.
        Refusal{"rows_unbounded.ttgir", "(from rows_unbounded.py:27:20)", "rows have no bound"},
        // Wrapped rows summed by a column reduction: zeros there would change the sums.
        Refusal{"wrap_reduced.ttgir", "(from wrap_reduced.py:27:20)",
                "rows wrapped by % M reach tt.reduce"},
        // The contraction dimension wrapped, and stepped past the wrap by the loop.
        Refusal{"k_wrapped.ttgir", "(from k_wrapped.py:27:20)",
                "a wrapped index (% n) along the dimension the pointer steps"}));

}  // namespace
}  // namespace sched2cu::ttgir
