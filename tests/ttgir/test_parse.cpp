// Golden checks of the committed pre_modulo.ttgir fixtures: op counts, the loop, types, layouts
// and locations. Must never read anything but the committed files (no Triton needed).
#include <gtest/gtest.h>

#include <cmath>

#include "test_common.h"

namespace sched2cu::ttgir {
namespace {

using test::example;
using test::only;
using test::op_counts;

TEST(TtgirParse, Case1GemmGolden) {
  Module m = parse_file(example("case1_simple_gemm"));
  ASSERT_NO_THROW(check_supported(m));
  EXPECT_EQ(m.num_warps(), 8);
  ASSERT_NE(m.attr("ttg.target"), nullptr);
  EXPECT_EQ(m.attr("ttg.target")->text, "cuda:90");
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& f = m.functions[0];
  EXPECT_EQ(f.name, "gemm_kernel");
  ASSERT_EQ(f.args.size(), 6u);
  const char* names[] = {"a_ptr", "b_ptr", "c_ptr", "M", "N", "K"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(f.value(f.args[i]).name, names[i]);
  EXPECT_EQ(f.value(f.args[0]).type.str(), "!tt.ptr<f16>");
  EXPECT_EQ(f.value(f.args[5]).type.str(), "i32");
  EXPECT_EQ(f.value(f.args[0]).loc.src.str(), "kernel.py:8");

  auto n = op_counts(f);
  EXPECT_EQ(f.ops.size(), 28u);
  EXPECT_EQ(n["tt.make_tensor_descriptor"], 3);
  EXPECT_EQ(n["tt.descriptor_load"], 2);
  EXPECT_EQ(n["ttg.local_alloc"], 2);
  EXPECT_EQ(n["ttng.warp_group_dot"], 1);
  EXPECT_EQ(n["tt.descriptor_store"], 1);
  EXPECT_EQ(n["arith.constant"], 6);

  ASSERT_EQ(f.for_ops().size(), 1u);
  ForLoop l = f.for_loop(f.for_ops()[0]);
  EXPECT_EQ(f.value(l.lb).name, "c0_i32");
  EXPECT_EQ(f.value(l.ub).name, "K");
  EXPECT_EQ(f.value(l.step).name, "c64_i32");
  EXPECT_EQ(f.def_op(l.step)->attr("value")->ival, 64);
  EXPECT_EQ(f.value(l.iv).type.str(), "i32");
  ASSERT_EQ(l.iter_args.size(), 1u);
  EXPECT_EQ(f.value(l.iter_args[0]).type.str(), "tensor<128x256xf32, #mma>");
  ASSERT_EQ(l.body.size(), 6u);
  const char* body[] = {"tt.descriptor_load", "ttg.local_alloc",     "tt.descriptor_load",
                        "ttg.local_alloc",    "ttng.warp_group_dot", "scf.yield"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(f.op(l.body[i]).name, body[i]);
  const Op& dot = f.op(l.body[4]);
  EXPECT_EQ(l.yielded, dot.results);
  EXPECT_EQ(dot.operands[2], l.iter_args[0]);  // accumulator is loop-carried
  EXPECT_EQ(dot.loc.src.str(), "kernel.py:19:27");
  EXPECT_EQ(dot.loc.ir.str(),
            SCHED2CU_SOURCE_DIR "/examples/case1_simple_gemm/pre_modulo.ttgir:35:7");
  EXPECT_EQ(dot.loc.name, "acc");
  EXPECT_EQ(dot.parent_op, l.op);

  // Types: the B tile in shared memory, its size and layout parameters.
  const Type& b = f.value(dot.operands[1]).type;
  EXPECT_EQ(b.kind, Type::Kind::MemDesc);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{64, 256}));
  EXPECT_EQ(b.element_type().name, "f16");
  EXPECT_EQ(b.element_bits(), 16);
  EXPECT_EQ(b.byte_size(), 64 * 256 * 2);
  EXPECT_EQ(b.encoding_alias(), "shared");
  EXPECT_EQ(m.encoding_kind(b), "ttg.nvmma_shared");
  EXPECT_EQ(m.encoding_param(b, "swizzlingByteWidth")->ival, 128);
  const Type& acc = f.value(dot.results[0]).type;
  EXPECT_EQ(m.encoding_kind(acc), "ttg.nvidia_mma");
  EXPECT_EQ(m.encoding_param(acc, "instrShape")->as_int_array(),
            (std::vector<int64_t>{16, 256, 16}));

  // Descriptor ops: operand groups and the descriptor's block type.
  const Op* store = only(f, "tt.descriptor_store");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->operand_segments, (std::vector<int>{1, 2, 1}));
  const Type& desc = f.value(store->operands[0]).type;
  EXPECT_EQ(desc.kind, Type::Kind::TensorDesc);
  EXPECT_EQ(desc.numel(), 128 * 256);
  EXPECT_EQ(desc.byte_size(), 128 * 256 * 2);
  EXPECT_EQ(f.def_op(store->operands[0])->operand_segments, (std::vector<int>{1, 2, 2}));

  // tl.zeros comes from Triton's standard library through a callsite location.
  const Op* zeros = f.def_op(l.inits[0]);
  EXPECT_EQ(zeros->loc.src.str(), "kernel.py:15:19");
  ASSERT_EQ(zeros->loc.frames.size(), 2u);
  EXPECT_EQ(zeros->loc.frames[0].file, "triton/language/standard.py");
  EXPECT_EQ(zeros->attr("value")->kind, Attribute::Kind::Dense);
  EXPECT_EQ(zeros->attr("value")->elems.at(0).as_double(), 0.0);

