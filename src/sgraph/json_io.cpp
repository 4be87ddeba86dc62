// schedule_graph.json reader and writer. Layout of the output: objects one key per line, except
// that an object or array holding only scalars (or arrays of scalars) is printed on one line when
// it fits in kInlineWidth characters. This keeps diffs of regenerated fixtures readable (one node
// per line) and the bytes a pure function of the graph. Never emit floats or pointer values.
#include "sched2cu/sgraph/json_io.h"

#include <climits>

#include <nlohmann/json.hpp>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/common/json_cursor.h"
#include "sched2cu/ttgir/json.h"

namespace sched2cu::sgraph {
namespace {

using J = nlohmann::ordered_json;
constexpr size_t kInlineWidth = 110;
// Deeper than any graph the writer produces (the IR's attributes nest deepest), far below what
// would overflow the stack of the recursive readers.
constexpr int kMaxJsonDepth = 512;

// ---------------------------------------------------------------------------------------------
// Writer

bool is_flat(const J& j) {
  if (j.is_object() || j.is_array()) {
    for (const auto& v : j) {
      if (v.is_object()) return false;
      if (v.is_array())
        for (const auto& w : v)
          if (w.is_object() || w.is_array()) return false;
    }
  }
  return true;
}

std::string inline_text(const J& j) {
  if (j.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) s += ", ";
      first = false;
      s += J(it.key()).dump() + ": " + inline_text(it.value());
    }
    return s + "}";
  }
  if (j.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + inline_text(j[i]);
    return s + "]";
  }
  return j.dump();
}

void print(const J& j, int indent, std::string& out) {
  if (!j.is_object() && !j.is_array()) {
    out += j.dump();
    return;
  }
  if (j.empty()) {
    out += j.is_object() ? "{}" : "[]";
    return;
  }
  if (is_flat(j)) {
    std::string s = inline_text(j);
    if (s.size() + static_cast<size_t>(indent) <= kInlineWidth) {
      out += s;
      return;
    }
  }
  const std::string pad(static_cast<size_t>(indent + 2), ' ');
  out += j.is_object() ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (j.is_object()) out += J(it.key()).dump() + ": ";
    print(it.value(), indent + 2, out);
  }
  out += "\n" + std::string(static_cast<size_t>(indent), ' ') + (j.is_object() ? "}" : "]");
}

J grid_j(const GridExpr& e) {
  switch (e.kind) {
    case GridExpr::Kind::Int:
      return {{"int", e.value}};
    case GridExpr::Kind::Param:
      return {{"param", e.param}};
    case GridExpr::Kind::NumSms:
      return {{"num_sms", true}};
    default:
      return {{grid_op_name(e.kind), J::array({grid_j(e.args[0]), grid_j(e.args[1])})}};
  }
}

