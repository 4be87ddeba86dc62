// Malformed and unsupported input: every failure is a sched2cu::Error whose message starts with
// the exact file:line:col of the problem. Must never accept these inputs silently.
#include <gtest/gtest.h>

#include "sched2cu/common/file_util.h"
#include "test_common.h"

namespace sched2cu::ttgir {
namespace {

const std::string kHead =
    "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
    "order = [0]}>\n"
    "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n"
    "  tt.func public @k(%x: i32 loc(\"k.py\":1:0)) {\n";
const std::string kTail =
    "    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n#loc = loc(\"k.py\":5:4)\n";

std::string error_of(const std::string& text) {
  try {
    Module m = parse_module(text, "t.ttgir");
    check_supported(m);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TtgirErrors, WellFormedBaselineParses) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32 loc(\"k.py\":2:3)\n" + kTail;
  EXPECT_EQ(error_of(text), "<no error>");
  Module m = parse_module(text, "t.ttgir");
  const Op& add = m.functions[0].op(0);
  EXPECT_EQ(add.loc.src.str(), "k.py:2:3");
  EXPECT_EQ(add.loc.ir.str(), "t.ttgir:4:5");
  EXPECT_EQ(m.functions[0].op(1).loc.src.str(), "k.py:5:4");  // alias defined after use
}

// MLIR prints an i1 constant as a bare bool, `arith.constant true` (Triton's layer-norm
// backward, for its lock); it was "arith.constant without a typed value".
TEST(TtgirErrors, BareBoolConstantIsAnI1) {
  std::string text = kHead + "    %t = arith.constant true loc(\"k.py\":2:3)\n" + kTail;
  EXPECT_EQ(error_of(text), "<no error>");
  Module m = parse_module(text, "t.ttgir");
  const Type& t = m.functions[0].value(m.functions[0].op(0).results.at(0)).type;
  EXPECT_EQ(t.kind, Type::Kind::Integer);
  EXPECT_EQ(t.bits, 1);
  EXPECT_EQ(t.str(), "i1");
}

// A `while` loop (scf.while, its regions `{ ... } do { ... }`) is refused at the op by name; the
// error was "expected an operation, found '{'" at the first brace.
TEST(TtgirErrors, WhileLoopIsRefusedByName) {
  std::string text = kHead +
                     "    scf.while : () -> () {\n"
                     "      %c = arith.cmpi eq, %x, %x : i32 loc(\"k.py\":2:3)\n"
                     "      scf.condition(%c) loc(\"k.py\":2:3)\n"
                     "    } do {\n"
                     "      scf.yield loc(\"k.py\":2:3)\n"
                     "    } loc(\"k.py\":2:3)\n" +
                     kTail;
  EXPECT_EQ(error_of(text).rfind("t.ttgir:4:5: error: scf.while (a Python `while` loop", 0), 0u)
      << error_of(text);
}

TEST(TtgirErrors, TruncatedFile) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32\n";
  EXPECT_EQ(error_of(text),
            "t.ttgir:5:1: error: unexpected end of file inside a region (missing '}')");
}

TEST(TtgirErrors, TruncatedInsideType) {
  std::string text = kHead + "    %0 = tt.splat %x : i32 -> tensor<128xi32, #blo";
  EXPECT_EQ(error_of(text),
            "t.ttgir:4:51: error: expected '>' closing tensor type, found end of file");
}

TEST(TtgirErrors, BadToken) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32\n    ) oops\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:5:5: error: expected an operation, found ')'");
}

TEST(TtgirErrors, UnknownType) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i33x\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:30: error: unknown type 'i33x'");
}

TEST(TtgirErrors, UndefinedValue) {
  std::string text = kHead + "    %0 = arith.addi %x, %y : i32\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:25: error: use of undefined value %y");
}

TEST(TtgirErrors, UndefinedLayoutAlias) {
  std::string text = kHead + "    %0 = tt.splat %x : i32 -> tensor<128xi32, #nope>\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:5: error: undefined attribute alias #nope");
}