  // Users: K feeds extsi, the descriptors, and the loop bound.
  const Value& K = *f.arg_by_name("K");
  ASSERT_FALSE(K.users.empty());
  EXPECT_EQ(f.op(K.users.back()).name, "scf.for");
}

TEST(TtgirParse, Case3AttentionGolden) {
  Module m = parse_file(example("case3_FA"));
  ASSERT_NO_THROW(check_supported(m));
  const Function& f = m.functions.at(0);
  EXPECT_EQ(f.name, "attn_fwd_kernel");
  EXPECT_EQ(f.args.size(), 9u);
  EXPECT_EQ(f.value(f.args[5]).type.str(), "f32");
  auto n = op_counts(f);
  EXPECT_EQ(n["ttng.warp_group_dot"], 2);
  EXPECT_EQ(n["tt.reduce"], 2);
  EXPECT_EQ(n["tt.reduce.return"], 2);
  EXPECT_EQ(n["math.exp2"], 2);
  EXPECT_EQ(n["tt.descriptor_load"], 3);
  EXPECT_EQ(n["tt.descriptor_store"], 2);
  EXPECT_EQ(n["ttg.memdesc_trans"], 1);

  ASSERT_EQ(f.for_ops().size(), 1u);
  ForLoop l = f.for_loop(f.for_ops()[0]);
  ASSERT_EQ(l.iter_args.size(), 3u);
  ASSERT_EQ(l.results.size(), 3u);
  // %acc:3 results are used as %acc#0..2 after the loop.
  EXPECT_EQ(f.value(l.results[1]).name, "acc");
  EXPECT_EQ(f.value(l.results[1]).result_index, 1);
  EXPECT_EQ(f.op(f.value(l.results[1]).users.at(0)).name, "math.log2");
  // m_i starts at -inf (hex float).
  const Op* m0 = f.def_op(l.inits[0]);
  EXPECT_EQ(m0->attr("value")->elems.at(0).text, "0xFF800000");
  EXPECT_TRUE(std::isinf(m0->attr("value")->elems.at(0).as_double()));
  const Type& mt = f.value(l.iter_args[0]).type;
  EXPECT_EQ(mt.encoding.at(0).kind, Attribute::Kind::Dialect);
  EXPECT_EQ(mt.encoding[0].text, "ttg.slice");
  EXPECT_EQ(mt.encoding[0].get("dim")->ival, 1);
  EXPECT_EQ(mt.encoding[0].get("parent")->text, "mma");

  // The reduce body is a region with two f32 block arguments and a terminator.
  for (const Op& o : f.ops) {
    if (o.name != "tt.reduce") continue;
    EXPECT_EQ(o.attr("axis")->ival, 1);
    ASSERT_EQ(o.regions.size(), 1u);
    const Block& b = o.regions[0].blocks.at(0);
    EXPECT_EQ(b.args.size(), 2u);
    EXPECT_EQ(f.value(b.args[0]).type.str(), "f32");
    EXPECT_EQ(f.value(b.args[0]).owner_op, o.id);
    EXPECT_EQ(f.op(b.ops.back()).name, "tt.reduce.return");
    EXPECT_EQ(o.parent_op, l.op);
  }
  // The second dot takes P from registers (dot_op layout) and V from shared memory.
  std::vector<const Op*> dots;
  for (const Op& o : f.ops)
    if (o.name == "ttng.warp_group_dot") dots.push_back(&o);
  const Type& pa = f.value(dots[1]->operands[0]).type;
  EXPECT_EQ(pa.kind, Type::Kind::Tensor);
  EXPECT_EQ(m.encoding_kind(pa), "ttg.dot_op");
  EXPECT_EQ(m.encoding_param(pa, "kWidth")->ival, 2);
  EXPECT_EQ(dots[1]->operands[2], f.def_op(dots[1]->operands[2])->results[0]);
  EXPECT_EQ(f.def_op(dots[1]->operands[2])->name, "arith.mulf");  // acc * alpha
}

TEST(TtgirParse, Case6LayerNormGolden) {
  Module m = parse_file(example("case6_layernorm"));
  ASSERT_NO_THROW(check_supported(m));
  const Function& f = m.functions.at(0);
  EXPECT_EQ(m.num_warps(), 4);
  auto n = op_counts(f);
  EXPECT_EQ(n["tt.reduce"], 2);
  EXPECT_EQ(n["tt.load"], 2);
  EXPECT_EQ(n["math.sqrt"], 1);
  EXPECT_EQ(n["tt.get_num_programs"], 1);
  ASSERT_EQ(f.for_ops().size(), 1u);
  ForLoop l = f.for_loop(f.for_ops()[0]);
  EXPECT_TRUE(l.iter_args.empty());
  EXPECT_TRUE(l.results.empty());
  EXPECT_EQ(f.value(l.lb).name, "pid");
  EXPECT_EQ(f.def_op(l.step)->name, "tt.get_num_programs");
  EXPECT_EQ(f.def_op(l.step)->attr("axis")->text, "x");
  EXPECT_TRUE(l.yielded.empty());
  // tt.load's result type is the pointee tensor.
  const Op* ld = nullptr;
  for (const Op& o : f.ops)
    if (o.name == "tt.load") ld = &o;
  EXPECT_EQ(f.value(ld->results[0]).type.str(), "tensor<512xf16, #blocked1>");
  EXPECT_EQ(f.value(ld->operands[0]).type.element_type().kind, Type::Kind::Ptr);
  const Op* dl = only(f, "tt.descriptor_load");
  ASSERT_NE(dl, nullptr);
  EXPECT_EQ(f.value(dl->results[0]).type.byte_size(), 8 * 512 * 2);
  EXPECT_EQ(dl->parent_op, l.op);
}

}  // namespace
}  // namespace sched2cu::ttgir
