// Schedule-graph validator. Every check names the JSON path of the field it rejects, so a broken
// producer (or a hand-edited fixture) is fixed at the source. It re-derives what it checks from
// the graph itself (dependences, stages, byte counts, arrival counts) and never repairs anything.
#include "sched2cu/sgraph/validate.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "sched2cu/common/diag.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::sgraph {
namespace {

constexpr long long kMaxGridX = (1LL << 31) - 1;

struct Checker {
  const ScheduleGraph& g;
  std::vector<Problem> out;

  void bad(std::string path, std::string msg) { out.push_back({std::move(path), std::move(msg)}); }
  const ttgir::Function* fn = nullptr;

  bool op_ok(int id) const { return fn && id >= 0 && id < static_cast<int>(fn->ops.size()); }
  bool role_ok(int id) const { return id >= 0 && id < static_cast<int>(g.launch.roles.size()); }

  // The kernel function and its parameters; sets fn (nullptr if the kernel is missing).
  void kernel() {
    for (const auto& f : g.ir.functions)
      if (f.name == g.kernel.name) fn = &f;
    if (fn == nullptr) {
      bad("/kernel/name", "no function \"" + g.kernel.name + "\" in /ir");
      return;
    }
    if (g.kernel.params.size() != fn->args.size())
      bad("/kernel/params", "the function has " + std::to_string(fn->args.size()) + " arguments");
    for (size_t k = 0; k < g.kernel.params.size() && k < fn->args.size(); ++k) {
      const Param& prm = g.kernel.params[k];
      std::string q = "/kernel/params/" + std::to_string(k);
      if (prm.value != fn->args[k])
        bad(q + "/value", "must be function argument " + std::to_string(k));
      else if (fn->value(prm.value).name != prm.name)
        bad(q + "/name", "differs from the IR");
      else if (fn->value(prm.value).type.str() != prm.type)
        bad(q + "/type", "differs from the IR");
    }
    if (g.launch.grid.size() != 3) bad("/launch/grid", "needs three entries (x, y, z)");
    for (size_t a = 0; a < g.launch.grid.size(); ++a) {
      std::vector<std::string> names;
      collect_params(g.launch.grid[a], names);
      for (const auto& n : names) {
        const Param* p = nullptr;
        for (const auto& q : g.kernel.params)
          if (q.name == n) p = &q;
        if (p == nullptr)
          bad("/launch/grid/" + std::to_string(a),
              "names \"" + n + "\", which is not a kernel parameter");
        else if (p->value >= 0 && p->value < static_cast<int>(fn->values.size()) &&
                 fn->value(p->value).type.kind != ttgir::Type::Kind::Integer)
          bad("/launch/grid/" + std::to_string(a),
              "names \"" + n + "\", a parameter of type " + p->type + ", not an integer");
      }
      grid_axis(a);
    }
    // Strings printed into the generated C++ as identifiers are C identifiers; those printed in
    // `//` comments stay on their line (a newline would end the comment, a trailing backslash
    // would continue it onto the next line).
    auto comment_safe = [](const std::string& s) {
      for (unsigned char ch : s)
        if (ch < 0x20 || ch == 0x7f || ch == '\\') return false;
      return true;
    };
    if (!comment_safe(g.kernel.source))
      bad("/kernel/source", "contains a control character (newline, NUL, ...) or a backslash");
    if (!c_identifier(g.kernel.name))
      bad("/kernel/name", "must be a C identifier (it names the __global__ function)");
    for (size_t k = 0; k < g.kernel.params.size(); ++k)
      if (!c_identifier(g.kernel.params[k].name))
        bad("/kernel/params/" + std::to_string(k) + "/name",
            "must be a C identifier (it names a kernel and a launcher argument)");
    for (size_t i = 0; i < g.launch.roles.size(); ++i)
      if (!c_identifier(g.launch.roles[i].name))
        bad("/launch/roles/" + std::to_string(i) + "/name", "must be a C identifier");
    if (g.launch.raster_group < 0) bad("/launch/raster_group", "must be >= 0");
    if (g.launch.ctas_per_sm < 1 || g.launch.ctas_per_sm > 32)
      bad("/launch/ctas_per_sm", "must be 1..32");
    if (!g.launch.load_path.empty() && g.launch.load_path != "tma" &&
        g.launch.load_path != "global")
      bad("/launch/load_path", "must be \"tma\" or \"global\"");
    if (g.launch.load_path == "global")
      for (const auto& r : g.launch.roles)
        if (r.kind == "producer")
          bad("/launch/load_path",
              "\"global\" (plain loads) with a producer role: the kernel "
              "would keep a warpgroup with nothing to issue");
    if (g.launch.raster_group > 0 && g.launch.grid.size() == 3 && !g.launch.grid[2].is_int(1))
      bad("/launch/raster_group", "rasterization needs a grid with z = 1");
  }

