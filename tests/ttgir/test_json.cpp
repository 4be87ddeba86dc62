// JSON round trip of the IR: parse -> to_json -> text -> from_json gives an equal module, the
// text is byte-stable, and corrupt documents are rejected with an Error (never dangling ids).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sched2cu::ttgir
