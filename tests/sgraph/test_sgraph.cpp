// Schedule-graph tests: byte-identical write -> read -> write on the committed fixture, parse
// errors with file:line:col, schema errors with the JSON path, and the validator catching each
// kind of broken reference and violated dependence.
#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <functional>

#include "sched2cu/abi.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/sgraph/validate.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::sgraph;
const fs::path kFixture =
    fs::path(SCHED2CU_SOURCE_DIR) / "tests/emit/case1_handwritten.schedule_graph.json";

std::string error_of(const std::string& text) {
  try {
    from_json_text(text, "g.json");
  } catch (const sched2cu::Error& e) {
    return e.what();
  }
  return "";
}

bool has_problem(const ScheduleGraph& g, const std::string& path, const std::string& what) {
  for (const auto& p : check(g))
    if (p.path == path && p.message.find(what) != std::string::npos) return true;
  return false;
}

TEST(SgraphJson, RoundTripIsByteIdentical) {
  std::string text = sched2cu::read_file(kFixture);
  ScheduleGraph g = from_json_text(text, kFixture.string());
  EXPECT_EQ(to_json_text(g), text);
  EXPECT_EQ(to_json_text(from_json_text(to_json_text(g), "again")), text);
}

// Every committed schedule graph (written by `sched2cu schedule`) round-trips byte for byte and
// validates.
TEST(SgraphJson, ExamplesRoundTripAndValidate) {
  fs::path root = fs::path(SCHED2CU_SOURCE_DIR) / "examples";
  int seen = 0;
  if (fs::exists(root))
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().filename() != "schedule_graph.json") continue;
      ++seen;
      std::string text = sched2cu::read_file(e.path());
      ScheduleGraph g = from_json_text(text, e.path().string());
      EXPECT_EQ(to_json_text(g), text) << e.path();
      for (const auto& p : check(g))
        ADD_FAILURE() << e.path() << ": " << p.path << ": " << p.message;
    }
  if (seen == 0) GTEST_SKIP() << "no committed schedule_graph.json under examples/";
}

TEST(SgraphJson, FixtureIsValid) {
  ScheduleGraph g = read_schedule_graph(kFixture);
  auto problems = check(g);
  for (const auto& p : problems) ADD_FAILURE() << p.path << ": " << p.message;
}

TEST(SgraphJson, SyntaxErrorHasLineAndColumn) {
  std::string m = error_of("{\n  \"schema\": \"sched2cu.schedule_graph\",\n  \"version\": 1,,\n}");
  EXPECT_NE(m.find("g.json:3:"), std::string::npos) << m;
  EXPECT_NE(m.find("invalid JSON"), std::string::npos) << m;
}

TEST(SgraphJson, TruncatedFileIsAnError) {
  std::string text = sched2cu::read_file(kFixture);
  std::string m = error_of(text.substr(0, text.size() / 2));
  EXPECT_NE(m.find("g.json:"), std::string::npos) << m;
}

TEST(SgraphJson, SchemaErrorsNameTheJsonPath) {
  std::string text = sched2cu::read_file(kFixture);
  auto mutate = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    auto p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return error_of(t.replace(p, from.size(), to));
  };
  std::string m = mutate("\"ii\": 1024", "\"ii\": \"fast\"");
  EXPECT_NE(m.find("/loops/0/ii: expected an integer"), std::string::npos) << m;
  m = mutate("\"version\": 2", "\"version\": 99");
  EXPECT_NE(m.find("/version: unsupported schema version 99"), std::string::npos) << m;
  m = mutate("\"stage\": 0", "\"stagee\": 0");
  EXPECT_NE(m.find("/loops/0/nodes/0/stage: missing field"), std::string::npos) << m;
  m = mutate("\"pingpong\": false", "\"pingpong\": 0");
  EXPECT_NE(m.find("/launch/roles/0/pingpong: expected true or false"), std::string::npos) << m;
  m = mutate("{\"param\": \"M\"}", "{\"parameter\": \"M\"}");
  EXPECT_NE(m.find("unknown grid expression \"parameter\""), std::string::npos) << m;
  m = mutate("{\"int\": 1}", "\"1\"");  // the version-1 string form
  EXPECT_NE(m.find("/launch/grid/2: expected an object with one key"), std::string::npos) << m;
  EXPECT_NE(error_of("[1, 2]").find("expected an object"), std::string::npos);
  // Integers past 2^63 are held unsigned by the JSON library and wrapped to negatives (2^64 - 1
  // read as -1, accepted); a float where an integer belongs is no integer.
  m = mutate("\"ii\": 1024", "\"ii\": 18446744073709551615");
  EXPECT_NE(m.find("/loops/0/ii: integer out of range"), std::string::npos) << m;
  m = mutate("{\"int\": 1}", "{\"int\": 18446744073709551615}");
  EXPECT_NE(m.find("/launch/grid/2/int: integer out of range"), std::string::npos) << m;
  m = mutate("\"ii\": 1024", "\"ii\": 1024.5");
  EXPECT_NE(m.find("/loops/0/ii: expected an integer"), std::string::npos) << m;
}

