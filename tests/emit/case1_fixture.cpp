// Builds the hand-written case1 schedule graph (see case1_fixture.h). Ops are found by name in
// the parsed TTGIR, so the fixture follows the kernel, not hard-coded ids.
#include "case1_fixture.h"

#include <stdexcept>

#include "sched2cu/common/file_util.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::testing {
namespace {

int find_op(const ttgir::Function& f, const std::string& name, int nth = 0) {
  for (const auto& o : f.ops)
    if (o.name == name && nth-- == 0) return o.id;
  throw std::runtime_error("case1 fixture: no op " + name);
}

}  // namespace

sgraph::ScheduleGraph case1_handwritten_graph(const std::string& ttgir_path,
                                              const std::string& source_label) {
  sgraph::ScheduleGraph g;
  // Parsed under the label, so locations do not depend on where the checkout lives.
  g.ir = ttgir::parse_module(read_file(ttgir_path), source_label);
  const ttgir::Function& f = g.ir.functions.at(0);
  g.kernel.name = f.name;
  g.kernel.source = source_label;
  g.kernel.num_warps = g.ir.num_warps();
  for (int a : f.args) g.kernel.params.push_back({f.value(a).name, f.value(a).type.str(), a});
  g.target = {"sm_90a", 232448, 65536, 255, 1024};
  g.launch.warpgroups = 3;
  g.launch.grid = {sgraph::parse_grid_expr("cdiv(M, 128)", "fixture"),
                   sgraph::parse_grid_expr("cdiv(N, 256)", "fixture"),
                   sgraph::GridExpr::integer(1)};
  g.launch.raster_group = 8;
  g.launch.roles = {{0, "producer", "producer", {0}, 40, -1, 1},
                    {1, "consumer", "consumer", {1, 2}, 232, 0, 2}};

  const int load_a = find_op(f, "tt.descriptor_load", 0);
  const int load_b = find_op(f, "tt.descriptor_load", 1);
  const int alloc_a = find_op(f, "ttg.local_alloc", 0);
  const int alloc_b = find_op(f, "ttg.local_alloc", 1);
  const int dot = find_op(f, "ttng.warp_group_dot");
  const int store = find_op(f, "tt.descriptor_store");
  const ttgir::ForLoop fl = f.for_loop(find_op(f, "scf.for"));

  sgraph::Loop L;
  L.op = fl.op;
  L.lb = fl.lb;
  L.ub = fl.ub;
  L.step = fl.step;
  // 128x256x64 f16 per iteration = 4.2 MFLOP at ~4096 FLOP/clk/SM: the tensor core bounds II.
  L.ii = 1024;
  L.res_mii = 1024;
  L.rec_mii = 1024;
  L.ii_optimal = true;
  L.stages = 1;
  //            id  op       pipe    lat  issue  occ  cycle stage order role child
  L.nodes = {{0, load_a, "TMA", 560, 30, 96, 0, 0, 0, 0, -1},
             {1, alloc_a, "NONE", 0, 0, 0, 560, 0, 2, -1, -1},
             {2, load_b, "TMA", 560, 30, 192, 30, 0, 1, 0, -1},
             {3, alloc_b, "NONE", 0, 0, 0, 590, 0, 3, -1, -1},
             {4, dot, "TC", 1024, 64, 1024, 590, 0, 3, 1, -1}};
  L.edges = {{0, 1, 560, 0}, {2, 3, 560, 0}, {1, 4, 0, 0}, {3, 4, 0, 0}, {4, 4, 1024, 1}};
  L.rings = {{0, 4, {0, 1}}};
  L.channels = {{0, 0, 0, 1, "tma", 16384 + 32768, 1, 8}};
  g.loops.push_back(L);

  g.buffers = {{0, "smem", {128, 64}, "f16", 16384, 4, 0, alloc_a, {dot}, 0, 1614, 0},
               {1, "smem", {64, 256}, "f16", 32768, 4, 0, alloc_b, {dot}, 30, 1614, 0},
               {2, "smem", {128, 256}, "f16", 65536, 1, -1, store, {store}, 0, 0, -1}};
  return g;
}

}  // namespace sched2cu::testing
