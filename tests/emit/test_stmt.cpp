// Statement-IR tests: the zero-trip split duplicates the rest of its block (recursively, and
// inside nested loop bodies) and the printer refuses an unresolved split.
#include <gtest/gtest.h>

#include "sched2cu/common/diag.h"
#include "stmt.h"

namespace {

using namespace sched2cu::emit;

std::string printed(const std::vector<Stmt>& body) {
  std::string out;
  print(body, 0, out);
  return out;
}

TEST(ZeroTripSplit, DuplicatesTheRestOfTheBlock) {
  std::vector<Stmt> body = {code("loop();"),
                            zero_trip_split("it == it_start", {code("fill();")}, ""),
                            code("epilogue(acc);"), code("exit();")};
  split_zero_trip(body);
  EXPECT_EQ(printed(body),
            "loop();\n"
            "if (it == it_start) {\n"
            "  fill();\n"
            "  epilogue(acc);\n"
            "  exit();\n"
            "} else {\n"
            "  epilogue(acc);\n"
            "  exit();\n"
            "}\n");
}

// A persistent kernel: the split sits in the outer loop's body and duplicates only the rest of
// that body; a second loop's split further down is resolved in both copies.
TEST(ZeroTripSplit, NestedAndRepeated) {
  std::vector<Stmt> outer = {code("a();"), zero_trip_split("i == s", {code("f1();")}, ""),
                             code("b();"), zero_trip_split("j == t", {code("f2();")}, ""),
                             code("c();")};
  std::vector<Stmt> body = {for_("int x = 0", "x < n", "++x", outer), code("done();")};
  split_zero_trip(body);
  EXPECT_EQ(printed(body),
            "for (int x = 0; x < n; ++x) {\n"
            "  a();\n"
            "  if (i == s) {\n"
            "    f1();\n"
            "    b();\n"
            "    if (j == t) {\n"
            "      f2();\n"
            "      c();\n"
            "    } else {\n"
            "      c();\n"
            "    }\n"
            "  } else {\n"
            "    b();\n"
            "    if (j == t) {\n"
            "      f2();\n"
            "      c();\n"
            "    } else {\n"
            "      c();\n"
            "    }\n"
            "  }\n"
            "}\n"
            "done();\n");
}

TEST(ZeroTripSplit, UnresolvedSplitIsAnInternalError) {
  std::vector<Stmt> body = {zero_trip_split("c", {}, "loop 0")};
  EXPECT_THROW(printed(body), sched2cu::Error);
}

}  // namespace
