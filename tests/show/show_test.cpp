// `sched2cu show`'s pages and their model: on every committed graph one node box per node, one
// section per loop, slots of the reservation table inside the II and never overlapping in a
// lane, ring lifetimes and budgets as the graph gives them, II bounds consistent with the
// recorded ResMII, every text from the graph or a source file escaped, Python lines found only
// beside the kernel, and bad input a located error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/show/page.h"
#include "sched2cu/show/view.h"

using namespace sched2cu::show;
namespace fs = std::filesystem;
namespace sg = sched2cu::sgraph;

namespace {

const fs::path kRoot = SCHED2CU_SOURCE_DIR;
const fs::path kCase3 = kRoot / "examples/case3_FA/schedule_graph.json";

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::vector<fs::path> committed_graphs() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "examples"))
    if (e.path().filename() == "schedule_graph.json") out.push_back(e.path());
  for (const auto& e : fs::directory_iterator(kRoot / "tests/emit"))
    if (e.path().string().ends_with(".schedule_graph.json")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string page_of(const fs::path& p) {
  const auto g = read_graph(p);
  return render_schedule_page(g, {"", sources_of(p, g)});
}

std::string error_of(const fs::path& p) {
  try {
    (void)read_graph(p);
  } catch (const sched2cu::Error& e) {
    return e.what();
  }
  return "";
}

fs::path temp(const std::string& name) {
  fs::path d = fs::path(::testing::TempDir()) / ("show_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

}  // namespace

TEST(ShowPage, EveryCommittedGraphHasOneBoxPerNode) {
  const auto graphs = committed_graphs();
  ASSERT_GE(graphs.size(), 7U);
  for (const auto& p : graphs) {
    const auto g = read_graph(p);
    const std::string page = render_schedule_page(g, {"", sources_of(p, g)});
    size_t nodes = 0, slots = 0, ring_buffers = 0;
    for (size_t i = 0; i < g.loops.size(); ++i) {
      nodes += g.loops[i].nodes.size();
      slots += reservation_table(g, i).slots.size();
      for (const auto& r : g.loops[i].rings) ring_buffers += r.buffers.size();
    }
    EXPECT_EQ(count(page, "<g class=\"node\""), nodes) << p;
    EXPECT_EQ(count(page, "<g class=\"slot\""), slots) << p;
    EXPECT_EQ(count(page, "<g class=\"ring\""), ring_buffers) << p;
    EXPECT_EQ(count(page, "<section id=\"loop-"), g.loops.size()) << p;
    EXPECT_EQ(count(page, "<svg"), count(page, "</svg>")) << p;
    EXPECT_EQ(page.find("<script"), std::string::npos) << p;
    EXPECT_EQ(render_schedule_page(g, {"", sources_of(p, g)}), page) << p << ": not deterministic";
  }
}

TEST(ShowPage, NodeBoxesCarryOpAndPythonLine) {
  const std::string page = page_of(kCase3);
  // Node 4 is S = QK^T: ttng.warp_group_dot at kernel.py:30, `qk = tl.dot(q, k.T)`.
  const size_t at =
      page.find("<g class=\"node\" data-loop=\"0\" data-node=\"4\" data-stage=\"0\">");
  ASSERT_NE(at, std::string::npos);
  const std::string box = page.substr(at, page.find("</g>", at) - at);
  EXPECT_NE(box.find("node 4: ttng.warp_group_dot (qk)\nkernel.py:30:23: qk = tl.dot(q, k.T)"),
            std::string::npos)
      << box;
  EXPECT_NE(box.find(">n4 warp_group_dot</text>"), std::string::npos) << box;
  EXPECT_NE(box.find(">kernel.py:30 @668</text>"), std::string::npos) << box;
  EXPECT_NE(page.find("proven optimal"), std::string::npos);
  EXPECT_NE(page.find("MII 2060 = max(ResMII 2060, RecMII 865)"), std::string::npos);
}

TEST(ShowPage, SeveralLoopsLinkSuperNodesToTheirLoop) {
  const auto p = kRoot / "examples/case2_persistent_gemm/schedule_graph.json";
  const auto g = read_graph(p);
  ASSERT_EQ(g.loops.size(), 2U);
  const std::string page = render_schedule_page(g, {"", {}});
  EXPECT_NE(page.find("<section id=\"loop-0\">"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"loop-1\">"), std::string::npos);
  EXPECT_NE(page.find("inside <a href=\"#loop-0\">loop 0</a>"), std::string::npos);
  EXPECT_NE(page.find("holds <a href=\"#loop-1\">loop 1</a>"), std::string::npos);
  // The K loop is a super-node of the tile loop: its box links to the K loop's section.
  int super = -1;
  for (const auto& n : g.loops[0].nodes)
    if (n.child_loop == 1) super = n.id;
  ASSERT_GE(super, 0);
  const size_t at =
      page.find("<g class=\"node\" data-loop=\"0\" data-node=\"" + std::to_string(super) + "\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(page.substr(at, 600).find("<a href=\"#loop-1\">"), std::string::npos);
  // Three phases: three top-level loops, each its own shared-memory row.
  const auto g8 = read_graph(kRoot / "examples/case8_multiphase_gemm/schedule_graph.json");
  const Budget b = smem_budget(g8);
  ASSERT_EQ(b.rows.size(), 4U);
  EXPECT_EQ(b.rows[0].what, "loop 0");
  EXPECT_EQ(b.rows[2].what, "loop 2");
  EXPECT_EQ(b.rows[3].what, "function-scope staging");
}

TEST(ShowModel, ReservationTableStaysInsideTheIi) {
  for (const auto& p : committed_graphs()) {
    const auto g = read_graph(p);
    for (size_t li = 0; li < g.loops.size(); ++li) {
      const Mrt t = reservation_table(g, li);
      ASSERT_EQ(t.lanes.size(), t.rows.size());
      std::map<std::string, int64_t> occupancy;
      for (const auto& n : g.loops[li].nodes)
        if (n.pipeline != "NONE") occupancy[n.pipeline] += std::min<int64_t>(n.occupancy, t.ii);
      std::map<std::string, int64_t> drawn;
      for (size_t i = 0; i < t.slots.size(); ++i) {
        const Slot& a = t.slots[i];
        EXPECT_GE(a.start, 0);
        EXPECT_GT(a.len, 0);
        EXPECT_LE(a.start + a.len, t.ii) << p << " loop " << li << " node " << a.node;
        EXPECT_LT(a.lane, t.lanes[a.row]);
        if (a.row < std::size(kPipelines)) drawn[t.rows[a.row]] += a.len;
        for (size_t j = i + 1; j < t.slots.size(); ++j) {
          const Slot& b = t.slots[j];
          if (a.row == b.row && a.lane == b.lane) {
            EXPECT_FALSE(a.start < b.start + b.len && b.start < a.start + a.len)
                << p << " loop " << li << ": nodes " << a.node << " and " << b.node;
          }
        }
      }
      for (const auto& [pipe, occ] : occupancy) EXPECT_EQ(drawn[pipe], occ) << p << " " << pipe;
    }
  }
}

TEST(ShowModel, WrappingReservationIsTwoSlots) {
  const auto g = read_graph(kCase3);
  const Mrt t = reservation_table(g, 0);
  ASSERT_EQ(t.ii, 2060);
  // PV (node 23): TC from cycle 3243 = column 1183, occupancy 1030: 1183..2060 and 0..153.
  std::vector<Slot> pv;
  for (const auto& s : t.slots)
    if (s.node == 23 && t.rows[s.row] == "TC") pv.push_back(s);
  ASSERT_EQ(pv.size(), 2U);
  EXPECT_EQ(pv[0].start, 1183);
  EXPECT_EQ(pv[0].len, 877);
  EXPECT_EQ(pv[1].start, 0);
  EXPECT_EQ(pv[1].len, 153);
  EXPECT_EQ(pv[0].lane, pv[1].lane);
  EXPECT_EQ(t.rows[4], "issue: producer");
  EXPECT_EQ(t.rows[5], "issue: consumer");
}

TEST(ShowModel, BoundsMatchTheRecordedResMii) {
  for (const auto& p : committed_graphs()) {
    const auto g = read_graph(p);
    for (size_t li = 0; li < g.loops.size(); ++li) {
      const Bounds b = bounds(g, li);
      int64_t res = 0;
      for (const auto& l : b.engine) res = std::max(res, l.cycles);
      for (const auto& l : b.issue) res = std::max(res, l.cycles);
      EXPECT_EQ(res, g.loops[li].res_mii) << p << " loop " << li;
      EXPECT_GE(b.ii, b.mii) << p << " loop " << li;
    }
  }
  // case7's tile loop is the one not proven optimal: II 32807 above MII = RecMII 32798.
  const auto g7 = read_graph(kRoot / "examples/case7_wgrad_bias/schedule_graph.json");
  const Bounds b = bounds(g7, 0);
  EXPECT_EQ(b.mii, 32798);
  EXPECT_EQ(b.super, 32768);
  EXPECT_FALSE(b.optimal);
  const std::string page = render_schedule_page(g7, {"", {}});
  EXPECT_NE(page.find("not proven optimal"), std::string::npos);
  EXPECT_NE(page.find("super-nodes 32768"), std::string::npos);
}

TEST(ShowModel, LanesKeepBoxesApart) {
  for (const auto& p : committed_graphs()) {
    const auto g = read_graph(p);
    for (size_t li = 0; li < g.loops.size(); ++li) {
      const double w = 500;
      const Lanes l = role_lanes(g, li, w);
      ASSERT_EQ(l.boxes.size(), g.loops[li].nodes.size());
      for (size_t i = 0; i < l.boxes.size(); ++i) {
        const auto& ni = g.loops[li].nodes[i];
        EXPECT_EQ(l.boxes[i].node, ni.id);
        EXPECT_EQ(l.roles[l.boxes[i].lane], ni.role);
        for (size_t j = i + 1; j < l.boxes.size(); ++j) {
          if (l.boxes[i].lane != l.boxes[j].lane || l.boxes[i].row != l.boxes[j].row) continue;
          EXPECT_GE(std::abs(g.loops[li].nodes[j].cycle - ni.cycle), w)
              << p << " " << i << " " << j;
        }
      }
    }
  }
  // case6 rematerializes a NONE node in every role: it gets its own lane.
  const auto g6 = read_graph(kRoot / "examples/case6_layernorm/schedule_graph.json");
  const Lanes l6 = role_lanes(g6, 0, 100);
  EXPECT_EQ(l6.names.back(), "every role");
  EXPECT_EQ(l6.roles.back(), -1);
}

TEST(ShowModel, RingLifetimesAndBudgets) {
  const auto g = read_graph(kCase3);
  const auto lives = ring_lifetimes(g, 0);
  ASSERT_EQ(lives.size(), 2U);
  EXPECT_EQ(lives[0].buffer, 3);  // K: issued at 4, read by QK until 1385, 2 slots
  EXPECT_EQ(lives[0].start, 4);
  EXPECT_EQ(lives[0].end, 1385);
  EXPECT_EQ(lives[0].depth, 2);
  EXPECT_EQ(lives[1].buffer, 4);  // V: 34 .. 3960 (PV in stage 1), 4 slots
  EXPECT_EQ(lives[1].end, 3960);
  EXPECT_EQ(lives[1].depth, 4);
  const Budget regs = register_budget(g);
  EXPECT_EQ(regs.limit, 65536);
  ASSERT_EQ(regs.rows.size(), 1U);
  ASSERT_EQ(regs.rows[0].parts.size(), 2U);
  EXPECT_EQ(regs.rows[0].parts[0].amount, 128 * 24);
  EXPECT_EQ(regs.rows[0].parts[1].amount, 2 * 128 * 240);
  const Budget smem = smem_budget(g);
  EXPECT_EQ(smem.limit, 232448);
  ASSERT_EQ(smem.rows.size(), 2U);
  // The loop: resident Q + K (2 x 32 KB) + V (4 x 32 KB); after it, the O and M staging.
  EXPECT_EQ(smem.rows[0].total(), 32768 + 2 * 32768 + 4 * 32768);
  EXPECT_EQ(smem.rows[1].total(), 512 + 32768);
}

TEST(ShowPage, EscapesEveryTextFromTheGraphAndTheSources) {
  const auto p = kRoot / "examples/case1_simple_gemm/schedule_graph.json";
  auto g = read_graph(p);
  auto& f = g.ir.functions.at(0);
  ASSERT_EQ(f.name, g.kernel.name);
  const int op = g.loops[0].nodes[0].op;
  ASSERT_NE(f.ops[static_cast<size_t>(op)].name, "scf.for");
  f.ops[static_cast<size_t>(op)].name = "tt.<b onmouseover=\"x\">&'";
  f.ops[static_cast<size_t>(op)].loc.name = "</title><script>alert(1)</script>";
  g.kernel.source = "dir/<img src=x>.ttgir";
  SourceReader hostile = [](const std::string&) {
    return std::optional<std::string>(std::string(200, '\n') + "x = '</code><script>'\n");
  };
  for (auto& L : g.loops)
    for (auto& n : L.nodes) f.ops[static_cast<size_t>(n.op)].loc.src.line = 201;
  const std::string page = render_schedule_page(g, {"a <title>", hostile});
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<b onmouseover"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("tt.&lt;b onmouseover=&quot;x&quot;&gt;&amp;&#39;"), std::string::npos);
  EXPECT_NE(page.find("x = &#39;&lt;/code&gt;&lt;script&gt;&#39;"), std::string::npos);
  EXPECT_NE(page.find("dir/&lt;img src=x&gt;.ttgir"), std::string::npos);
  EXPECT_NE(page.find("<title>a &lt;title&gt;</title>"), std::string::npos);
}

TEST(ShowSources, ReadOnlyBesideTheKernel) {
  const auto g = read_graph(kCase3);
  const SourceReader r = sources_of(kCase3, g);
  const auto py = r("kernel.py");
  ASSERT_TRUE(py.has_value());
  EXPECT_EQ(*py, sched2cu::read_file(kRoot / "examples/case3_FA/kernel.py"));
  EXPECT_FALSE(r("../case1_simple_gemm/kernel.py").has_value());
  EXPECT_FALSE(r((kRoot / "examples/case3_FA/kernel.py").string()).has_value());
  EXPECT_FALSE(r("no_such_file.py").has_value());
  EXPECT_FALSE(r(".").has_value());  // a directory
}

TEST(ShowErrors, MissingFile) {
  const std::string m = error_of(temp("none.json"));
  EXPECT_NE(m.find("none.json"), std::string::npos) << m;
}

TEST(ShowErrors, MalformedGraphIsLocated) {
  const fs::path p = temp("bad.json");
  std::ofstream(p) << "{\n  \"schema\": \"sched2cu.schedule_graph\",\n  \"version\": 2,,\n}\n";
  const std::string m = error_of(p);
  EXPECT_NE(m.find(p.string() + ":3:"), std::string::npos) << m;
}

TEST(ShowErrors, InvalidGraphNamesTheJsonPath) {
  auto g = read_graph(kCase3);
  g.loops[0].nodes[4].role = 7;
  g.loops[0].rings[1].buffers = {9};
  const fs::path p = temp("invalid.json");
  sg::write_schedule_graph(g, p);
  const std::string m = error_of(p);
  EXPECT_NE(m.find("/loops/0/nodes/4/role"), std::string::npos) << m;
  EXPECT_NE(m.find("/loops/0/rings/1/buffers"), std::string::npos) << m;
}

TEST(ShowIndex, LinksEveryPage) {
  const std::string page =
      render_index_page("all", {{"case1", "gemm", "case1.html"}, {"a/b", "k<", "a/b.html"}});
  EXPECT_NE(page.find("<a href=\"case1.html\">case1</a>"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"a/b.html\">a/b</a>"), std::string::npos);
  EXPECT_NE(page.find("<td>k&lt;</td>"), std::string::npos);
}