J to_j(const ScheduleGraph& g) {
  J root;
  root["schema"] = kSchemaName;
  root["version"] = g.version;
  J k;
  k["name"] = g.kernel.name;
  k["source"] = g.kernel.source;
  k["num_warps"] = g.kernel.num_warps;
  k["params"] = J::array();
  for (const auto& p : g.kernel.params)
    k["params"].push_back({{"name", p.name}, {"type", p.type}, {"value", p.value}});
  root["kernel"] = k;
  J t;
  t["name"] = g.target.name;
  t["smem_bytes"] = g.target.smem_bytes;
  t["regs_per_sm"] = g.target.regs_per_sm;
  t["max_regs_per_thread"] = g.target.max_regs_per_thread;
  t["max_threads_per_block"] = g.target.max_threads_per_block;
  root["target"] = t;
  J l;
  l["warpgroups"] = g.launch.warpgroups;
  l["grid"] = J::array();
  for (const auto& e : g.launch.grid) l["grid"].push_back(grid_j(e));
  l["raster_group"] = g.launch.raster_group;
  if (g.launch.ctas_per_sm != 1) l["ctas_per_sm"] = g.launch.ctas_per_sm;
  if (!g.launch.load_path.empty()) l["load_path"] = g.launch.load_path;
  l["roles"] = J::array();
  for (const auto& r : g.launch.roles)
    l["roles"].push_back({{"id", r.id},
                          {"name", r.name},
                          {"kind", r.kind},
                          {"warpgroups", r.warpgroups},
                          {"regs", r.regs},
                          {"split_dim", r.split_dim},
                          {"split_parts", r.split_parts},
                          {"pingpong", r.pingpong}});
  root["launch"] = l;
  J bufs = J::array();
  for (const auto& b : g.buffers) {
    J jb = {{"id", b.id},
            {"kind", b.kind},
            {"shape", b.shape},
            {"elem", b.elem},
            {"bytes", b.bytes},
            {"depth", b.depth},
            {"loop", b.loop},
            {"producer_op", b.producer_op},
            {"consumer_ops", b.consumer_ops},
            {"live_start", b.live_start},
            {"live_end", b.live_end},
            {"ring", b.ring}};
    if (b.fill_op >= 0) jb["fill_op"] = b.fill_op;  // optional: absent = none
    bufs.push_back(jb);
  }
  root["buffers"] = bufs;
  J fch = J::array();
  for (const auto& c : g.channels)
    fch.push_back({{"id", c.id},
                   {"buffer", c.buffer},
                   {"producer_role", c.producer_role},
                   {"consumer_role", c.consumer_role},
                   {"mechanism", c.mechanism},
                   {"expect_bytes", c.expect_bytes},
                   {"full_arrivals", c.full_arrivals}});
  root["channels"] = fch;
  J loops = J::array();
  for (const auto& L : g.loops) {
    J jl;
    jl["op"] = L.op;
    jl["parent_loop"] = L.parent_loop;
    jl["lb"] = L.lb;
    jl["ub"] = L.ub;
    jl["step"] = L.step;
    jl["ii"] = L.ii;
    jl["res_mii"] = L.res_mii;
    jl["rec_mii"] = L.rec_mii;
    jl["ii_optimal"] = L.ii_optimal;
    jl["stages"] = L.stages;
    if (L.split != 1) jl["split"] = L.split;
    J nodes = J::array();
    for (const auto& n : L.nodes)
      nodes.push_back({{"id", n.id},
                       {"op", n.op},
                       {"pipeline", n.pipeline},
                       {"latency", n.latency},
                       {"issue_cost", n.issue_cost},
                       {"occupancy", n.occupancy},
                       {"cycle", n.cycle},
                       {"stage", n.stage},
                       {"order", n.order},
                       {"role", n.role},
                       {"child_loop", n.child_loop}});
    jl["nodes"] = nodes;
    J edges = J::array();
    for (const auto& e : L.edges)
      edges.push_back(
          {{"src", e.src}, {"dst", e.dst}, {"latency", e.latency}, {"distance", e.distance}});
    jl["edges"] = edges;
    J rings = J::array();
    for (const auto& r : L.rings)
      rings.push_back({{"id", r.id}, {"depth", r.depth}, {"buffers", r.buffers}});
    jl["rings"] = rings;
    J chans = J::array();
    for (const auto& c : L.channels)
      chans.push_back({{"id", c.id},
                       {"ring", c.ring},
                       {"producer_role", c.producer_role},
                       {"consumer_role", c.consumer_role},
                       {"mechanism", c.mechanism},
                       {"expect_bytes", c.expect_bytes},
                       {"full_arrivals", c.full_arrivals},
                       {"empty_arrivals", c.empty_arrivals}});
    jl["channels"] = chans;
    loops.push_back(jl);
  }
  root["loops"] = loops;
  // Last, because it is by far the largest part; nlohmann::json -> ordered_json keeps its
  // (sorted) key order, so the text stays a function of the module.
  root["ir"] = J(ttgir::to_json(g.ir));
  return root;
}

// ---------------------------------------------------------------------------------------------
// Reader: a cursor that knows its JSON path, so every schema error names the field
// (sched2cu/common/json_cursor.h, shared with the TTGIR JSON reader).

using Cur = JsonCursor<J>;

// Grid expressions nest; no real grid is more than a few levels deep, and a recursion without
// bound is a stack overflow on hostile input.
constexpr int kMaxGridDepth = 64;

GridExpr grid_from(const Cur& c, int depth = 0) {
  if (depth > kMaxGridDepth)
    c.fail("grid expression nested deeper than " + std::to_string(kMaxGridDepth) + " levels");
  if (!c.j.is_object() || c.j.size() != 1)
    c.fail("expected an object with one key: int, param, num_sms, add, sub, mul, div, cdiv or min");
  const std::string key = c.j.begin().key();
  Cur v = c.at(key.c_str());
  if (key == "int") return GridExpr::integer(v.integer<long long>());
  if (key == "param") return GridExpr::parameter(v.string());
  if (key == "num_sms") {
    if (!v.boolean()) v.fail("must be true");
    return GridExpr::num_sms();
  }
  for (auto k : {GridExpr::Kind::Add, GridExpr::Kind::Sub, GridExpr::Kind::Mul, GridExpr::Kind::Div,
                 GridExpr::Kind::Cdiv, GridExpr::Kind::Min})
    if (key == grid_op_name(k)) {
      if (v.size() != 2) v.fail("an operator takes exactly two operands");
      return GridExpr::binary(k, grid_from(v.at(size_t{0}), depth + 1),
                              grid_from(v.at(size_t{1}), depth + 1));
    }
  c.fail("unknown grid expression \"" + key + "\"");
}