// The generated launcher's products: three i32 arguments overflow long long; the product
// saturates towards its sign, so that the launcher's extent check refuses the grid (it wrapped
// to a small positive or a negative grid before, launching the wrong programs or none).
TEST(GridExpr, HostProductsSaturateInsteadOfWrapping) {
  const long long big = 2147483647LL;
  EXPECT_EQ(sched2cu_host_mul(3, -4), -12);
  EXPECT_EQ(sched2cu_host_mul(sched2cu_host_mul(big, big), big), LLONG_MAX);
  EXPECT_EQ(sched2cu_host_mul(sched2cu_host_mul(big, big), -big), LLONG_MIN);
  EXPECT_EQ(sched2cu_host_mul(sched2cu_host_mul(-big, big), -big), LLONG_MAX);
}

// The launcher's cluster for a split loop: two CTAs per program where the programs leave half the
// SMs idle and each CTA keeps at least 32 iterations (the sum's cost, measured on an H100).
TEST(GridExpr, SplitNeedsIdleSmsAndALongShareOfTheLoop) {
  // case1 / case5 on 132 SMs at 1024^3: 32 programs, 16 iterations: not split (4-way ran 5.8x
  // slower than the hand-written kernel).
  EXPECT_EQ(sched2cu_host_split(32, 132, 4, 16, 4), 1u);
  // case5 at 1024x1024x16384 (256 iterations) and case7 at (16384, 1024, 1024): two ways.
  EXPECT_EQ(sched2cu_host_split(32, 132, 4, 256, 4), 2u);
  EXPECT_EQ(sched2cu_host_split(64, 132, 4, 256, 5), 2u);
  EXPECT_EQ(sched2cu_host_split(64, 132, 4, 63, 5), 1u);  // 31 iterations a CTA: too few
  EXPECT_EQ(sched2cu_host_split(64, 132, 4, 64, 5), 2u);  // case7 at (4096, 1024, 1024): 32 each
  EXPECT_EQ(sched2cu_host_split(2, 132, 4, 2, 4), 1u);      // 256x256x128: two iterations in all
  EXPECT_EQ(sched2cu_host_split(67, 132, 4, 1000, 4), 1u);  // 2 x 67 CTAs do not fit
  EXPECT_EQ(sched2cu_host_split(32, 132, 4, -1, 4), 1u);    // trip count not known on the host
  EXPECT_EQ(sched2cu_host_split(32, 132, 1, 1000, 4), 1u);
  EXPECT_EQ(sched2cu_host_split(32, 132, 2, 150, 100), 1u);  // a deeper minimum share wins
}

