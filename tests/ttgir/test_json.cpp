// JSON round trip of the IR: parse -> to_json -> text -> from_json gives an equal module, the
// text is byte-stable, and corrupt documents are rejected with an Error naming the field (never
// dangling ids, never a module the parser could not have built).
#include <gtest/gtest.h>

#include <functional>

#include "sched2cu/ttgir/json.h"
#include "test_common.h"

namespace sched2cu::ttgir {
namespace {

class TtgirJson : public ::testing::TestWithParam<std::string> {};

TEST_P(TtgirJson, RoundTripIsLosslessAndStable) {
  Module m = parse_file(test::example(GetParam()));
  std::string text = to_json(m).dump(1);
  Module back = module_from_json(nlohmann::json::parse(text));
  EXPECT_TRUE(back == m);
  EXPECT_EQ(to_json(back).dump(1), text);
  EXPECT_EQ(to_json(parse_file(test::example(GetParam()))).dump(1), text);
  EXPECT_EQ(print_module(back), print_module(m));
}

INSTANTIATE_TEST_SUITE_P(Cases, TtgirJson,
                         ::testing::Values("case1_simple_gemm", "case3_FA", "case6_layernorm"));

TEST(TtgirJsonErrors, DanglingIdsAreRejected) {
  Module m = parse_file(test::example("case1_simple_gemm"));
  nlohmann::json j = to_json(m);
  j["functions"][0]["ops"][3]["operands"] = {9999};
  EXPECT_THROW(module_from_json(j), Error);
  nlohmann::json k = to_json(m);
  k["functions"][0]["values"][0]["type"]["kind"] = "vector";
  EXPECT_THROW(module_from_json(k), Error);
  nlohmann::json s = to_json(m);
  s["schema"] = "other";
  EXPECT_THROW(module_from_json(s), Error);
  EXPECT_THROW(module_from_json(nlohmann::json::object()), Error);
}

TEST(TtgirJsonErrors, TypeJsonHasReadableSpelling) {
  Module m = parse_file(test::example("case1_simple_gemm"));
  const Function& f = m.functions[0];
  nlohmann::json t = to_json(f.value(f.args[0]).type);
  EXPECT_EQ(t["str"], "!tt.ptr<f16>");
  EXPECT_EQ(t["kind"], "ptr");
  EXPECT_EQ(type_from_json(t), f.value(f.args[0]).type);
}

// Found by the fuzzer: an op's custom form reads any word followed by '<' as a prefix-less
// dialect attribute (`fastmath<fast>`), but the attribute reader took `f8E4M3FN<fast>` for a
// type followed by stray text, so the parsed module did not survive its JSON round trip.
TEST(TtgirJson, PrefixLessDialectAttributesRoundTrip) {
  const std::string text =
      "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n"
      "  tt.func public @k(%x: f32) {\n"
      "    %0 = arith.addf %x, %x f8E4M3FN<fast> : f32\n"
      "    %1 = arith.addf %x, %x true<x> : f32\n"
      "    tt.return\n  }\n}\n";
  const Module m = parse_module(text, "t.ttgir");
  EXPECT_TRUE(module_from_json(nlohmann::json::parse(to_json(m).dump())) == m);
  EXPECT_EQ(parse_attribute("f8E4M3FN<fast>", "t").kind, Attribute::Kind::Dialect);
  EXPECT_EQ(parse_attribute("f8E4M3FN", "t").kind, Attribute::Kind::TypeAttr);
}

std::string json_error(const nlohmann::json& j) {
  try {
    (void)module_from_json(j);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Found by mutation (issue 12): the reader took floats for integers (3.7 read as op 3), bools for
// numbers, null for lists, and fields that disagree with each other, and the emitter then
// crashed (SIGSEGV, SIGFPE) or emitted from what it was never given.
TEST(TtgirJsonErrors, FieldsOfTheWrongJsonTypeAreRejected) {
  const nlohmann::json base = to_json(parse_file(test::example("case1_simple_gemm")));
  auto with = [&](const nlohmann::json::json_pointer& p, const nlohmann::json& v) {
    nlohmann::json j = base;
    j[p] = v;
    return json_error(j);
  };
  using P = nlohmann::json::json_pointer;
  EXPECT_EQ(with(P("/functions/0/ops/3/id"), 3.7),
            "invalid TTGIR JSON: /functions/0/ops/3/id: expected an integer");
  EXPECT_EQ(with(P("/functions/0/values/0/type/bits"), true),
            "invalid TTGIR JSON: /functions/0/values/0/type/bits: expected an integer");
  EXPECT_EQ(with(P("/functions/0/ops/3/attrs"), nullptr),
            "invalid TTGIR JSON: /functions/0/ops/3/attrs: expected an array");
  EXPECT_EQ(with(P("/functions/0/ops/3/operands/0"), 4294967296LL),
            "invalid TTGIR JSON: /functions/0/ops/3/operands/0: integer out of range");
  EXPECT_EQ(with(P("/functions/0/ops/3/loc/src"), nlohmann::json::array({"k.py", 1})),
            "invalid TTGIR JSON: /functions/0/ops/3/loc/src: expected [file, line, column]");
  nlohmann::json deep = {{"kind", "array"}};
  for (int i = 0; i < 300; ++i) deep = {{"kind", "array"}, {"elems", {deep}}};
  EXPECT_NE(with(P("/attrs/0/1"), deep).find("nested deeper than 200 levels"), std::string::npos);
}

TEST(TtgirJsonErrors, ModulesTheParserCannotBuildAreRejected) {
  const Module m = parse_file(test::example("case1_simple_gemm"));
  const nlohmann::json base = to_json(m);
  const Function& f = m.functions[0];
  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = base;
    edit(j["functions"][0]);
    return json_error(j);
  };
  auto has = [](const std::string& e, const std::string& what) {
    return e.find(what) != std::string::npos;
  };
  // A tensor's shape deleted: its "str" still says 128x256.
  const ValueId acc = f.ops[5].results[0];
  EXPECT_TRUE(has(edited([&](auto& j) { j["values"][acc]["type"].erase("shape"); }),
                  "differs from the type its fields give"));
  // ... and with "str" gone too, the bits no longer agree with the name.
  EXPECT_TRUE(has(edited([&](auto& j) {
                    j["values"][acc]["type"]["elem"]["bits"] = 16;
                    j["values"][acc]["type"].erase("str");
                    j["values"][acc]["type"]["elem"].erase("str");
                  }),
                  "the type's fields do not make the type its spelling"));
  // A constant whose text is not a literal (it is printed into the generated C++).
  EXPECT_TRUE(has(edited([&](auto& j) { j["ops"][0]["attrs"][0][1]["text"] = "1); system(\"x\""; }),
                  "is not one the parser reads"));
  // An op used before it is defined, an op listed out of program order, a lost result, a wrong
  // use list, a block argument claiming another owner.
  const OpId dot = [&] {
    for (const Op& o : f.ops)
      if (o.name == "ttng.warp_group_dot") return o.id;
    return OpId{-1};
  }();
  ASSERT_GE(dot, 0);
  OpId first_use = 0;
  while (f.ops[first_use].operands.empty()) ++first_use;
  EXPECT_TRUE(
      has(edited([&](auto& j) { j["ops"][first_use]["operands"][0] = f.ops[dot].results[0]; }),
          "which is not defined before it in scope"));
  EXPECT_TRUE(has(edited([&](auto& j) {
                    auto& top = j["body"][0]["ops"];
                    std::swap(top[0], top[1]);
                  }),
                  "comes in program order"));
  // Found by the graph fuzzer: segments whose int sum overflows. INT_MAX + INT_MAX + (n + 2)
  // wraps to n, the operand count, in 32 bits: a wrapping sum took the segments for valid.
  const OpId seg_op = [&] {
    for (const Op& o : f.ops)
      if (o.operand_segments.size() >= 3) return o.id;
    return OpId{-1};
  }();
  ASSERT_GE(seg_op, 0);
  const auto n = static_cast<int>(f.ops[seg_op].operands.size());
  EXPECT_TRUE(has(edited([&](auto& j) {
                    auto& segs = j["ops"][seg_op]["segments"];
                    segs[0] = 2147483647;
                    segs[1] = 2147483647;
                    segs[2] = n + 2;
                    for (size_t k = 3; k < segs.size(); ++k) segs[k] = 0;
                  }),
                  "operand segments that do not add up"));
  EXPECT_TRUE(has(edited([&](auto& j) { j["ops"][5]["results"] = nlohmann::json::array(); }),
                  "result 0 is not the next value defined"));
  EXPECT_TRUE(has(edited([&](auto& j) { j["values"][0]["users"] = nlohmann::json::array(); }),
                  "its use list is not its uses"));
  // An alias a type names, deleted.
  nlohmann::json j = base;
  for (size_t i = 0; i < j["aliases"].size(); ++i)
    if (j["aliases"][i][0] == "mma") j["aliases"].erase(i);
  EXPECT_TRUE(has(json_error(j), "undefined attribute alias #mma"));
}

}  // namespace
}  // namespace sched2cu::ttgir