TEST(TtgirErrors, UndefinedLocationAlias) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32 loc(#loc9)\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:38: error: undefined location alias #loc9");
}

TEST(TtgirErrors, ResultTypeCountMismatch) {
  std::string text = kHead + "    %0:2 = arith.addi %x, %x : i32\n" + kTail;
  EXPECT_EQ(error_of(text),
            "t.ttgir:4:30: error: 'arith.addi' has 2 result(s) but 1 result type(s)");
}

// `%a, %b = tt.split %x : T -> R` prints one type for both halves (tl.split); it was refused as
// "'tt.split' has 2 result(s) but 1 result type(s)".
TEST(TtgirErrors, SplitHalvesShareTheOnePrintedType) {
  std::string text = kHead +
                     "    %t = tt.splat %x : i32 -> tensor<128x2xi32, #blocked2>\n"
                     "    %lo, %hi = tt.split %t : tensor<128x2xi32, #blocked2> -> "
                     "tensor<128xi32, #blocked>\n" +
                     kTail;
  text =
      "#blocked2 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], "
      "warpsPerCTA = [4, 1], order = [1, 0]}>\n" +
      text;
  Module m = parse_module(text, "t.ttgir");
  const Function& f = m.functions.at(0);
  const Op& split = f.op(1);
  ASSERT_EQ(split.name, "tt.split");
  ASSERT_EQ(split.results.size(), 2u);
  for (ValueId r : split.results) EXPECT_EQ(f.value(r).type.str(), "tensor<128xi32, #blocked>");
}

TEST(TtgirErrors, UnsupportedOpNamesSourceLine) {
  std::string text = kHead + "    %0 = arith.floordivsi %x, %x : i32 loc(\"k.py\":3:9)\n" + kTail;
  EXPECT_EQ(error_of(text),
            "t.ttgir:4:5: error: unsupported op 'arith.floordivsi' (from k.py:3:9)");
  Module m = parse_module(text, "t.ttgir");
  auto u = first_unsupported(m);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->op, 0);
  EXPECT_EQ(u->where.str(), "t.ttgir:4:5");
}

// Found by mutation (issue 12): a zero extent was a SIGFPE in `schedule`, a loop with results
// but no scf.yield an internal vector::_M_range_check error. Both are located errors now.
TEST(TtgirErrors, ZeroExtentTensorIsALocatedError) {
  std::string text = kHead +
                     "    %0 = tt.make_range {end = 0 : i32, start = 0 : i32} : tensor<0xi32, "
                     "#blocked> loc(\"k.py\":2:3)\n" +
                     kTail;
  const std::string e = error_of(text);
  EXPECT_EQ(e.rfind("t.ttgir:4:5: error: tensor shape of 'tensor<0xi32", 0), 0u) << e;
  EXPECT_NE(e.find("every extent must be 1..2^20"), std::string::npos) << e;
}

TEST(TtgirErrors, LoopWithResultsButNoYieldIsALocatedError) {
  std::string text = kHead +
                     "    %0 = scf.for %i = %x to %x step %x iter_args(%a = %x) -> (i32)  : i32 {\n"
                     "      %1 = arith.addi %a, %i : i32\n"
                     "    }\n" +
                     kTail;
  const std::string e = error_of(text);
  EXPECT_EQ(e.rfind("t.ttgir:4:5: error: scf.for with 1 result(s) whose body does not end", 0), 0u)
      << e;
}