ScheduleGraph from_j(const Cur& root) {
  ScheduleGraph g;
  if (root.at("schema").string() != kSchemaName)
    root.at("schema").fail(std::string("expected \"") + kSchemaName + "\"");
  g.version = root.at("version").integer<int>();
  if (g.version != kSchemaVersion)
    root.at("version").fail("unsupported schema version " + std::to_string(g.version) +
                            " (this build reads " + std::to_string(kSchemaVersion) + ")");
  Cur k = root.at("kernel");
  g.kernel.name = k.at("name").string();
  g.kernel.source = k.at("source").string();
  g.kernel.num_warps = k.at("num_warps").integer<int>();
  Cur ps = k.at("params");
  for (size_t i = 0; i < ps.size(); ++i) {
    Cur p = ps.at(i);
    g.kernel.params.push_back(
        {p.at("name").string(), p.at("type").string(), p.at("value").integer<int>()});
  }
  Cur t = root.at("target");
  g.target.name = t.at("name").string();
  g.target.smem_bytes = t.at("smem_bytes").integer<int>();
  g.target.regs_per_sm = t.at("regs_per_sm").integer<int>();
  g.target.max_regs_per_thread = t.at("max_regs_per_thread").integer<int>();
  g.target.max_threads_per_block = t.at("max_threads_per_block").integer<int>();
  Cur l = root.at("launch");
  g.launch.warpgroups = l.at("warpgroups").integer<int>();
  Cur gr = l.at("grid");
  for (size_t i = 0; i < gr.size(); ++i) g.launch.grid.push_back(grid_from(gr.at(i)));
  g.launch.raster_group = l.at("raster_group").integer<int>();
  if (l.has("ctas_per_sm")) g.launch.ctas_per_sm = l.at("ctas_per_sm").integer<int>();
  if (l.has("load_path")) g.launch.load_path = l.at("load_path").string();
  Cur rs = l.at("roles");
  for (size_t i = 0; i < rs.size(); ++i) {
    Cur r = rs.at(i);
    Role role;
    role.id = r.at("id").integer<int>();
    role.name = r.at("name").string();
    role.kind = r.at("kind").string();
    role.warpgroups = r.at("warpgroups").integers<int>();
    role.regs = r.at("regs").integer<int>();
    role.split_dim = r.at("split_dim").integer<int>();
    role.split_parts = r.at("split_parts").integer<int>();
    role.pingpong = r.at("pingpong").boolean();
    g.launch.roles.push_back(role);
  }
  Cur bs = root.at("buffers");
  for (size_t i = 0; i < bs.size(); ++i) {
    Cur b = bs.at(i);
    Buffer buf;
    buf.id = b.at("id").integer<int>();
    buf.kind = b.at("kind").string();
    buf.shape = b.at("shape").integers<int>();
    buf.elem = b.at("elem").string();
    buf.bytes = b.at("bytes").integer<int>();
    buf.depth = b.at("depth").integer<int>();
    buf.loop = b.at("loop").integer<int>();
    buf.producer_op = b.at("producer_op").integer<int>();
    buf.consumer_ops = b.at("consumer_ops").integers<int>();
    buf.live_start = b.at("live_start").integer<int>();
    buf.live_end = b.at("live_end").integer<int>();
    buf.ring = b.at("ring").integer<int>();
    if (b.has("fill_op")) buf.fill_op = b.at("fill_op").integer<int>();
    g.buffers.push_back(buf);
  }
  Cur fc = root.at("channels");
  for (size_t i = 0; i < fc.size(); ++i) {
    Cur x = fc.at(i);
    FnChannel ch;
    ch.id = x.at("id").integer<int>();
    ch.buffer = x.at("buffer").integer<int>();
    ch.producer_role = x.at("producer_role").integer<int>();
    ch.consumer_role = x.at("consumer_role").integer<int>();
    ch.mechanism = x.at("mechanism").string();
    ch.expect_bytes = x.at("expect_bytes").integer<int>();
    ch.full_arrivals = x.at("full_arrivals").integer<int>();
    g.channels.push_back(ch);
  }
  Cur ls = root.at("loops");
  for (size_t i = 0; i < ls.size(); ++i) {
    Cur c = ls.at(i);
    Loop L;
    L.op = c.at("op").integer<int>();
    L.parent_loop = c.at("parent_loop").integer<int>();
    L.lb = c.at("lb").integer<int>();
    L.ub = c.at("ub").integer<int>();
    L.step = c.at("step").integer<int>();
    L.ii = c.at("ii").integer<int>();
    L.res_mii = c.at("res_mii").integer<int>();
    L.rec_mii = c.at("rec_mii").integer<int>();
    L.ii_optimal = c.at("ii_optimal").boolean();
    L.stages = c.at("stages").integer<int>();
    if (c.has("split")) L.split = c.at("split").integer<int>();
    Cur ns = c.at("nodes");
    for (size_t n = 0; n < ns.size(); ++n) {
      Cur x = ns.at(n);
      Node node;
      node.id = x.at("id").integer<int>();
      node.op = x.at("op").integer<int>();
      node.pipeline = x.at("pipeline").string();
      node.latency = x.at("latency").integer<int>();
      node.issue_cost = x.at("issue_cost").integer<int>();
      node.occupancy = x.at("occupancy").integer<int>();
      node.cycle = x.at("cycle").integer<int>();
      node.stage = x.at("stage").integer<int>();
      node.order = x.at("order").integer<int>();
      node.role = x.at("role").integer<int>();
      node.child_loop = x.at("child_loop").integer<int>();
      L.nodes.push_back(node);
    }
    Cur es = c.at("edges");
    for (size_t n = 0; n < es.size(); ++n) {
      Cur x = es.at(n);
      L.edges.push_back({x.at("src").integer<int>(), x.at("dst").integer<int>(),
                         x.at("latency").integer<int>(), x.at("distance").integer<int>()});
    }
    Cur rr = c.at("rings");
    for (size_t n = 0; n < rr.size(); ++n) {
      Cur x = rr.at(n);
      L.rings.push_back({x.at("id").integer<int>(), x.at("depth").integer<int>(),
                         x.at("buffers").integers<int>()});
    }
    Cur cs = c.at("channels");
    for (size_t n = 0; n < cs.size(); ++n) {
      Cur x = cs.at(n);
      Channel ch;
      ch.id = x.at("id").integer<int>();
      ch.ring = x.at("ring").integer<int>();
      ch.producer_role = x.at("producer_role").integer<int>();
      ch.consumer_role = x.at("consumer_role").integer<int>();
      ch.mechanism = x.at("mechanism").string();
      ch.expect_bytes = x.at("expect_bytes").integer<int>();
      ch.full_arrivals = x.at("full_arrivals").integer<int>();
      ch.empty_arrivals = x.at("empty_arrivals").integer<int>();
      L.channels.push_back(ch);
    }
    g.loops.push_back(L);
  }
  Cur ir = root.at("ir");
  try {
    g.ir = ttgir::module_from_json(nlohmann::json(ir.j));
  } catch (const Error& e) {
    ir.fail(e.what());
  } catch (const nlohmann::json::exception& e) {
    ir.fail(e.what());
  }
  return g;
}