  static bool c_identifier(const std::string& n) {
    bool ok = !n.empty() && std::isdigit(static_cast<unsigned char>(n[0])) == 0;
    for (unsigned char ch : n) ok &= (ch < 0x80 && std::isalnum(ch) != 0) || ch == '_';
    return ok;
  }

  // The value of a constant grid expression as the launcher computes it (sgraph::evaluate);
  // nullopt when it reads a parameter or the SM count, divides by zero or overflows.
  static std::optional<long long> fold(const GridExpr& e) {
    std::vector<std::string> params;
    collect_params(e, params);
    if (!params.empty() || uses_num_sms(e)) return std::nullopt;
    try {
      return evaluate(
          e, [](const std::string&) { return 0LL; }, 0);
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  // One grid extent: integer constants in 0..2^31-1, every divisor a constant >= 1 (the host
  // launcher divides: a zero or a parameter there is a division the graph cannot vouch for),
  // and a constant extent within what a launch takes (x < 2^31, y and z <= 65535).
  void grid_axis(size_t a) {
    const std::string p = "/launch/grid/" + std::to_string(a);
    std::vector<const GridExpr*> todo{&g.launch.grid[a]};
    while (!todo.empty()) {
      const GridExpr* e = todo.back();
      todo.pop_back();
      if (e->kind == GridExpr::Kind::Int && (e->value < 0 || e->value > kMaxGridX))
        bad(p, "integer " + std::to_string(e->value) + " outside 0..2^31-1");
      if ((e->kind == GridExpr::Kind::Div || e->kind == GridExpr::Kind::Cdiv) &&
          e->args.size() == 2) {
        auto d = fold(e->args[1]);
        if (!d || *d < 1)
          bad(p, "divides by " + to_text(e->args[1]) + ": a divisor must be a constant >= 1");
      }
      for (const auto& x : e->args) todo.push_back(&x);
    }
    const long long most = a == 0 ? kMaxGridX : 65535;
    const std::string value = to_text(g.launch.grid[a]);
    if (auto v = fold(g.launch.grid[a]); v && *v < 1)
      bad(p, "a constant extent must be >= 1 (" + value + " = " + std::to_string(*v) + ")");
    else if (v && *v > most)
      bad(p, "a constant extent must be at most " + std::to_string(most) + " (" + value + " = " +
                 std::to_string(*v) + ")");
  }

  void launch() {
    const Target& t = g.target;
    if (!c_identifier(t.name))
      bad("/target/name", "must be an identifier such as sm_90a (it names targets/<name>.json)");
    if (t.smem_bytes <= 0) bad("/target/smem_bytes", "must be positive");
    if (t.regs_per_sm <= 0) bad("/target/regs_per_sm", "must be positive");
    const Launch& l = g.launch;
    if (l.warpgroups < 1) bad("/launch/warpgroups", "must be at least 1");
    if (t.max_threads_per_block > 0 && 128LL * l.warpgroups > t.max_threads_per_block)
      bad("/launch/warpgroups", "more threads than the target allows");
    // A block has at most 1024 threads, 8 warpgroups, whatever the graph's target claims (2^31
    // warpgroups allocated 8 GB here, and 128 * warpgroups overflowed past the check above).
    if (l.warpgroups > 8) {
      bad("/launch/warpgroups", "more than 8 warpgroups (1024 threads) per block");
      return;
    }
    std::vector<int> owner(static_cast<size_t>(std::max(l.warpgroups, 0)), -1);
    long long regs = 0;
    for (size_t i = 0; i < l.roles.size(); ++i) {
      const Role& r = l.roles[i];
      std::string p = "/launch/roles/" + std::to_string(i);
      if (r.id != static_cast<int>(i)) bad(p + "/id", "ids must be dense and in order");
      if (r.kind != "producer" && r.kind != "consumer")
        bad(p + "/kind", "must be \"producer\" or \"consumer\"");
      if (r.regs < 24 || r.regs > 256 || r.regs % 8 != 0)
        bad(p + "/regs", "setmaxnreg needs a multiple of 8 in [24, 256]");
      if (r.regs > t.max_regs_per_thread && t.max_regs_per_thread > 0 && r.regs != 256)
        bad(p + "/regs", "above the target's per-thread maximum");
      if (r.warpgroups.empty()) bad(p + "/warpgroups", "a role needs a warpgroup");
      for (size_t k = 0; k < r.warpgroups.size(); ++k) {
        int w = r.warpgroups[k];
        std::string q = p + "/warpgroups/" + std::to_string(k);
        if (w < 0 || w >= l.warpgroups) {
          bad(q, "no such warpgroup");
        } else if (owner[w] != -1) {
          bad(q, "warpgroup already belongs to role " + std::to_string(owner[w]));
        } else {
          owner[w] = r.id;
        }
        if (k > 0 && w <= r.warpgroups[k - 1]) bad(q, "warpgroups must be ascending");
      }
      regs += 128LL * r.regs * static_cast<long long>(r.warpgroups.size());
      if (r.split_parts < 1) bad(p + "/split_parts", "must be at least 1");
      if (r.split_dim >= 0 && r.split_parts != static_cast<int>(r.warpgroups.size()))
        bad(p + "/split_parts", "a split role has one slice per warpgroup");
      if (r.split_dim < 0 && r.split_parts != 1) bad(p + "/split_parts", "must be 1 without split");
      if (r.pingpong && (r.kind != "consumer" || r.warpgroups.size() < 2))
        bad(p + "/pingpong", "ping-pong needs a consumer role of at least two warpgroups");
    }
    for (size_t w = 0; w < owner.size(); ++w)
      if (owner[w] == -1)
        bad("/launch/warpgroups", "warpgroup " + std::to_string(w) + " has no role");
    if (regs > t.regs_per_sm)
      bad("/launch/roles", "register budget " + std::to_string(regs) + " exceeds " +
                               std::to_string(t.regs_per_sm) + " per SM");
  }

  static int elem_bits(const std::string& e) {
    if (e == "f16" || e == "bf16" || e == "i16") return 16;
    if (e == "f32" || e == "i32") return 32;
    if (e == "f8E4M3FN" || e == "f8E5M2" || e == "i8") return 8;
    if (e == "f64" || e == "i64") return 64;
    return 0;
  }

  // Function-scope staging of a tt.descriptor_store: the stored tile once (depth 1), or a ring
  // of column subtiles [rows, w] whose width divides the tile's (the emitter stores it box by
  // box, slot = box % depth).
  void staging(const Buffer& b, const std::string& p) {
    const ttgir::Op& o = fn->op(b.producer_op);
    if (!ttgir::is_descriptor_store(o.name) || o.operands.empty()) return;
    const auto& sh = fn->value(o.operands.back()).type.shape;
    std::vector<int> tile(sh.begin(), sh.end());
    if (b.shape == tile) {
      if (b.depth != 1) bad(p + "/depth", "whole-tile staging must have depth 1");
      return;
    }
    if (b.shape.size() != 2 || tile.size() != 2 || b.shape[0] != tile[0] || b.shape[1] <= 0 ||
        b.shape[1] >= tile[1] || tile[1] % b.shape[1] != 0) {
      bad(p + "/shape",
          "staging must be the stored tile or a column subtile [rows, w] whose "
          "width divides the tile's");
      return;
    }
    if (b.depth < 2) bad(p + "/depth", "a subtile staging ring needs depth >= 2");
  }

  // A staging buffer's fill (docs/schedule_graph.md): a register-consumed tt.descriptor_load of
  // the stored tile's shape and element width, loaded box by box into the subtile slots; every
  // slot takes the same number of boxes per store (slot = box % depth).
  void fill(const Buffer& b, const std::string& p) {
    const std::string q = p + "/fill_op";
    if (!op_ok(b.fill_op) || !op_ok(b.producer_op)) return bad(q, "unknown op");
    const ttgir::Op& ld = fn->op(b.fill_op);
    const ttgir::Op& st = fn->op(b.producer_op);
    if (ld.name != "tt.descriptor_load" || ld.results.size() != 1)
      return bad(q, "a fill is a tt.descriptor_load");
    if (st.name != "tt.descriptor_store" || st.operands.empty())
      return bad(q, "only the staging of a tt.descriptor_store has a fill");
    const ttgir::Type& lt = fn->value(ld.results[0]).type;
    const ttgir::Type& tt = fn->value(st.operands.back()).type;
    if (lt.shape != tt.shape || lt.element_bits() != tt.element_bits())
      return bad(q, "the loaded tile differs from the stored one in shape or element width");
    if (b.depth < 2 || b.shape.size() != 2 || tt.shape.size() != 2 || b.shape[1] <= 0 ||
        b.shape[1] >= tt.shape[1])
      return bad(q, "a fill needs subtile staging (a ring of column subtiles, depth >= 2)");
    if ((tt.shape[1] / b.shape[1]) % b.depth != 0)
      return bad(q, "the tile's boxes do not cycle the slots evenly");
  }

  void buffers() {
    std::map<int, long long> loop_bytes;
    for (size_t i = 0; i < g.buffers.size(); ++i) {
      const Buffer& b = g.buffers[i];
      std::string p = "/buffers/" + std::to_string(i);
      if (b.id != static_cast<int>(i)) bad(p + "/id", "ids must be dense and in order");
      if (b.kind != "smem") bad(p + "/kind", "only \"smem\" buffers exist on sm_90a");
      if (b.depth < 1) bad(p + "/depth", "depth must be at least 1");
      long long elems = 1;
      for (int d : b.shape) elems *= d;
      int bits = elem_bits(b.elem);
      if (bits == 0)
        bad(p + "/elem", "unknown element type \"" + b.elem + "\"");
      else if (elems * bits / 8 != b.bytes)
        bad(p + "/bytes", "shape and element type give " + std::to_string(elems * bits / 8));
      if (b.loop < -1 || b.loop >= static_cast<int>(g.loops.size()))
        bad(p + "/loop", "no such loop");
      if (!op_ok(b.producer_op)) bad(p + "/producer_op", "unknown op");
      for (size_t k = 0; k < b.consumer_ops.size(); ++k)
        if (!op_ok(b.consumer_ops[k])) bad(p + "/consumer_ops/" + std::to_string(k), "unknown op");
      if (b.live_end < b.live_start) bad(p + "/live_end", "ends before it starts");
      if (b.loop == -1 && op_ok(b.producer_op)) staging(b, p);
      if (b.fill_op != -1) fill(b, p);
      if (b.ring != -1) {
        if (b.loop < 0 || b.loop >= static_cast<int>(g.loops.size()) || b.ring < 0 ||
            b.ring >= static_cast<int>(g.loops[b.loop].rings.size())) {
          bad(p + "/ring", "no such ring in loop " + std::to_string(b.loop));
        } else {
          const Ring& r = g.loops[b.loop].rings[b.ring];
          if (std::find(r.buffers.begin(), r.buffers.end(), b.id) == r.buffers.end())
            bad(p + "/ring", "ring does not list this buffer");
          if (r.depth != b.depth) bad(p + "/depth", "differs from its ring's depth");
        }
      }
      loop_bytes[b.loop] += static_cast<long long>(b.bytes) * b.depth;
    }
    for (const auto& [loop, bytes] : loop_bytes)
      if (bytes > g.target.smem_bytes)
        bad("/buffers", "buffers of loop " + std::to_string(loop) + " need " +
                            std::to_string(bytes) + " B of shared memory, the target has " +
                            std::to_string(g.target.smem_bytes));
  }

  // Function-scope channels: a resident buffer filled once by TMA in one role, read in another.
  void fn_channels() {
    for (size_t i = 0; i < g.channels.size(); ++i) {
      const FnChannel& c = g.channels[i];
      std::string q = "/channels/" + std::to_string(i);
      if (c.id != static_cast<int>(i)) bad(q + "/id", "ids must be dense and in order");
      if (c.buffer < 0 || c.buffer >= static_cast<int>(g.buffers.size()) ||
          g.buffers[c.buffer].loop != -1) {
        bad(q + "/buffer", "must be a function-scope buffer");
        continue;
      }
      const Buffer& b = g.buffers[c.buffer];
      if (op_ok(b.producer_op) && fn->op(b.producer_op).name != "ttg.local_alloc")
        bad(q + "/buffer", "a resident buffer is the ttg.local_alloc of a TMA load");
      if (!role_ok(c.producer_role)) bad(q + "/producer_role", "no such role");
      if (!role_ok(c.consumer_role)) bad(q + "/consumer_role", "no such role");
      if (c.mechanism != "tma") bad(q + "/mechanism", "must be \"tma\"");
      if (c.expect_bytes != b.bytes)
        bad(q + "/expect_bytes", "the buffer holds " + std::to_string(b.bytes) + " B");
      if (c.full_arrivals != 1) bad(q + "/full_arrivals", "a TMA buffer is armed by one arrival");
      for (size_t k = 0; k < i; ++k)
        if (g.channels[k].buffer == c.buffer) bad(q + "/buffer", "buffer has two channels");
    }
  }

  void loop(size_t li) {
    const Loop& L = g.loops[li];
    std::string p = "/loops/" + std::to_string(li);
    if (!op_ok(L.op) || fn->op(L.op).name != "scf.for") {
      bad(p + "/op", "must be an scf.for op");
      return;
    }
    const ttgir::Op& f = fn->op(L.op);
    if (f.operands.size() < 3 || L.lb != f.operands[0] || L.ub != f.operands[1] ||
        L.step != f.operands[2])
      bad(p + "/lb", "lb/ub/step must be the scf.for's first three operands");
    if (L.parent_loop != -1 &&
        (L.parent_loop < 0 || L.parent_loop >= static_cast<int>(g.loops.size()) ||
         L.parent_loop == static_cast<int>(li)))
      bad(p + "/parent_loop", "no such loop");
    if (L.split != 1 && L.split != 2 && L.split != 4 && L.split != 8)
      bad(p + "/split", "must be 1, 2, 4 or 8 (CTAs of a cluster)");
    if (L.split > 1) {
      for (size_t o = 0; o < li; ++o)
        if (g.loops[o].split > 1) bad(p + "/split", "only one loop of a kernel may be split");
      const int par = L.parent_loop;
      if (par >= 0 && par < static_cast<int>(g.loops.size()) &&
          g.loops[static_cast<size_t>(par)].parent_loop != -1)
        bad(p + "/split", "a split loop is at top level or in a top-level loop");
    }
    if (L.ii < 1) {
      bad(p + "/ii", "II must be positive");
      return;
    }
    if (L.ii < L.res_mii || L.ii < L.rec_mii) bad(p + "/ii", "II below the minimum II");
    if (L.res_mii < 0 || L.rec_mii < 0) bad(p + "/res_mii", "ResMII and RecMII are never negative");
    int n = static_cast<int>(L.nodes.size());
    int max_stage = -1;
    std::set<int> node_ops;
    std::map<std::string, long long> occ;
    for (int i = 0; i < n; ++i) {
      const Node& x = L.nodes[i];
      std::string q = p + "/nodes/" + std::to_string(i);
      if (x.id != i) bad(q + "/id", "ids must be dense and in order");
      if (!op_ok(x.op)) {
        bad(q + "/op", "unknown op");
        continue;
      }
      if (fn->op(x.op).parent_op != L.op) bad(q + "/op", "op is not in this loop's body");
      if (!node_ops.insert(x.op).second) bad(q + "/op", "op scheduled twice");
      static const std::set<std::string> pipes = {"TMA", "TC", "CUDA", "SFU", "NONE"};
      if (!pipes.count(x.pipeline)) bad(q + "/pipeline", "unknown pipeline \"" + x.pipeline + "\"");
      if (x.latency < 0 || x.issue_cost < 0 || x.occupancy < 0)
        bad(q, "latency, issue_cost and occupancy must be non-negative");
      if (x.cycle < 0) bad(q + "/cycle", "negative cycle");
      if (x.stage != x.cycle / L.ii)
        bad(q + "/stage", "stage " + std::to_string(x.stage) +
                              " != cycle / II = " + std::to_string(x.cycle / L.ii));
      max_stage = std::max(max_stage, x.stage);
      if (x.role != -1 && !role_ok(x.role)) bad(q + "/role", "no such role");
      if (x.role == -1 && x.pipeline != "NONE")
        bad(q + "/role", "only NONE nodes may be unassigned");
      if (x.child_loop != -1) {
        if (x.child_loop < 0 || x.child_loop >= static_cast<int>(g.loops.size()) ||
            g.loops[x.child_loop].op != x.op ||
            g.loops[x.child_loop].parent_loop != static_cast<int>(li))
          bad(q + "/child_loop", "must be the loop whose op this is, nested in this loop");
      }
      if (x.pipeline == "TMA" || x.pipeline == "TC") occ[x.pipeline] += x.occupancy;
    }
    for (const auto& [pipe, c] : occ)
      if (c > L.ii)
        bad(p + "/ii", pipe + " occupancy " + std::to_string(c) + " per iteration exceeds II " +
                           std::to_string(L.ii));
    if (L.stages != max_stage + 1)
      bad(p + "/stages",
          "must be the largest node stage + 1 (" + std::to_string(max_stage + 1) + ")");
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const Node& x = L.nodes[a];
        const Node& y = L.nodes[b];
        if (x.stage == y.stage && x.cycle < y.cycle && x.order > y.order)
          bad(p + "/nodes/" + std::to_string(b) + "/order",
              "in-stage order contradicts the cycles of nodes " + std::to_string(a) + " and " +
                  std::to_string(b));
      }
    for (size_t i = 0; i < L.edges.size(); ++i) {
      const Edge& e = L.edges[i];
      std::string q = p + "/edges/" + std::to_string(i);
      if (e.src < 0 || e.src >= n || e.dst < 0 || e.dst >= n) {
        bad(q, "edge endpoint is not a node");
        continue;
      }
      // -1: an issue-order constraint, dst of iteration i after src of iteration i + 1.
      if (e.distance < -1) bad(q + "/distance", "distance below -1");
      if (e.latency < 0) bad(q + "/latency", "negative latency");
      long long lhs = L.nodes[e.dst].cycle + static_cast<long long>(e.distance) * L.ii;
      long long rhs = L.nodes[e.src].cycle + static_cast<long long>(e.latency);
      if (lhs < rhs)
        bad(q, "dependence violated: cycle[" + std::to_string(e.dst) + "] + " +
                   std::to_string(e.distance) + "*II = " + std::to_string(lhs) + " < cycle[" +
                   std::to_string(e.src) + "] + " + std::to_string(e.latency) + " = " +
                   std::to_string(rhs));
    }
    for (size_t i = 0; i < L.rings.size(); ++i) {
      const Ring& r = L.rings[i];
      std::string q = p + "/rings/" + std::to_string(i);
      if (r.id != static_cast<int>(i)) bad(q + "/id", "ids must be dense and in order");
      if (r.depth < 1) bad(q + "/depth", "depth must be at least 1");
      if (r.buffers.empty()) bad(q + "/buffers", "a ring guards at least one buffer");
      for (size_t k = 0; k < r.buffers.size(); ++k) {
        int b = r.buffers[k];
        if (b < 0 || b >= static_cast<int>(g.buffers.size()) ||
            g.buffers[b].loop != static_cast<int>(li) || g.buffers[b].ring != r.id)
          bad(q + "/buffers/" + std::to_string(k), "buffer does not belong to this ring");
      }
    }
    for (size_t i = 0; i < L.channels.size(); ++i) {
      const Channel& c = L.channels[i];
      std::string q = p + "/channels/" + std::to_string(i);
      if (c.id != static_cast<int>(i)) bad(q + "/id", "ids must be dense and in order");
      if (c.ring < 0 || c.ring >= static_cast<int>(L.rings.size())) {
        bad(q + "/ring", "no such ring");
        continue;
      }
      if (!role_ok(c.producer_role)) bad(q + "/producer_role", "no such role");
      if (!role_ok(c.consumer_role)) bad(q + "/consumer_role", "no such role");
      if (!role_ok(c.producer_role) || !role_ok(c.consumer_role)) continue;
      long long bytes = 0;
      for (int b : L.rings[c.ring].buffers)
        if (b >= 0 && b < static_cast<int>(g.buffers.size())) bytes += g.buffers[b].bytes;
      // Arrival convention (docs/schedule_graph.md): one elected lane per warp arrives.
      int cons_warps = 4 * static_cast<int>(g.launch.roles[c.consumer_role].warpgroups.size());
      int prod_warps = 4 * static_cast<int>(g.launch.roles[c.producer_role].warpgroups.size());
      if (c.mechanism == "tma") {
        if (c.expect_bytes != bytes)
          bad(q + "/expect_bytes",
              "the ring's buffers hold " + std::to_string(bytes) + " B per slot");
        if (c.full_arrivals != 1) bad(q + "/full_arrivals", "a TMA slot is armed by one arrival");
      } else if (c.mechanism == "store") {
        if (c.expect_bytes != 0) bad(q + "/expect_bytes", "must be 0 for \"store\"");
        if (c.full_arrivals != prod_warps)
          bad(q + "/full_arrivals",
              "must equal the producer role's warps (" + std::to_string(prod_warps) + ")");
      } else {
        bad(q + "/mechanism", "must be \"tma\" or \"store\"");
      }
      if (c.empty_arrivals != cons_warps)
        bad(q + "/empty_arrivals",
            "must equal the consumer role's warps (" + std::to_string(cons_warps) + ")");
    }
  }
};

}  // namespace

std::vector<Problem> check(const ScheduleGraph& g) {
  Checker c{g, {}};
  if (g.version != kSchemaVersion) c.bad("/version", "unsupported version");
  // The embedded module is held to what `schedule` accepts from a .ttgir file (target, ops,
  // shapes, loops, terminators): a graph edited to hold what the parser would refuse is refused.
  try {
    ttgir::check_supported(g.ir);
  } catch (const Error& e) {
    c.bad("/ir", e.what());
  }
  c.kernel();
  c.launch();
  c.buffers();
  if (c.fn != nullptr) c.fn_channels();
  for (size_t i = 0; i < g.loops.size(); ++i) c.loop(i);
  return c.out;
}

void validate(const ScheduleGraph& g, const std::string& file) {
  auto problems = check(g);
  if (problems.empty()) return;
  std::string msg = file + ": error: invalid schedule graph (" + std::to_string(problems.size()) +
                    " problem" + (problems.size() == 1 ? "" : "s") + ")";
  for (const auto& p : problems) msg += "\n  " + p.path + ": " + p.message;
  throw Error(msg);
}

}  // namespace sched2cu::sgraph
