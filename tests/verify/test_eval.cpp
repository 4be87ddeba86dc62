// The checker's expression evaluator: C++ integer semantics on the emitter's printed text, the
// leader thread's identity, unknown values that stay unknown, and parse errors that say so.
#include <gtest/gtest.h>

#include "eval.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::verify {
namespace {

TEST(VerifyEval, IntegerArithmeticLikeCpp) {
  Env e;
  e.push();
  e.declare("K", 1000);
  e.declare("c64", 64);
  EXPECT_EQ(eval("K > 0 ? (K - 0 + c64 - 1) / c64 : 0", e), 16);
  EXPECT_EQ(eval("-7 / 2", e), -3);  // truncation toward zero
  EXPECT_EQ(eval("-7 % 2", e), -1);
  EXPECT_EQ(eval("min(K, 12) + max(3, c64)", e), 12 + 64);
  EXPECT_EQ(eval("static_cast<int>(K) * 2u", e), 2000);
  EXPECT_EQ(eval("1LL << 40", e), 1LL << 40);
  EXPECT_EQ(eval("(it0 + (k0 - 1))", e), std::nullopt);  // undeclared: unknown
  // The runtime's signed ceiling division (arith.ceildivsi), as the kernel computes it.
  EXPECT_EQ(eval("ceil_div_signed<int>(K, c64)", e), 16);
  EXPECT_EQ(eval("ceil_div_signed<int>(-200, 132)", e), -1);
  EXPECT_EQ(eval("ceil_div_signed<long long>(-7, -2)", e), 4);
}

TEST(VerifyEval, LeaderThreadOfTheWarpgroup) {
  Env e;
  e.push();
  e.warpgroup = 2;
  EXPECT_EQ(eval("warpgroup_idx()", e), 2);
  EXPECT_EQ(eval("threadIdx.x == 0", e), 0);  // wg 2's leader is thread 256
  EXPECT_EQ(eval("(threadIdx.x % 32) == 0", e), 1);
  EXPECT_EQ(eval("warp_idx_in_warpgroup() == 0 && elect_one_sync()", e), 1);
  EXPECT_TRUE(reads_thread_identity("thread_idx_in_warpgroup() == 0"));
  EXPECT_FALSE(reads_thread_identity("slice == 0"));
}

TEST(VerifyEval, UnknownsOnlyDecideWhatTheyMust) {
  Env e;
  e.push();
  e.declare("u", std::nullopt);
  e.declare("one", 1);
  EXPECT_EQ(eval("u + 1", e), std::nullopt);
  EXPECT_EQ(eval("one || u", e), 1);  // a known side decides
  EXPECT_EQ(eval("0 && u", e), 0);
  EXPECT_EQ(eval("u ? 3 : 3", e), 3);
  EXPECT_EQ(eval("u ? 3 : 4", e), std::nullopt);
  EXPECT_EQ(eval("1.5f > 0", e), std::nullopt);  // floats are not modelled
  EXPECT_EQ(eval("one / 0", e), std::nullopt);
}

TEST(VerifyEval, ScopesShadowAndAssignTheInnermost) {
  Env e;
  e.push();
  e.declare("x", 1);
  e.push();
  e.declare("x", 2);
  EXPECT_EQ(eval("x", e), 2);
  EXPECT_TRUE(e.assign("x", 5));
  e.pop();
  EXPECT_EQ(eval("x", e), 1);
  EXPECT_FALSE(e.assign("y", 1));
}

TEST(VerifyEval, MalformedTextIsAnErrorNamingIt) {
  Env e;
  e.push();
  try {
    eval("(1 + 2", e);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("`(1 + 2`"), std::string::npos) << err.what();
  }
  EXPECT_THROW(eval("1 $ 2", e), Error);
}

}  // namespace
}  // namespace sched2cu::verify