// Grid expressions: the text form --grid accepts, its printing (minimal parentheses), the host
// C++ form, and located errors for bad text.
TEST(GridExpr, ParsePrintAndHostForm) {
  GridExpr e = parse_grid_expr("cdiv(N_CTX, 128)", "t");
  EXPECT_EQ(e.kind, GridExpr::Kind::Cdiv);
  EXPECT_EQ(to_text(e), "cdiv(N_CTX, 128)");
  EXPECT_EQ(to_cxx(e, "arg_", "sms"), "((arg_N_CTX + 128LL - 1) / 128LL)");
  EXPECT_EQ(to_text(parse_grid_expr(" Z*H ", "t")), "Z * H");
  GridExpr clamp = parse_grid_expr("min(132, cdiv(M,128) * cdiv(N, 256))", "t");
  EXPECT_EQ(clamp.kind, GridExpr::Kind::Min);
  EXPECT_EQ(to_text(clamp), "min(132, cdiv(M, 128) * cdiv(N, 256))");
  EXPECT_EQ(to_cxx(parse_grid_expr("min(132, T)", "t"), "arg_", "sms"),
            "sched2cu_host_min(132LL, arg_T)");
  auto at = [](long long m) { return [m](const std::string&) { return m; }; };
  EXPECT_EQ(evaluate(clamp, at(1024), 132), 32);   // 8 x 4 tiles
  EXPECT_EQ(evaluate(clamp, at(8192), 132), 132);  // 2048 tiles: the step
  EXPECT_EQ(to_cxx(parse_grid_expr("A * B * C", "t"), "arg_", "sms"),
            "sched2cu_host_mul(sched2cu_host_mul(arg_A, arg_B), arg_C)");
  EXPECT_EQ(to_text(parse_grid_expr("(A - B) - (C - D)", "t")), "A - B - (C - D)");
  EXPECT_EQ(to_text(parse_grid_expr("A * (B + 2)", "t")), "A * (B + 2)");
  EXPECT_TRUE(uses_num_sms(parse_grid_expr("min_sms_not_a_word + num_sms", "t")));
  std::vector<std::string> ps;
  collect_params(parse_grid_expr("cdiv(M, 128) * Z", "t"), ps);
  EXPECT_EQ(ps, (std::vector<std::string>{"M", "Z"}));
  auto err = [](const std::string& text) {
    try {
      parse_grid_expr(text, "--grid");
    } catch (const sched2cu::Error& ex) {
      return std::string(ex.what());
    }
    return std::string();
  };
  EXPECT_NE(err("cdiv(M 128)").find("column 8: expected ',' in cdiv(a, b)"), std::string::npos)
      << err("cdiv(M 128)");
  EXPECT_NE(err("M *").find("expected a number"), std::string::npos);
  EXPECT_NE(err("M $ 2").find("unexpected text after the expression"), std::string::npos);
}

// evaluate() computes what the generated launcher's host form computes: truncating division,
// cdiv rounding up, the SM count as given, parameters by name; a division by zero or an
// overflow is an error naming the expression, never a wrapped grid.
TEST(GridExpr, EvaluatesLikeTheHostForm) {
  auto param = [](const std::string& n) -> long long {
    if (n == "M") return 1000;
    if (n == "Z") return 3;
    if (n == "ZERO") return 0;
    if (n == "BIG") return 1LL << 62;
    throw sched2cu::Error("no parameter " + n);
  };
  auto ev = [&](const std::string& t) { return evaluate(parse_grid_expr(t, "t"), param, 264); };
  EXPECT_EQ(ev("cdiv(M, 128)"), 8);
  EXPECT_EQ(ev("M / 128"), 7);
  EXPECT_EQ(ev("cdiv(M, 125)"), 8);
  EXPECT_EQ(ev("Z * cdiv(M, 128) - 4 + 1"), 21);
  EXPECT_EQ(ev("num_sms"), 264);
  EXPECT_EQ(ev("132"), 132);
  auto err = [&](const std::string& t) {
    try {
      ev(t);
    } catch (const sched2cu::Error& ex) {
      return std::string(ex.what());
    }
    return std::string();
  };
  EXPECT_EQ(err("cdiv(M, ZERO)"), "grid expression cdiv(M, ZERO): division by zero");
  EXPECT_EQ(err("BIG * 4"), "grid expression BIG * 4 overflows");
  EXPECT_EQ(err("cdiv(M, X)"), "no parameter X");
}