TEST(TtgirErrors, ModuleAttributesOutsideTheTargetAreErrors) {
  const std::string body = "    %0 = arith.addi %x, %x : i32 loc(\"k.py\":2:3)\n" + kTail;
  auto with = [&](const std::string& attrs) {
    std::string head = kHead;
    const std::string from = "{\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"}";
    head.replace(head.find(from), from.size(), attrs);
    return error_of(head + body);
  };
  EXPECT_NE(with("{\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:80\"}")
                .find("target 'cuda:80' (only cuda:90"),
            std::string::npos);
  EXPECT_NE(with("{\"ttg.num-warps\" = 4 : i32, \"ttg.num-ctas\" = 2 : i32}")
                .find("ttg.num-ctas = 2 (only 1"),
            std::string::npos);
  EXPECT_NE(with("{\"ttg.num-warps\" = 0 : i32}").find("ttg.num-warps = 0 (must be 1..32"),
            std::string::npos);
  // Past 2^32 the value truncated into range (2^32 + 4 read as 4 warps).
  EXPECT_NE(with("{\"ttg.num-warps\" = 4294967300 : i32}")
                .find("ttg.num-warps = 4294967300 (must be 1..32"),
            std::string::npos);
}

TEST(TtgirErrors, ConstantLoopStepBelowOneIsAnError) {
  std::string text = kHead +
                     "    %c0 = arith.constant 0 : i32\n"
                     "    scf.for %i = %x to %x step %c0  : i32 {\n"
                     "      %1 = arith.addi %i, %i : i32\n"
                     "    }\n" +
                     kTail;
  const std::string e = error_of(text);
  EXPECT_EQ(e.rfind("t.ttgir:5:5: error: scf.for with the constant step 0 (must be >= 1)", 0), 0u)
      << e;
}

TEST(TtgirErrors, UnsupportedGenericOpInsideLoop) {
  std::string text = kHead +
                     "    scf.for %i = %x to %x step %x  : i32 {\n"
                     "      \"tt.print\"(%i) <{prefix = \"\"}> : (i32) -> ()\n"
                     "    }\n" +
                     kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:5:7: error: unsupported op 'tt.print'");
}

TEST(TtgirErrors, UnsupportedType) {
  std::string text = kHead + "    %0 = tt.splat %x : i32 -> !foo.bar<1>\n" + kTail;
  EXPECT_EQ(error_of(text),
            "t.ttgir:4:5: error: unsupported type '!foo.bar<1>' (result of 'tt.splat')");
}

TEST(TtgirErrors, DeepNestingIsAnErrorNotACrash) {
  std::string text = kHead + "    %0 = arith.constant " + std::string(5000, '[') + "\n" + kTail;
  EXPECT_NE(error_of(text).find("nesting deeper than"), std::string::npos);
}

TEST(TtgirErrors, NonUtf8StringIsRejected) {
  // Strings reach the JSON form, which must be UTF-8 (found by the fuzzer).
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32 loc(\"k\\ff.py\":1:1)\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:38: error: string is not valid UTF-8");
}

// Each alias used twice: 2^40 leaves if expanded naively (the parser hung; found by the fuzzer in
// CI). Resolution visits a bounded number of nodes and reports where the expansion started.
TEST(TtgirErrors, ExponentialLocationAliasesAreBounded) {
  std::string locs = "#l0 = loc(\"k.py\":1:1)\n";
  for (int i = 1; i <= 40; ++i)
    locs += "#l" + std::to_string(i) + " = loc(callsite(#l" + std::to_string(i - 1) + " at #l" +
            std::to_string(i - 1) + "))\n";
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32 loc(#l40)\n" + kTail + locs;
  EXPECT_EQ(error_of(text), "t.ttgir:4:38: error: location expands to more than 10000 nodes");
}

// Raw bytes outside strings reached the JSON form verbatim inside a type's spelling, and the
// JSON writer threw (found by the fuzzer). Any invalid UTF-8 in the file is rejected up front.
TEST(TtgirErrors, NonUtf8BytesOutsideStringsAreRejected) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32\xff\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:4:33: error: invalid UTF-8 byte 0xFF");
  text = kHead + "    %0 = arith.addi %x, %x : i32 loc(\"k\xc3\xa9.py\":2:3)\n" + kTail;
  EXPECT_EQ(error_of(text), "<no error>");  // valid UTF-8 (e-acute) is fine
}

