// Syntax the three committed kernels do not exercise but the rest of the corpus does: scf.if,
// comparisons, masked loads, selects, multi-result ops, mutable memdescs, generic forms with
// several results, and inline `k = v` keywords. Must never need Triton to run.
#include <gtest/gtest.h>

#include "sched2cu/common/file_util.h"
#include "sched2cu/ttgir/json.h"
#include "test_common.h"

namespace sched2cu::ttgir {
namespace {

std::string input() {
  return std::string(SCHED2CU_SOURCE_DIR) + "/tests/ttgir/inputs/constructs.ttgir";
}

TEST(TtgirConstructs, ParsesCorpusSyntax) {
  Module m = parse_file(input());
  const Function& f = m.functions.at(0);
  EXPECT_EQ(f.value(f.args[0]).attrs.at(0).first, "tt.divisibility");
  auto find = [&](const std::string& n) -> const Op& {
    for (const Op& o : f.ops)
      if (o.name == n) return o;
    throw Error("no " + n);
  };
  const Op& cmp = find("arith.cmpi");
  EXPECT_EQ(cmp.attr("predicate")->text, "slt");
  EXPECT_EQ(f.value(cmp.results[0]).type.str(), "tensor<128xi1, #blocked>");
  const Op& ld = find("tt.load");
  EXPECT_EQ(ld.operands.size(), 2u);
  EXPECT_EQ(ld.attr("evictionPolicy")->text, "evict_last");
  EXPECT_EQ(f.value(ld.results[0]).type.str(), "tensor<128xf32, #blocked>");
  EXPECT_EQ(ld.loc.src.str(), "k.py:7:8");  // first located member of the fused loc
  EXPECT_EQ(f.value(find("arith.select").results[0]).type.str(), "tensor<128xf32, #blocked>");
  EXPECT_EQ(find("arith.addf").attr("fastmath")->str(), "fastmath<fast>");
  EXPECT_EQ(f.value(find("tt.addptr").results[0]).type.str(), "tensor<128x!tt.ptr<f32>, #blocked>");

  const Op& iff = find("scf.if");
  ASSERT_EQ(iff.regions.size(), 2u);
  ASSERT_EQ(iff.results.size(), 2u);
  EXPECT_EQ(f.value(iff.results[1]).type.str(), "i32");
  EXPECT_EQ(iff.loc.src.str(), "k.py:9:4");
  EXPECT_EQ(f.op(iff.regions[1].blocks[0].ops[0]).parent_region, 1);

  const Op& alloc = find("ttg.local_alloc");
  const Type& bt = f.value(alloc.results[0]).type;
  EXPECT_TRUE(bt.mutable_memory);
  EXPECT_EQ(bt.shape, (std::vector<int64_t>{2, 128}));
  EXPECT_EQ(bt.byte_size(), 1024);
  EXPECT_EQ(bt.str(), "!ttg.memdesc<2x128xf32, #shared, #smem, mutable>");
  EXPECT_EQ(m.encoding_kind(bt), "ttg.swizzled_shared");

  const Op& two = find("test.two");
  ASSERT_EQ(two.results.size(), 2u);
  EXPECT_EQ(f.value(two.results[1]).type.kind, Type::Kind::AsyncToken);
  EXPECT_EQ(two.operands[0], iff.results[1]);
  const Op& st = find("tt.store");
  EXPECT_EQ(st.operands[1], iff.results[0]);
  EXPECT_EQ(st.results.size(), 0u);

  // test.two is not a supported op; everything before it is.
  auto u = first_unsupported(m);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->what, "unsupported op 'test.two'");
  EXPECT_EQ(u->where.str(), input() + ":24:5");

  Module back = module_from_json(to_json(m));
  EXPECT_TRUE(back == m);
}

TEST(TtgirConstructs, PrintedTypesMatchTritonSpelling) {
  // Every type in the committed fixtures prints back exactly as Triton wrote it.
  for (const char* c : {"case1_simple_gemm", "case3_FA", "case6_layernorm"}) {
    std::string text = read_file(test::example(c));
    Module m = parse_module(text, c);
    for (const Function& f : m.functions)
      for (const Value& v : f.values)
        EXPECT_NE(text.find(v.type.str()), std::string::npos) << c << ": " << v.type.str();
  }
}

// Two forms of Triton 3.6 output the parser refused: tt.elementwise_inline_asm, which opens with
// its asm string (input_precision="tf32x3" rounds f32 to tf32 with one; it failed with "expected
// ':' and the type signature"), and MLIR's signed integer types (an int8 tensor descriptor's
// block is `tensor<128x64xsi8>`; it failed with "unknown type 'si8'").
TEST(TtgirConstructs, InlineAsmAndSignedIntegerTypes) {
  const std::string text =
      R"(#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%x: tensor<128xf32, #blocked> loc("x"(#loc)), %d: !tt.tensordesc<tensor<128xsi8>> loc("d"(#loc))) attributes {noinline = false} {
    %r = tt.elementwise_inline_asm "cvt.rna.tf32.f32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked> loc(#loc)
    %u = arith.constant 3 : ui16 loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("k.py":1:0)
)";
  Module m = parse_module(text, "k.ttgir");
  const Function& f = m.functions.at(0);
  const Op& asm_op = f.ops.at(0);
  EXPECT_EQ(asm_op.name, "tt.elementwise_inline_asm");
  ASSERT_NE(asm_op.attr("asm_string"), nullptr);
  EXPECT_EQ(asm_op.attr("asm_string")->text, "cvt.rna.tf32.f32 $0, $1;");
  EXPECT_EQ(asm_op.attr("constraints")->text, "=r,r");
  ASSERT_EQ(asm_op.operands.size(), 1u);
  EXPECT_EQ(f.value(asm_op.results.at(0)).type.str(), "tensor<128xf32, #blocked>");
  const Type& desc = f.value(f.args.at(1)).type;
  EXPECT_EQ(desc.str(), "!tt.tensordesc<tensor<128xsi8>>");
  EXPECT_EQ(desc.element_type().element_type().bits, 8);
  const Type& u16 = f.value(f.ops.at(1).results.at(0)).type;
  EXPECT_EQ(u16.kind, Type::Kind::Integer);
  EXPECT_EQ(u16.bits, 16);
  EXPECT_TRUE(module_from_json(to_json(m)) == m);
  EXPECT_THROW(
      parse_module(text.substr(0, text.find("ui16")) + "ui" + text.substr(text.find("ui16") + 4),
                   "k.ttgir"),
      Error);  // a bare `ui` is no type
}

}  // namespace
}  // namespace sched2cu::ttgir
