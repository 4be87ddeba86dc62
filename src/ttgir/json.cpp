// JSON form of the TTGIR IR (json.h). Writes only non-default fields of types and attributes
// (plus a derived "str" for readers), all fields of ops and values. Must never produce a module
// with dangling ids from a document: module_from_json checks every id and throws Error.
#include "sched2cu/ttgir/json.h"

#include <array>

namespace sched2cu::ttgir {

using nlohmann::json;

namespace {

constexpr const char* kSchema = "sched2cu.ttgir/1";

const std::array<const char*, 10> kTypeKinds = {"integer",     "float",  "index",      "none",
                                                "ptr",         "tensor", "tensordesc", "memdesc",
                                                "async_token", "other"};
const std::array<const char*, 14> kAttrKinds = {
    "unit",  "bool",        "int",  "float", "string", "symbol",  "type",
    "array", "dense_array", "dict", "dense", "alias",  "dialect", "keyword"};

template <typename E, size_t N>
E kind_from(const json& j, const std::array<const char*, N>& names) {
  std::string s = j.get<std::string>();
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  throw Error("invalid TTGIR JSON: unknown kind '" + s + "'");
}

json loc_json(const SourceLoc& l) { return json::array({l.file, l.line, l.col}); }
SourceLoc loc_from(const json& j) {
  return SourceLoc{j.at(0).get<std::string>(), j.at(1).get<int>(), j.at(2).get<int>()};
}

json attrs_json(const std::vector<NamedAttr>& attrs) {
  json a = json::array();
  for (const auto& [k, v] : attrs) a.push_back(json::array({k, to_json(v)}));
  return a;
}
std::vector<NamedAttr> attrs_from(const json& j) {
  std::vector<NamedAttr> out;
  for (const auto& e : j)
    out.emplace_back(e.at(0).get<std::string>(), attribute_from_json(e.at(1)));
  return out;
}

json region_json(const Region& r) {
  json blocks = json::array();
  for (const Block& b : r.blocks) blocks.push_back({{"args", b.args}, {"ops", b.ops}});
  return blocks;
}
Region region_from(const json& j) {
  Region r;
  for (const auto& b : j)
    r.blocks.push_back(
        Block{b.at("args").get<std::vector<ValueId>>(), b.at("ops").get<std::vector<OpId>>()});
  return r;
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

Type type_from_json(const json& j) {
  Type t;
  t.kind = kind_from<Type::Kind>(j.at("kind"), kTypeKinds);
  t.name = j.value("name", std::string());
  t.bits = j.value("bits", 0);
  if (j.contains("shape")) t.shape = j["shape"].get<std::vector<int64_t>>();
  if (j.contains("elem")) t.elem.push_back(type_from_json(j["elem"]));
  if (j.contains("encoding")) t.encoding.push_back(attribute_from_json(j["encoding"]));
  if (j.contains("memory_space")) t.memory_space.push_back(attribute_from_json(j["memory_space"]));
  t.mutable_memory = j.value("mutable", false);
  if (j.contains("alloc_shape")) t.alloc_shape = j["alloc_shape"].get<std::vector<int64_t>>();
  t.address_space = j.value("address_space", 1);
  return t;
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

Attribute attribute_from_json(const json& j) {
  Attribute a;
  a.kind = kind_from<Attribute::Kind>(j.at("kind"), kAttrKinds);
  a.ival = j.value("ival", int64_t{0});
  a.text = j.value("text", std::string());
  if (j.contains("type")) a.type.push_back(type_from_json(j["type"]));
  if (j.contains("elems"))
    for (const auto& e : j["elems"]) a.elems.push_back(attribute_from_json(e));
  if (j.contains("dict")) a.dict = attrs_from(j["dict"]);
  if (j.contains("params"))
    for (const auto& e : j["params"]) a.params.push_back(attribute_from_json(e));
  return a;
}

json to_json(const Location& l) {
  json frames = json::array();
  for (const auto& f : l.frames) frames.push_back(loc_json(f));
  return {{"src", loc_json(l.src)}, {"ir", loc_json(l.ir)}, {"name", l.name}, {"frames", frames}};
}

Location location_from_json(const json& j) {
  Location l;
  l.src = loc_from(j.at("src"));
  l.ir = loc_from(j.at("ir"));
  l.name = j.at("name").get<std::string>();
  for (const auto& f : j.at("frames")) l.frames.push_back(loc_from(f));
  return l;
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

void check_id(int32_t id, size_t n, const char* what, bool allow_none = false) {
  if ((allow_none && id == kNoId) || (id >= 0 && static_cast<size_t>(id) < n)) return;
  throw Error(std::string("invalid TTGIR JSON: ") + what + " id " + std::to_string(id) +
              " out of range");
}

void validate(const Function& f) {
  size_t nv = f.values.size(), no = f.ops.size();
  auto check_region = [&](const Region& r) {
    for (const Block& b : r.blocks) {
      for (ValueId v : b.args) check_id(v, nv, "block argument");
      for (OpId o : b.ops) check_id(o, no, "block op");
    }
  };
  for (ValueId a : f.args) check_id(a, nv, "argument");
  check_region(f.body);
  for (size_t i = 0; i < nv; ++i) {
    const Value& v = f.values[i];
    check_id(v.id, nv, "value");
    if (static_cast<size_t>(v.id) != i) throw Error("invalid TTGIR JSON: value ids out of order");
    check_id(v.def_op, no, "defining op", true);
    check_id(v.owner_op, no, "owner op", true);
    for (OpId u : v.users) check_id(u, no, "user");
  }
  for (size_t i = 0; i < no; ++i) {
    const Op& o = f.ops[i];
    if (static_cast<size_t>(o.id) != i) throw Error("invalid TTGIR JSON: op ids out of order");
    for (ValueId v : o.operands) check_id(v, nv, "operand");
    for (ValueId v : o.results) check_id(v, nv, "result");
    check_id(o.parent_op, no, "parent op", true);
    int seg = 0;
    for (int s : o.operand_segments) seg += s;
    if (static_cast<size_t>(seg) != o.operands.size())
      throw Error("invalid TTGIR JSON: operand segments of op " + std::to_string(i) +
                  " do not add up");
    for (const Region& r : o.regions) check_region(r);
  }
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

Module module_from_json(const json& j) {
  try {
    if (j.at("schema").get<std::string>() != kSchema)
      throw Error("invalid TTGIR JSON: schema is not " + std::string(kSchema));
    Module m;
    m.file = j.at("file").get<std::string>();
    m.attrs = attrs_from(j.at("attrs"));
    m.aliases = attrs_from(j.at("aliases"));
    for (const auto& jf : j.at("functions")) {
      Function f;
      f.name = jf.at("name").get<std::string>();
      f.is_public = jf.at("public").get<bool>();
      f.args = jf.at("args").get<std::vector<ValueId>>();
      f.body = region_from(jf.at("body"));
      for (const auto& jo : jf.at("ops")) {
        Op o;
        o.id = jo.at("id").get<OpId>();
        o.name = jo.at("name").get<std::string>();
        o.operands = jo.at("operands").get<std::vector<ValueId>>();
        o.operand_segments = jo.at("segments").get<std::vector<int>>();
        o.results = jo.at("results").get<std::vector<ValueId>>();
        o.attrs = attrs_from(jo.at("attrs"));
        for (const auto& r : jo.at("regions")) o.regions.push_back(region_from(r));
        const auto& p = jo.at("parent");
        o.parent_op = p.at(0).get<OpId>();
        o.parent_region = p.at(1).get<int>();
        o.parent_block = p.at(2).get<int>();
        o.loc = location_from_json(jo.at("loc"));
        f.ops.push_back(std::move(o));
      }
      for (const auto& jv : jf.at("values")) {
        Value v;
        v.id = jv.at("id").get<ValueId>();
        v.name = jv.at("name").get<std::string>();
        v.type = type_from_json(jv.at("type"));
        v.def_op = jv.at("def").at(0).get<OpId>();
        v.result_index = jv.at("def").at(1).get<int>();
        const auto& ow = jv.at("owner");
        v.owner_op = ow.at(0).get<OpId>();
        v.owner_region = ow.at(1).get<int>();
        v.owner_block = ow.at(2).get<int>();
        v.arg_index = ow.at(3).get<int>();
        v.users = jv.at("users").get<std::vector<OpId>>();
        v.loc = location_from_json(jv.at("loc"));
        v.attrs = attrs_from(jv.at("attrs"));
        f.values.push_back(std::move(v));
      }
      f.attrs = attrs_from(jf.at("attrs"));
      f.loc = location_from_json(jf.at("loc"));
      validate(f);
      m.functions.push_back(std::move(f));
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("invalid TTGIR JSON: ") + e.what());
  }
}

}  // namespace sched2cu::ttgir