// A NUL byte was read as the end of the input: "unexpected end of file inside a region (missing
// '}')" at a line with more text after it. It is named where it is.
TEST(TtgirErrors, NulByteIsNamedWhereItIs) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32";
  text += '\0';
  text += "\n" + kTail;
  EXPECT_EQ(error_of(text),
            "t.ttgir:4:33: error: NUL byte (0x00) in the input: a TTGIR file is text");
}

TEST(TtgirErrors, MissingFile) { EXPECT_THROW(parse_file("/nonexistent/x.ttgir"), Error); }

TEST(TtgirErrors, EveryPrefixOfAFixtureFailsCleanly) {
  // Truncation anywhere is an Error, never a crash or an accepted partial module.
  std::string text = read_file(test::example("case1_simple_gemm"));
  size_t module_end = text.find("\n} loc(#loc)");
  ASSERT_NE(module_end, std::string::npos);
  for (size_t n = 0; n < module_end; n += 7) {
    try {
      parse_module(std::string_view(text).substr(0, n), "t.ttgir");
      ADD_FAILURE() << "prefix of " << n << " bytes parsed";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("t.ttgir:", 0), 0u) << e.what();
    }
  }
}

// Found by mutation (issue 12): a function without tt.return, a yield or return outside the end
// of its block, an empty loop (eight nested empty loops were a std::bad_alloc in `schedule`) and
// a module without its target attributes were all accepted.
TEST(TtgirErrors, MissingReturnIsAnError) {
  std::string text = kHead + "    %0 = arith.addi %x, %x : i32 loc(\"k.py\":2:3)\n" +
                     "  } loc(#loc)\n} loc(#loc)\n#loc = loc(\"k.py\":5:4)\n";
  EXPECT_EQ(error_of(text), "t.ttgir:3:11: error: function @k does not end with tt.return");
}

TEST(TtgirErrors, TerminatorsOnlyEndTheirBlock) {
  const std::string early = kHead + "    tt.return loc(#loc)\n" +
                            "    %0 = arith.addi %x, %x : i32 loc(\"k.py\":2:3)\n" + kTail;
  EXPECT_EQ(error_of(early),
            "t.ttgir:4:5: error: 'tt.return' that is not the last op of the function body (from "
            "k.py:5:4)");
  const std::string yield_in_body = kHead + "    scf.yield loc(#loc)\n" + kTail;
  EXPECT_EQ(error_of(yield_in_body),
            "t.ttgir:4:5: error: 'scf.yield' that is not the last op of the region of its "
            "scf.for or scf.if (from k.py:5:4)");
  const std::string return_in_loop = kHead + "    scf.for %i = %x to %x step %x  : i32 {\n" +
                                     "      tt.return loc(#loc)\n    }\n" + kTail;
  EXPECT_EQ(error_of(return_in_loop),
            "t.ttgir:5:7: error: 'tt.return' that is not the last op of the function body (from "
            "k.py:5:4)");
}

TEST(TtgirErrors, EmptyLoopIsAnError) {
  std::string text = kHead + "    scf.for %i = %x to %x step %x  : i32 {\n" +
                     "      scf.for %j = %x to %x step %x  : i32 {\n      }\n    }\n" + kTail;
  EXPECT_EQ(error_of(text), "t.ttgir:5:7: error: scf.for with an empty body (nothing to schedule)");
}

TEST(TtgirErrors, ModuleWithoutTargetAttributesIsAnError) {
  auto without = [&](const std::string& attr) {
    std::string text = kHead + "    %0 = arith.addi %x, %x : i32\n" + kTail;
    text.erase(text.find(attr), attr.size());
    return error_of(text);
  };
  EXPECT_EQ(without(", ttg.target = \"cuda:90\""),
            "t.ttgir: error: no ttg.target module attribute (only cuda:90, Hopper)");
  EXPECT_EQ(without("\"ttg.num-warps\" = 4 : i32, "),
            "t.ttgir: error: no ttg.num-warps module attribute");
}

