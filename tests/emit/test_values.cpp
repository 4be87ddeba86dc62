// Unit tests of the emitter's value model (docs/emitter.md, "Register values and layouts"): the
// layout kind, per-warpgroup shape and C++ type a TTGIR encoding gives a register value, the
// operand adapters elementwise ops read through, and the located errors for layouts the emitter
// does not hold in registers. Inputs: the values of case3's TTGIR (attention forward), which has
// accumulator tiles, row slices, a dot operand and blocked layouts.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph_fixture.h"
#include "lower.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
using namespace sched2cu::emit;
const fs::path kGraph = fs::path(SCHED2CU_SOURCE_DIR) / "examples/case3_FA/schedule_graph.json";

struct Fixture : sched2cu::testing::GraphFixture {
  Fixture() : GraphFixture(kGraph) {}
};

TEST(ValueModel, LayoutsFromEncodings) {
  Fixture x;
  const sched2cu::sgraph::Role& consumer = x.g.launch.roles.at(1);  // 2 warpgroups, rows split
  ASSERT_EQ(consumer.split_parts, 2);
  Lower L(x.c, consumer);
  const int qk = x.value("qk_14"), m = x.value("m_ij_15"), p = x.value("acc_29");
  Val vqk = L.from_type(qk, x.op_of(qk));
  EXPECT_EQ(vqk.lay, Lay::Acc);
  EXPECT_EQ(vqk.rows, 64);  // 128 rows split over 2 warpgroups
  EXPECT_EQ(vqk.cols, 128);
  EXPECT_EQ(L.ctype(vqk, x.op_of(qk)), "AccTile<64, 128>");
  Val vm = L.from_type(m, x.op_of(m));
  EXPECT_EQ(vm.lay, Lay::Row);  // #ttg.slice<{dim = 1, parent = #mma}>
  EXPECT_EQ(vm.rows, 64);
  EXPECT_EQ(L.ctype(vm, x.op_of(m)), "RowVec<64>");
  Val vp = L.from_type(p, x.op_of(p));
  EXPECT_EQ(vp.lay, Lay::DotA);  // #ttg.dot_op<{opIdx = 0, parent = #mma}>
  EXPECT_EQ(vp.rows, 64);
  EXPECT_EQ(vp.cols, 128);
  // A role without a split holds the whole tile: two m64 slabs per warpgroup.
  sched2cu::sgraph::Role one = consumer;
  one.split_dim = -1;
  one.split_parts = 1;
  Lower L1(x.c, one);
  EXPECT_EQ(L1.from_type(qk, x.op_of(qk)).rows, 128);
}

// case3 runs 8 warps: its blocked layouts span two warpgroups. A cooperative role of both holds
// them over its 8 warps (BLay's ninth parameter); a one-warpgroup role rescales the warps.
TEST(ValueModel, BlockedLayoutOverTwoWarpgroups) {
  Fixture x;
  const int q = x.value("q");  // tensor<128x128xbf16, #blocked>, warpsPerCTA [8, 1]
  x.c.blocked_warps = 8;
  Lower L(x.c, x.g.launch.roles.at(1));
  const Val v8 = L.from_type(q, x.op_of(q));
  EXPECT_EQ(v8.blay.NW, 8);
  EXPECT_EQ(v8.blay.W0 * v8.blay.W1, 8);
  EXPECT_EQ(L.ctype(v8, x.op_of(q)).substr(L.ctype(v8, x.op_of(q)).size() - 5), ", 8>>");
  x.c.blocked_warps = 4;
  Lower L4(x.c, x.g.launch.roles.at(1));
  const Val v4 = L4.from_type(q, x.op_of(q));
  EXPECT_EQ(v4.blay.W0 * v4.blay.W1, 4);
  EXPECT_EQ(L4.ctype(v4, x.op_of(q)).find(", 8>>"), std::string::npos);
}