// 1-based line and column of byte offset `pos` in `text`.
std::pair<int, int> line_col(const std::string& text, size_t pos) {
  int line = 1, col = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

std::string to_json_text(const ScheduleGraph& g) {
  std::string out;
  print(to_j(g), 0, out);
  out += "\n";
  return out;
}

ScheduleGraph from_json_text(const std::string& text, const std::string& file) {
  // Parsing into ordered_json, and the readers after it, recurse once per nesting level (50,000
  // nested grid operators overflowed the stack inside the parser): bound the depth on the text
  // first, without recursion. The committed graphs nest about 15 levels.
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > kMaxJsonDepth) {
        auto [line, col] = line_col(text, i);
        throw Error(SourceLoc{file, line, col},
                    "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  J j;
  try {
    j = J::parse(text);
  } catch (const J::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    auto [line, col] = line_col(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    auto p = what.find("parse error");
    throw Error(SourceLoc{file, line, col},
                "invalid JSON: " + (p == std::string::npos ? what : what.substr(p)));
  }
  const std::string prefix = file + ": error: schema: ";
  if (!j.is_object()) throw Error(prefix + "/: expected an object");
  return from_j(Cur{j, "", prefix});
}

ScheduleGraph read_schedule_graph(const std::filesystem::path& path) {
  return from_json_text(read_file(path), path.string());
}

void write_schedule_graph(const ScheduleGraph& g, const std::filesystem::path& path) {
  write_file_atomic(path, to_json_text(g));
}

}  // namespace sched2cu::sgraph