TEST(SgraphValidate, CatchesBrokenSchedules) {
  ScheduleGraph base = read_schedule_graph(kFixture);
  {
    // Epilogue staging (buffer 2 stages the [128, 256] f16 C store): a 2-deep ring of
    // 64-column subtiles is valid; a width that does not divide 256, or a 1-deep subtile, is not.
    ScheduleGraph g = base;
    ASSERT_EQ(g.buffers[2].loop, -1);
    g.buffers[2].shape = {128, 64};
    g.buffers[2].bytes = 16384;
    g.buffers[2].depth = 2;
    EXPECT_FALSE(has_problem(g, "/buffers/2/shape", ""));
    EXPECT_FALSE(has_problem(g, "/buffers/2/depth", ""));
    g.buffers[2].depth = 1;
    EXPECT_TRUE(has_problem(g, "/buffers/2/depth", "depth >= 2"));
    g.buffers[2].depth = 2;
    g.buffers[2].shape = {128, 96};
    g.buffers[2].bytes = 24576;
    EXPECT_TRUE(has_problem(g, "/buffers/2/shape", "column subtile"));
    g.buffers[2].shape = {64, 64};
    g.buffers[2].bytes = 8192;
    EXPECT_TRUE(has_problem(g, "/buffers/2/shape", "column subtile"));
    g.buffers[2] = base.buffers[2];
    g.buffers[2].depth = 2;
    EXPECT_TRUE(has_problem(g, "/buffers/2/depth", "whole-tile staging"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].nodes[4].cycle = 100;  // dot before its operands are ready
    EXPECT_TRUE(has_problem(g, "/loops/0/edges/2", "dependence violated"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].nodes[2].stage = 1;
    EXPECT_TRUE(has_problem(g, "/loops/0/nodes/2/stage", "cycle / II"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[0].depth = 0;
    g.loops[0].rings[0].depth = 0;
    EXPECT_TRUE(has_problem(g, "/buffers/0/depth", "at least 1"));
    EXPECT_TRUE(has_problem(g, "/loops/0/rings/0/depth", "at least 1"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[1].ring = 3;
    EXPECT_TRUE(has_problem(g, "/buffers/1/ring", "no such ring"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].edges[0].dst = 9;
    EXPECT_TRUE(has_problem(g, "/loops/0/edges/0", "not a node"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].channels[0].empty_arrivals = 2;
    EXPECT_TRUE(has_problem(g, "/loops/0/channels/0/empty_arrivals", "warps (8)"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].channels[0].expect_bytes = 16384;
    EXPECT_TRUE(has_problem(g, "/loops/0/channels/0/expect_bytes", "49152"));
  }
  {
    ScheduleGraph g = base;
    g.launch.roles[1].regs = 236;
    EXPECT_TRUE(has_problem(g, "/launch/roles/1/regs", "multiple of 8"));
    g.launch.roles[1].regs = 256;
    g.launch.roles[0].regs = 256;
    EXPECT_TRUE(has_problem(g, "/launch/roles", "register budget"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].nodes[0].op = g.loops[0].op;  // the loop itself is not in its own body
    EXPECT_TRUE(has_problem(g, "/loops/0/nodes/0/op", "not in this loop's body"));
  }
  {
    ScheduleGraph g = base;
    g.kernel.params[0].value = 3;
    EXPECT_TRUE(has_problem(g, "/kernel/params/0/value", "argument 0"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[0].bytes = 100;
    EXPECT_TRUE(has_problem(g, "/buffers/0/bytes", "16384"));
  }
  {
    ScheduleGraph g = base;
    g.launch.grid[0] =
        GridExpr::binary(GridExpr::Kind::Cdiv, GridExpr::parameter("Q"), GridExpr::integer(128));
    EXPECT_TRUE(has_problem(g, "/launch/grid/0", "\"Q\", which is not a kernel parameter"));
  }
  {
    ScheduleGraph g = base;
    g.launch.roles[0].pingpong = true;  // a producer of one warpgroup cannot take turns
    EXPECT_TRUE(has_problem(g, "/launch/roles/0/pingpong", "consumer role of at least two"));
    g.launch.roles[0].pingpong = false;
    g.launch.roles[1].pingpong = true;
    EXPECT_FALSE(has_problem(g, "/launch/roles/1/pingpong", ""));
  }
  {
    ScheduleGraph g = base;
    FnChannel ch;
    ch.buffer = 2;  // the store staging buffer is not a resident TMA load
    ch.producer_role = 0;
    ch.consumer_role = 1;
    ch.mechanism = "tma";
    ch.expect_bytes = 1;
    g.channels.push_back(ch);
    EXPECT_TRUE(has_problem(g, "/channels/0/buffer", "ttg.local_alloc of a TMA load"));
    EXPECT_TRUE(has_problem(g, "/channels/0/expect_bytes", "65536"));
    g.channels[0].buffer = 0;  // a ring buffer of loop 0
    EXPECT_TRUE(has_problem(g, "/channels/0/buffer", "function-scope buffer"));
  }
  EXPECT_THROW(validate(
                   [&] {
                     ScheduleGraph g = base;
                     g.loops[0].ii = 10;
                     return g;
                   }(),
                   "g.json"),
               sched2cu::Error);
}

}  // namespace

namespace {

// Found by mutation (issue 12): a grid "0" launched nothing and reported success, and a newline
// in a role name or kernel.source was pasted into the generated C++.
TEST(SgraphValidate, StagingFillIsALoadOfTheStoredTileIntoSubtileSlots) {
  const ScheduleGraph base = read_schedule_graph(fs::path(SCHED2CU_SOURCE_DIR) /
                                                 "examples/case5_addmm_bias/schedule_graph.json");
  // case5: buffer 0 stages the C store as 2 x [128, 64]; op 43 loads the bias tile.
  ASSERT_EQ(base.buffers[0].fill_op, 43);
  EXPECT_TRUE(check(base).empty());
  {
    ScheduleGraph g = base;
    g.buffers[0].fill_op = g.buffers[0].producer_op;  // the store itself
    EXPECT_TRUE(has_problem(g, "/buffers/0/fill_op", "a fill is a tt.descriptor_load"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[1].fill_op = 43;  // the A ring: not the staging of a store
    EXPECT_TRUE(has_problem(g, "/buffers/1/fill_op", "only the staging of a tt.descriptor_store"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[0].fill_op = 35;  // the A tile load: [128, 64], not the stored [128, 256]
    EXPECT_TRUE(has_problem(g, "/buffers/0/fill_op", "differs from the stored one"));
  }
  {
    ScheduleGraph g = base;
    g.buffers[0].fill_op = 1000000;
    EXPECT_TRUE(has_problem(g, "/buffers/0/fill_op", "unknown op"));
  }
  {
    // 4 boxes over 3 slots: box j's slot would not be j % depth in every store.
    ScheduleGraph g = base;
    g.buffers[0].depth = 3;
    g.loops[0].rings[0].depth = 3;
    EXPECT_TRUE(has_problem(g, "/buffers/0/fill_op", "do not cycle the slots evenly"));
  }
  // Optional on disk: written only when set, so graphs without fills read back unchanged.
  const std::string text = to_json_text(base);
  EXPECT_NE(text.find("\"fill_op\": 43"), std::string::npos);
  EXPECT_EQ(to_json_text(from_json_text(text, "g.json")), text);
}

TEST(SgraphValidate, ConstantGridExtentAndPrintedNames) {
  ScheduleGraph g = read_schedule_graph(kFixture);
  g.launch.grid[0] = GridExpr::integer(0);
  g.launch.roles[0].name = "producer\n#include <evil>";
  g.kernel.source = std::string("a.ttgir\n") + "int x;";
  EXPECT_TRUE(has_problem(g, "/launch/grid/0", "must be >= 1"));
  EXPECT_TRUE(has_problem(g, "/launch/roles/0/name", "C identifier"));
  EXPECT_TRUE(has_problem(g, "/kernel/source", "control character"));
  ScheduleGraph ok = read_schedule_graph(kFixture);
  EXPECT_FALSE(has_problem(ok, "/launch/grid/0", ""));
}

}  // namespace

namespace {

// Found by mutation (issue 12): grids the launcher would divide by zero in (`M / 0`, a divisor
// that is a parameter), a constant extent of 0 spelled `1 - 1`, a grid reading a pointer, and
// names that reach the generated C++ unchecked (the kernel's and its parameters', which are
// identifiers there; the target's, which names a file) were all accepted.
TEST(SgraphValidate, GridsTheLauncherCanEvaluate) {
  const ScheduleGraph base = read_schedule_graph(kFixture);
  auto grid0 = [&](const std::string& text) {
    ScheduleGraph g = base;
    g.launch.grid[0] = parse_grid_expr(text, "t");
    return g;
  };
  EXPECT_TRUE(has_problem(grid0("M / 0"), "/launch/grid/0", "divides by 0: a divisor must be"));
  EXPECT_TRUE(has_problem(grid0("cdiv(M, K)"), "/launch/grid/0", "divides by K"));
  EXPECT_TRUE(has_problem(grid0("cdiv(M, 128 - 128)"), "/launch/grid/0", "divides by 128 - 128"));
  EXPECT_TRUE(has_problem(grid0("1 - 1"), "/launch/grid/0", "must be >= 1 (1 - 1 = 0)"));
  EXPECT_TRUE(has_problem(grid0("65536 * 65536"), "/launch/grid/0", "at most 2147483647"));
  EXPECT_TRUE(has_problem(grid0("a_ptr"), "/launch/grid/0", "type !tt.ptr<f16>, not an integer"));
  EXPECT_TRUE(has_problem(grid0("M * 4294967296"), "/launch/grid/0", "outside 0..2^31-1"));
  EXPECT_FALSE(has_problem(grid0("cdiv(M, 64 * 2) * 2 / 2"), "/launch/grid/0", ""));
  ScheduleGraph g = base;
  g.launch.grid[1] = parse_grid_expr("65536", "t");
  EXPECT_TRUE(has_problem(g, "/launch/grid/1", "at most 65535"));
}

TEST(SgraphValidate, NamesPrintedIntoTheCxxAreSafeThere) {
  const ScheduleGraph base = read_schedule_graph(kFixture);
  {
    ScheduleGraph g = base;
    g.kernel.name = "k(){} int evil";
    for (auto& f : g.ir.functions) f.name = g.kernel.name;
    EXPECT_TRUE(has_problem(g, "/kernel/name", "C identifier"));
  }
  {
    ScheduleGraph g = base;
    const int v = g.kernel.params[0].value;
    g.kernel.params[0].name = "a_ptr; system(\"x\")";
    g.ir.functions[0].values[static_cast<size_t>(v)].name = g.kernel.params[0].name;
    EXPECT_TRUE(has_problem(g, "/kernel/params/0/name", "C identifier"));
  }
  {
    ScheduleGraph g = base;
    g.target.name = "../../etc/x";
    EXPECT_TRUE(has_problem(g, "/target/name", "identifier such as sm_90a"));
  }
  {
    ScheduleGraph g = base;
    g.kernel.source = "examples/k.ttgir\\";  // would continue the `//` comment line
    EXPECT_TRUE(has_problem(g, "/kernel/source", "backslash"));
  }
}

// The embedded module is held to what `schedule` takes from a .ttgir file (a graph's IR edited to
// target cuda:80, or to hold a loop of step 0, was emitted).
// Found by mutation: 2^31 - 1 warpgroups made the validator allocate 8 GB (a timeout), and a
// negative MII was printed into the kernel's header comment.
TEST(SgraphValidate, LaunchSizesAndMiiAreBounded) {
  ScheduleGraph g = read_schedule_graph(kFixture);
  g.launch.warpgroups = 2147483647;
  EXPECT_TRUE(has_problem(g, "/launch/warpgroups", "more than 8 warpgroups"));
  g = read_schedule_graph(kFixture);
  g.loops[0].rec_mii = -1;
  EXPECT_TRUE(has_problem(g, "/loops/0/res_mii", "never negative"));
}

TEST(SgraphValidate, LoadPathIsAKnownChoiceConsistentWithTheRoles) {
  ScheduleGraph g = read_schedule_graph(kFixture);  // case1: a producer and a consumer
  g.launch.load_path = "tma";
  EXPECT_FALSE(has_problem(g, "/launch/load_path", ""));
  g.launch.load_path = "smem";
  EXPECT_TRUE(has_problem(g, "/launch/load_path", "must be"));
  g.launch.load_path = "global";
  EXPECT_TRUE(has_problem(g, "/launch/load_path", "with a producer role"));
}

TEST(SgraphValidate, EmbeddedIrOutsideTheSupportedSetIsAProblem) {
  const ScheduleGraph base = read_schedule_graph(kFixture);
  {
    ScheduleGraph g = base;
    for (auto& [k, a] : g.ir.attrs)
      if (k == "ttg.target") a.text = "cuda:80";
    EXPECT_TRUE(has_problem(g, "/ir", "target 'cuda:80' (only cuda:90, Hopper)"));
  }
  auto edit_ir = [&](const std::function<void(sched2cu::ttgir::Function&)>& edit) {
    ScheduleGraph g = base;
    edit(g.ir.functions[0]);
    return g;
  };
  // A zero or a 2^31 - 1 extent (SIGFPE and std::bad_alloc in schedule, emitted from a graph).
  for (int64_t extent : {int64_t{0}, (int64_t{1} << 31) - 1}) {
    ScheduleGraph g = edit_ir([&](auto& f) {
      for (auto& v : f.values)
        if (v.type.shape == std::vector<int64_t>{128, 256}) v.type.shape[0] = extent;
    });
    EXPECT_TRUE(has_problem(g, "/ir", "every extent must be 1..2^20")) << extent;
  }
  // The loop's yield renamed (SIGSEGV in emit), its step made the constant 0 (an endless loop).
  const Loop& L = base.loops[0];
  EXPECT_TRUE(has_problem(edit_ir([&](auto& f) {
                            for (auto& o : f.ops)
                              if (o.name == "scf.yield") o.name = "arith.addi";
                          }),
                          "/ir", "whose body does not end with scf.yield"));
  EXPECT_TRUE(has_problem(edit_ir([&](auto& f) {
                            auto& c = f.ops[static_cast<size_t>(f.values[L.step].def_op)];
                            for (auto& [k, a] : c.attrs)
                              if (k == "value") a.ival = 0, a.text = "0";
                          }),
                          "/ir", "scf.for with the constant step 0 (must be >= 1)"));
}

TEST(SgraphJson, DeeplyNestedDocumentIsAnErrorNotACrash) {
  // 50,000 nested grid operators overflowed the stack inside the JSON parser (SIGSEGV).
  std::string text = sched2cu::read_file(kFixture);
  auto nested = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "{\"add\": [";
    s += "{\"int\": 1}";
    for (int i = 0; i < n; ++i) s += ", {\"int\": 1}]}";
    return s;
  };
  text.replace(text.find("{\"int\": 1}"), 10, nested(50000));
  EXPECT_NE(error_of(text).find("JSON nested deeper than 512 levels"), std::string::npos);
  // Grid operators nest a few levels, never 64.
  std::string t2 = sched2cu::read_file(kFixture);
  t2.replace(t2.find("{\"int\": 1}"), 10, nested(100));
  EXPECT_NE(error_of(t2).find("grid expression nested deeper than 64 levels"), std::string::npos)
      << error_of(t2);
}

}  // namespace

// Loop::split: written only where a loop is split (every other graph reads as before), one loop
// per kernel, a power-of-two cluster, at most one loop deep.
TEST(SgraphValidate, SplitLoops) {
  const fs::path p =
      fs::path(SCHED2CU_SOURCE_DIR) / "examples/case7_wgrad_bias/schedule_graph.json";
  ScheduleGraph base = read_schedule_graph(p);
  ASSERT_EQ(base.loops.size(), 2u);
  EXPECT_EQ(base.loops[0].split, 1);
  EXPECT_EQ(base.loops[1].split, 4);
  EXPECT_TRUE(check(base).empty());
  const std::string text = to_json_text(base);
  EXPECT_EQ(text.find("\"split\": 1"), std::string::npos);
  EXPECT_NE(text.find("\"split\": 4"), std::string::npos);
  {
    ScheduleGraph g = base;
    g.loops[1].split = 3;
    EXPECT_TRUE(has_problem(g, "/loops/1/split", "must be 1, 2, 4 or 8"));
  }
  {
    ScheduleGraph g = base;
    g.loops[0].split = 2;
    EXPECT_TRUE(has_problem(g, "/loops/1/split", "only one loop"));
  }
  {
    ScheduleGraph g = read_schedule_graph(kFixture);
    EXPECT_EQ(to_json_text(g).find("\"split\""), std::string::npos);
  }
}
