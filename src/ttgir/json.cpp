// JSON form of the TTGIR IR (json.h), the writer: only non-default fields of types and
// attributes (plus a derived "str" for readers), all fields of ops and values. The reader is
// json_read.cpp. Must never write floats or anything but what the reader takes back unchanged.
#include "sched2cu/ttgir/json.h"
#include "json_schema.h"

namespace sched2cu::ttgir {

using detail::kAttrKinds;
using detail::kSchema;
using detail::kTypeKinds;
using nlohmann::json;

namespace {

json loc_json(const SourceLoc& l) { return json::array({l.file, l.line, l.col}); }
json attrs_json(const std::vector<NamedAttr>& attrs) {
  json a = json::array();
  for (const auto& [k, v] : attrs) a.push_back(json::array({k, to_json(v)}));
  return a;
}
json region_json(const Region& r) {
  json blocks = json::array();
  for (const Block& b : r.blocks) blocks.push_back({{"args", b.args}, {"ops", b.ops}});
  return blocks;
}
}  // namespace

json to_json(const Type& t) {
  json j;
  j["kind"] = kTypeKinds[static_cast<size_t>(t.kind)];
  j["str"] = t.str();
  if (!t.name.empty()) j["name"] = t.name;
  if (t.bits) j["bits"] = t.bits;
  if (!t.shape.empty()) j["shape"] = t.shape;
  if (!t.elem.empty()) j["elem"] = to_json(t.elem[0]);
  if (!t.encoding.empty()) j["encoding"] = to_json(t.encoding[0]);
  if (!t.memory_space.empty()) j["memory_space"] = to_json(t.memory_space[0]);
  if (t.mutable_memory) j["mutable"] = true;
  if (!t.alloc_shape.empty()) j["alloc_shape"] = t.alloc_shape;
  if (t.address_space != 1) j["address_space"] = t.address_space;
  return j;
}

json to_json(const Attribute& a) {
  json j;
  j["kind"] = kAttrKinds[static_cast<size_t>(a.kind)];
  if (a.ival) j["ival"] = a.ival;
  if (!a.text.empty()) j["text"] = a.text;
  if (!a.type.empty()) j["type"] = to_json(a.type[0]);
  if (!a.elems.empty()) {
    json e = json::array();
    for (const auto& x : a.elems) e.push_back(to_json(x));
    j["elems"] = e;
  }
  if (!a.dict.empty()) j["dict"] = attrs_json(a.dict);
  if (!a.params.empty()) {
    json p = json::array();
    for (const auto& x : a.params) p.push_back(to_json(x));
    j["params"] = p;
  }
  return j;
}

json to_json(const Location& l) {
  json frames = json::array();
  for (const auto& f : l.frames) frames.push_back(loc_json(f));
  return {{"src", loc_json(l.src)}, {"ir", loc_json(l.ir)}, {"name", l.name}, {"frames", frames}};
}

json to_json(const Op& o) {
  json regions = json::array();
  for (const Region& r : o.regions) regions.push_back(region_json(r));
  return {{"id", o.id},
          {"name", o.name},
          {"operands", o.operands},
          {"segments", o.operand_segments},
          {"results", o.results},
          {"attrs", attrs_json(o.attrs)},
          {"regions", regions},
          {"parent", json::array({o.parent_op, o.parent_region, o.parent_block})},
          {"loc", to_json(o.loc)}};
}

namespace {

json value_json(const Value& v) {
  return {{"id", v.id},
          {"name", v.name},
          {"type", to_json(v.type)},
          {"def", json::array({v.def_op, v.result_index})},
          {"owner", json::array({v.owner_op, v.owner_region, v.owner_block, v.arg_index})},
          {"users", v.users},
          {"loc", to_json(v.loc)},
          {"attrs", attrs_json(v.attrs)}};
}

}  // namespace

json to_json(const Function& f) {
  json ops = json::array(), values = json::array();
  for (const Op& o : f.ops) ops.push_back(to_json(o));
  for (const Value& v : f.values) values.push_back(value_json(v));
  return {{"name", f.name},
          {"public", f.is_public},
          {"args", f.args},
          {"body", region_json(f.body)},
          {"ops", ops},
          {"values", values},
          {"attrs", attrs_json(f.attrs)},
          {"loc", to_json(f.loc)}};
}

json to_json(const Module& m) {
  json fns = json::array();
  for (const Function& f : m.functions) fns.push_back(to_json(f));
  return {{"schema", kSchema},
          {"file", m.file},
          {"attrs", attrs_json(m.attrs)},
          {"aliases", attrs_json(m.aliases)},
          {"functions", fns}};
}

}  // namespace sched2cu::ttgir