// parse_type / parse_attribute read what Type::str() and Attribute::str() print, including the
// prefix-less dialect attribute of an op's custom form (`fastmath<fast>`).
TEST(TtgirParse, TypesAndAttributesReadBackFromTheirSpelling) {
  Module m = parse_file(test::example("case3_FA"));
  int n = 0;
  for (const Function& f : m.functions) {
    for (const Value& v : f.values) {
      EXPECT_EQ(parse_type(v.type.str(), "t"), v.type) << v.type.str();
      ++n;
    }
    for (const Op& o : f.ops)
      for (const auto& [k, a] : o.attrs) EXPECT_EQ(parse_attribute(a.str(), "t"), a) << a.str();
  }
  EXPECT_GT(n, 50);
  const Attribute fm = parse_attribute("fastmath<fast>", "t");
  EXPECT_EQ(fm.kind, Attribute::Kind::Dialect);
  EXPECT_EQ(fm.str(), "fastmath<fast>");
  EXPECT_THROW(parse_type("tensor<128xf16> x", "t"), Error);
  EXPECT_THROW(parse_attribute("1); system(\"x\"", "t"), Error);
}

// Found by mutation (issue 12): a layout edited to another rank (sizePerThread of one entry on a
// 2-D tensor) or to other warps than the module's was emitted from, read past its end.
TEST(TtgirErrors, LayoutsTritonWouldNotBuildAreErrors) {
  auto with_layout = [&](const std::string& blocked, const std::string& type) {
    std::string text =
        kHead + "    %0 = tt.splat %x : i32 -> " + type + " loc(\"k.py\":2:3)\n" + kTail;
    text.replace(text.find("#ttg.blocked<"), text.find(">\n") + 1 - text.find("#ttg.blocked<"),
                 blocked);
    return error_of(text);
  };
  const std::string ok =
      "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
  EXPECT_EQ(with_layout(ok, "tensor<128xi32, #blocked>"), "<no error>");
  EXPECT_EQ(with_layout(ok, "tensor<8x16xi32, #blocked>"),
            "t.ttgir:4:5: error: layout of 'tensor<8x16xi32, #blocked>': a layout of rank 1 on a "
            "tensor of rank 2 (from k.py:2:3)");
  EXPECT_NE(with_layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = "
                        "[8], order = [0]}>",
                        "tensor<128xi32, #blocked>")
                .find("warpsPerCTA must multiply to ttg.num-warps = 4"),
            std::string::npos);
  EXPECT_NE(with_layout("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA "
                        "= [4], order = [0]}>",
                        "tensor<128xi32, #blocked>")
                .find("#ttg.blocked parameters of different ranks"),
            std::string::npos);
  EXPECT_NE(with_layout(ok, "tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>")
                .find("#ttg.slice of a rank-1 layout"),
            std::string::npos);
}

// Found by the fuzzer (the JSON round trip of a parsed module failed): an undefined alias as a
// memdesc's memory space, or in an op's attribute, was parsed; only layouts were checked.
TEST(TtgirErrors, EveryAliasAnywhereMustBeDefined) {
  EXPECT_EQ(error_of(kHead +
                     "    %0 = tt.splat %x : i32 -> !ttg.memdesc<128xi32, #blocked, #nosuch> "
                     "loc(\"k.py\":2:3)\n" +
                     kTail),
            "t.ttgir:4:5: error: undefined attribute alias #nosuch");
  EXPECT_EQ(error_of(kHead + "    %0 = arith.addi %x, %x {foo = [#nosuch]} : i32\n" + kTail),
            "t.ttgir:4:5: error: undefined attribute alias #nosuch");
}

}  // namespace
}  // namespace sched2cu::ttgir