// The adapter an operand is read through depends on its layout and on the result's.
TEST(ValueModel, OperandAdapters) {
  Fixture x;
  Lower L(x.c, x.g.launch.roles.at(1));
  auto text = [&](const Text& t) {
    return render(t, [&](int v, int a) { return x.c.ident(v) + (a ? "_c" : ""); });
  };
  const int qk = x.value("qk_14"), m = x.value("m_ij_15"), s = x.value("qk_scale");
  Val tile = L.from_type(qk, 0);
  L.set(qk, tile);
  Val row = L.from_type(m, 0);
  L.set(m, row);
  Val rb = row;
  rb.lay = Lay::RowB;  // expand_dims + broadcast: a view of the row vector
  const int bcast = x.value("p_20");
  L.set(bcast, rb);
  Val sp;
  sp.lay = Lay::Splat;
  sp.scalar_value = s;
  const int splat = x.value("p");
  L.set(splat, sp);
  const std::string nqk = x.c.ident(qk), nm = x.c.ident(m), ns = x.c.ident(s);
  EXPECT_EQ(text(L.operand(qk, Lay::Acc, 0)), "tile(" + nqk + ")");
  EXPECT_EQ(text(L.operand(bcast, Lay::Acc, 0)), "row_bcast(" + nm + ")");
  EXPECT_EQ(text(L.operand(m, Lay::Row, 0)), "row(" + nm + ")");
  EXPECT_EQ(text(L.operand(splat, Lay::Acc, 0)), "splat(" + ns + ")");
  Val packed = tile;
  packed.packed = true;
  packed.packed_t = "__nv_bfloat16";
  L.set(qk, packed);
  EXPECT_EQ(text(L.operand(qk, Lay::Acc, 0)), "widen<__nv_bfloat16>(" + nqk + ")");
  // A row vector is not an operand of a tile result without its broadcast view.
  EXPECT_THROW(L.operand(m, Lay::Acc, 0), sched2cu::Error);
  // A truncf kept as a store view is never computed with.
  Val view = tile;
  view.convert_on_store = true;
  L.set(qk, view);
  EXPECT_THROW(L.operand(qk, Lay::Acc, 0), sched2cu::Error);
}

TEST(OpTable, HoldsOneLoweringPerOp) {
  const auto& t = op_table();
  for (const char* n :
       {"ttng.warp_group_dot", "tt.reduce", "tt.expand_dims", "tt.broadcast", "ttg.convert_layout",
        "tt.descriptor_load", "tt.descriptor_store", "math.exp2", "arith.truncf", "scf.yield"})
    EXPECT_TRUE(t.count(n)) << n;
  for (const char* n : {"tt.make_range", "tt.addptr", "tt.load", "tt.store"})  // pointer world
    EXPECT_TRUE(t.count(n)) << n;
  for (const char* n : {"math.erf", "math.tanh", "math.sin", "math.cos", "math.fma"}) {
    EXPECT_TRUE(t.count(n)) << n;
    EXPECT_TRUE(is_elementwise(n)) << n;  // elementwise on tensors and scalars
  }
  EXPECT_FALSE(t.count("tt.histogram"));  // not lowered: a located error
}

// tt.extern_elementwise: a libdevice function the emitter knows is elementwise math calling its
// __nv_ name; an unknown function, another library or a wrong operand count is not.
TEST(OpTable, LibdeviceCallsAreElementwiseMath) {
  sched2cu::ttgir::Op o;
  o.name = "tt.extern_elementwise";
  o.operands = {0, 1};
  sched2cu::ttgir::Attribute sym, lib;
  sym.kind = lib.kind = sched2cu::ttgir::Attribute::Kind::String;
  sym.text = "__nv_powf";
  o.attrs = {{"libname", lib}, {"symbol", sym}};
  EXPECT_EQ(float_element_fn(o), "__nv_powf(x0, x1)");
  EXPECT_TRUE(is_elementwise(o));
  o.operands = {0};
  EXPECT_EQ(float_element_fn(o), "");  // powf takes two
  o.attrs[1].second.text = "__nv_tanhf";
  EXPECT_EQ(float_element_fn(o), "__nv_tanhf(x0)");
  o.attrs[1].second.text = "__nv_tanh";  // the f64 one: not lowered
  EXPECT_FALSE(is_elementwise(o));
  o.attrs[1].second.text = "__nv_tanhf";
  o.attrs[0].second.text = "mylib";
  EXPECT_FALSE(is_elementwise(o));
}

