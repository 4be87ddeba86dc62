// Statement-IR tests: value references print through the namer (ages name carried copies), the
// zero-trip split duplicates the rest of its block (recursively, and inside nested loop bodies)
// and the printer refuses an unresolved split.
#include <gtest/gtest.h>

#include "sched2cu/common/diag.h"
#include "sched2cu/emit/stmt.h"

namespace {

using namespace sched2cu::emit;

std::string printed(const std::vector<Stmt>& body) {
  std::string out;
  print(
      body, 0, [](int v, int age) { return "v" + S(v) + (age ? "_c" + S(age) : ""); }, out);
  return out;
}

// Operands are value ids until printing; a reference with an age names the carried copy.
TEST(StmtText, ReferencesResolveWhenPrinting) {
  Text t = "acc = " + R(7) + " * " + Text::ref(3, 2) + ";";
  ASSERT_EQ(t.pieces().size(), 5u);
  EXPECT_EQ(t.pieces()[1].value, 7);
  EXPECT_EQ(t.pieces()[3].age, 2);
  std::vector<Stmt> body = {code(t, "node 4"), decl("AccTile<64, 128>", 9),
                            decl("int", 5, R(7) + " + 1", true)};
  EXPECT_EQ(printed(body),
            "acc = v7 * v3_c2;  // node 4\n"
            "AccTile<64, 128> v9;\n"
            "const int v5 = v7 + 1;\n");
  // Renaming is a lookup: re-age every reference without touching the text.
  for_each_ref(body[0], [](Text::Piece& p) { p.age += 1; });
  EXPECT_EQ(render(body[0].text, [](int v, int a) { return S(v) + ":" + S(a); }),
            "acc = 7:1 * 3:3;");
}

// Synchronization statements print through the runtime's ring API (one arrival per warp).
TEST(StmtPrint, RingProtocolStatements) {
  std::vector<Stmt> body = {ring_op(Stmt::Kind::WaitFull, "ring0_0", 4, "it0 + " + R(1), ""),
                            ring_op(Stmt::Kind::Arm, "ring0_0", 4, "it0", "", 49152),
                            ring_op(Stmt::Kind::Release, "ring0_0", 4, "it0 - 1", ""),
                            mma_wait(1, {R(4)}, "")};
  EXPECT_EQ(printed(body),
            "ring0_0->wait_full(it0 + v1);\n"
            "ring0_0->arm(it0, 49152u);\n"
            "if ((threadIdx.x % 32) == 0) ring0_0->release(it0 - 1);\n"
            "wgmma_wait<1>();\n"
            "wgmma_fence_operand(v4);\n");
}

// The synchronization kinds the protocol checker reads print exactly as the runtime spells them:
// inits, CTA and warpgroup syncs, bulk waits (guarded, and the one-line if of two of them).
TEST(StmtPrint, SynchronizationKinds) {
  Stmt two = if_("ch == 0", {bulk_wait(0, true)}, "", {bulk_wait(3, true)});
  two.one_line = true;
  std::vector<Stmt> body = {ring_init("ring0_0", 4, 1, 8, "c"),
                            bar_init("&fn_bar[0]", 1, ""),
                            sync_op(Stmt::Kind::InitFence),
                            sync_op(Stmt::Kind::CtaSync),
                            guarded("thread_idx_in_warpgroup() == 0", bulk_wait(0, false)),
                            two,
                            sync_op(Stmt::Kind::ProxyFence),
                            warpgroup_sync("1 + wg"),
                            named_bar(Stmt::Kind::NamedArrive, Text("5 + slice"), 256, ""),
                            trip_count("int", "T0", "K > 0 ? K : 0", 0, "")};
  EXPECT_EQ(printed(body),
            "ring0_0->init(1, 8);  // c\n"
            "mbar_init(&fn_bar[0], 1);\n"
            "mbar_fence_init();\n"
            "__syncthreads();\n"
            "if (thread_idx_in_warpgroup() == 0) tma_wait<0>();\n"
            "if (ch == 0) tma_wait_read<0>(); else tma_wait_read<3>();\n"
            "fence_proxy_async();\n"
            "warpgroup_sync(1 + wg);\n"
            "named_bar_arrive(5 + slice, 256);\n"
            "const int T0 = K > 0 ? K : 0;\n");
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

// Declarations nothing reads go (they would be nvcc warnings in every kernel); a declaration a
// later statement of its block reads, or whose initializer calls anything, stays.
TEST(DropUnusedDecls, RemovesOnlyPureDeclarationsNothingReads) {
  std::vector<Stmt> body = {
      decl("long long", 1, "1LL", true),                     // v1: unused
      decl("int", 2, "static_cast<int>(blockIdx.y)", true),  // v2: read only by v3
      decl("int", 3, R(2) + " * 4", true),                   // v3: unused, so v2 goes too
      decl("int", 4, "warpgroup_idx()", true),               // a call: stays
      decl("int", 5, "7", true),                             // v5: read below
      named_decl("int", "program_id_z", "static_cast<int>(blockIdx.z)", true),
      if_("wg == 0", {named_decl("uint32_t", "it0", "0", false), code("x = 1;")}, "role 0"),
      if_("wg == 1", {named_decl("uint32_t", "it0", "0", false), code("y = it0;")}, "role 1"),
      code(Text("use(") + R(5) + ");")};
  auto name = [](int v, int) { return "v" + S(v); };
  resolve_names(body, name);
  drop_unused_decls(body);
  const std::string out = printed(body);
  EXPECT_EQ(out.find("v1 ="), std::string::npos);
  EXPECT_EQ(out.find("v2 ="), std::string::npos);
  EXPECT_EQ(out.find("v3 ="), std::string::npos);
  EXPECT_EQ(out.find("program_id_z"), std::string::npos);
  EXPECT_NE(out.find("const int v4 = warpgroup_idx();"), std::string::npos);
  EXPECT_NE(out.find("const int v5 = 7;"), std::string::npos);
  // Each role's counter is its own: role 0's goes, role 1's stays.
  EXPECT_EQ(out.find("uint32_t it0 = 0;"), out.rfind("uint32_t it0 = 0;"));
  EXPECT_NE(out.find("y = it0;"), std::string::npos);
  EXPECT_GT(out.find("uint32_t it0 = 0;"), out.find("wg == 1"));
}