// The emitter's libdevice functions are exactly those runtime/sched2cu/libdevice.cuh declares,
// each with its arity (the header is what a generated kernel's call resolves against).
TEST(OpTable, LibdeviceTableMatchesTheRuntimeHeader) {
  const std::string h =
      sched2cu::read_file(std::string(SCHED2CU_SOURCE_DIR) + "/runtime/sched2cu/libdevice.cuh");
  std::map<std::string, int> declared;
  for (size_t at = h.find("float __nv_"); at != std::string::npos;
       at = h.find("float __nv_", at + 1)) {
    const size_t name = at + 6, open = h.find('(', name), close = h.find(')', open);
    const std::string args = h.substr(open + 1, close - open - 1);
    int n = 0;
    for (size_t p = args.find("float"); p != std::string::npos; p = args.find("float", p + 1)) ++n;
    declared[h.substr(name, open - name)] = n;
  }
  EXPECT_EQ(declared, libdevice_f32());
  EXPECT_GT(declared.size(), 50u);
}

}  // namespace

namespace {

// Deferred quad sums (docs/emitter.md): attention's l = l * alpha + rowsum(p) is carried as
// per-lane partials and reduced once after the loop; nothing else is.
std::set<int> partials_of(Fixture& x) {
  plan_quad_partials(x.c);
  return x.c.quad_partials;
}

}  // namespace

TEST(DeferredQuadSum, AttentionRowSumIsCarriedAsPartials) {
  Fixture x;
  const auto P = partials_of(x);
  const auto loop = x.f.for_loop(x.f.for_ops().at(0));
  const std::set<int> want = {x.value("l_ij"), x.value("l_i_31"), x.value("l_i_32"),
                              loop.iter_args.at(1), loop.results.at(1)};
  EXPECT_EQ(P, want);
  // The row maximum (a max, not a sum) and alpha (an exp2 of it) stay reduced.
  EXPECT_EQ(P.count(x.value("m_ij_15")), 0u);
  EXPECT_EQ(P.count(x.value("alpha_23")), 0u);
}

TEST(DeferredQuadSum, NotDeferredWhenTheLoopNeedsTheSum) {
  // l_i - l_ij instead of l_i + l_ij: a difference of partials is still a partial of the
  // difference, but the rule admits only sums and products by quad-uniform values, so the sum
  // is needed reduced inside the loop and nothing is deferred.
  Fixture x;
  auto& f = const_cast<sched2cu::ttgir::Function&>(x.f);
  f.ops.at(static_cast<size_t>(x.op_of(x.value("l_i_32")))).name = "arith.subf";
  EXPECT_TRUE(partials_of(x).empty());
}

TEST(DeferredQuadSum, NotDeferredForANonSumCombiner) {
  Fixture x;
  auto& f = const_cast<sched2cu::ttgir::Function&>(x.f);
  f.ops.at(static_cast<size_t>(x.op_of(x.value("l_ij_35")))).name = "arith.mulf";
  EXPECT_TRUE(partials_of(x).empty());
}

TEST(DeferredQuadSum, NotDeferredWhenTheInitIsNotASplat) {
  // A loop-carried partial starts as its init in one lane of each quad: only a splat init can.
  Fixture x;
  const auto loop = x.f.for_loop(x.f.for_ops().at(0));
  auto& f = const_cast<sched2cu::ttgir::Function&>(x.f);
  const int init_op = f.value(loop.inits.at(1)).def_op;
  f.ops.at(static_cast<size_t>(init_op)).name = "tt.load";
  EXPECT_TRUE(partials_of(x).empty());
}
