// The reader of the TTGIR JSON form (json.h): module_from_json and its pieces. Strict: every field
// must have exactly the JSON type the writer (json.cpp) gives it (a float is not read as an
// integer, null not as an empty list, a bool not as 0 or 1), integers must fit their field,
// nesting is bounded, and the module returned has passed the structural verifier (verify.h).
// Must never return a module with dangling or inconsistent ids: every problem is a
// sched2cu::Error naming the JSON path of the field.
#include <cstdint>
#include <limits>
#include <string>

#include "json_schema.h"
#include "sched2cu/common/json_cursor.h"
#include "sched2cu/ttgir/json.h"
#include "sched2cu/ttgir/verify.h"

namespace sched2cu::ttgir {

using nlohmann::json;

namespace {

// Types and attributes nest (a tensor of pointers, a dialect attribute holding a dict of
// arrays); the parser stops at 200 levels, and so does the reader, so that a hostile document
// is an error and not a stack overflow.
constexpr int kMaxDepth = 200;

// A position in the document (sched2cu/common/json_cursor.h); every message starts with this.
const std::string kPrefix = "invalid TTGIR JSON: ";
using In = JsonCursor<json>;
In root(const json& j) { return In{j, "", kPrefix}; }

template <typename E, size_t N>
E kind_from(const In& in, const std::array<const char*, N>& names) {
  const std::string s = in.string();
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  in.fail("unknown kind '" + s + "'");
}

Type type_from(const In& in);
Attribute attribute_from(const In& in);

SourceLoc loc_from(const In& in) {
  if (in.size() != 3) in.fail("expected [file, line, column]");
  return SourceLoc{in.at(size_t{0}).string(), in.at(size_t{1}).integer<int>(),
                   in.at(size_t{2}).integer<int>()};
}

std::vector<NamedAttr> attrs_from(const In& in) {
  std::vector<NamedAttr> out;
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    const In e = in.at(i);
    if (e.size() != 2) e.fail("expected [name, attribute]");
    out.emplace_back(e.at(size_t{0}).string(), attribute_from(e.at(size_t{1})));
  }
  return out;
}

std::vector<Attribute> attr_list(const In& in) {
  std::vector<Attribute> out;
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) out.push_back(attribute_from(in.at(i)));
  return out;
}

Region region_from(const In& in) {
  Region r;
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    const In b = in.at(i);
    r.blocks.push_back(Block{b.at("args").integers<ValueId>(), b.at("ops").integers<OpId>()});
  }
  return r;
}

Type type_from(const In& in) {
  in.bound_depth(kMaxDepth);
  Type t;
  t.kind = kind_from<Type::Kind>(in.at("kind"), detail::kTypeKinds);
  if (in.has("name")) t.name = in.at("name").string();
  if (in.has("bits")) t.bits = in.at("bits").integer<int>();
  if (in.has("shape")) t.shape = in.at("shape").integers<int64_t>();
  if (in.has("elem")) t.elem.push_back(type_from(in.at("elem")));
  if (in.has("encoding")) t.encoding.push_back(attribute_from(in.at("encoding")));
  if (in.has("memory_space")) t.memory_space.push_back(attribute_from(in.at("memory_space")));
  if (in.has("mutable")) t.mutable_memory = in.at("mutable").boolean();
  if (in.has("alloc_shape")) t.alloc_shape = in.at("alloc_shape").integers<int64_t>();
  if (in.has("address_space")) t.address_space = in.at("address_space").integer<int>();
  // "str" is derived, for human readers and tools; a document whose spelling says one thing and
  // whose fields another was edited by hand, and which one was meant is unknowable.
  if (in.has("str") && in.at("str").string() != t.str())
    in.at("str").fail("'" + in.at("str").string() + "' differs from the type its fields give, '" +
                      t.str() + "'");
  return t;
}

Attribute attribute_from(const In& in) {
  in.bound_depth(kMaxDepth);
  Attribute a;
  a.kind = kind_from<Attribute::Kind>(in.at("kind"), detail::kAttrKinds);
  if (in.has("ival")) a.ival = in.at("ival").integer<int64_t>();
  if (in.has("text")) a.text = in.at("text").string();
  if (in.has("type")) a.type.push_back(type_from(in.at("type")));
  if (in.has("elems")) a.elems = attr_list(in.at("elems"));
  if (in.has("dict")) a.dict = attrs_from(in.at("dict"));
  if (in.has("params")) a.params = attr_list(in.at("params"));
  return a;
}

Location location_from(const In& in) {
  Location l;
  l.src = loc_from(in.at("src"));
  l.ir = loc_from(in.at("ir"));
  l.name = in.at("name").string();
  const In fr = in.at("frames");
  const size_t n = fr.size();
  for (size_t i = 0; i < n; ++i) l.frames.push_back(loc_from(fr.at(i)));
  return l;
}

Op op_from(const In& in) {
  Op o;
  o.id = in.at("id").integer<OpId>();
  o.name = in.at("name").string();
  o.operands = in.at("operands").integers<ValueId>();
  o.operand_segments = in.at("segments").integers<int>();
  o.results = in.at("results").integers<ValueId>();
  o.attrs = attrs_from(in.at("attrs"));
  const In rs = in.at("regions");
  const size_t n = rs.size();
  for (size_t i = 0; i < n; ++i) o.regions.push_back(region_from(rs.at(i)));
  const In p = in.at("parent");
  if (p.size() != 3) p.fail("expected [op, region, block]");
  o.parent_op = p.at(size_t{0}).integer<OpId>();
  o.parent_region = p.at(size_t{1}).integer<int>();
  o.parent_block = p.at(size_t{2}).integer<int>();
  o.loc = location_from(in.at("loc"));
  return o;
}

Value value_from(const In& in) {
  Value v;
  v.id = in.at("id").integer<ValueId>();
  v.name = in.at("name").string();
  v.type = type_from(in.at("type"));
  const In d = in.at("def");
  if (d.size() != 2) d.fail("expected [op, result index]");
  v.def_op = d.at(size_t{0}).integer<OpId>();
  v.result_index = d.at(size_t{1}).integer<int>();
  const In ow = in.at("owner");
  if (ow.size() != 4) ow.fail("expected [op, region, block, argument index]");
  v.owner_op = ow.at(size_t{0}).integer<OpId>();
  v.owner_region = ow.at(size_t{1}).integer<int>();
  v.owner_block = ow.at(size_t{2}).integer<int>();
  v.arg_index = ow.at(size_t{3}).integer<int>();
  v.users = in.at("users").integers<OpId>();
  v.loc = location_from(in.at("loc"));
  v.attrs = attrs_from(in.at("attrs"));
  return v;
}

Function function_from(const In& in) {
  Function f;
  f.name = in.at("name").string();
  f.is_public = in.at("public").boolean();
  f.args = in.at("args").integers<ValueId>();
  f.body = region_from(in.at("body"));
  const In os = in.at("ops");
  const size_t no = os.size();
  for (size_t i = 0; i < no; ++i) f.ops.push_back(op_from(os.at(i)));
  const In vs = in.at("values");
  const size_t nv = vs.size();
  for (size_t i = 0; i < nv; ++i) f.values.push_back(value_from(vs.at(i)));
  f.attrs = attrs_from(in.at("attrs"));
  f.loc = location_from(in.at("loc"));
  return f;
}

}  // namespace

Type type_from_json(const json& j) { return type_from(root(j)); }
Attribute attribute_from_json(const json& j) { return attribute_from(root(j)); }
Location location_from_json(const json& j) { return location_from(root(j)); }

Module module_from_json(const json& j) {
  const In in = root(j);
  if (in.at("schema").string() != detail::kSchema)
    in.at("schema").fail("expected \"" + std::string(detail::kSchema) + "\"");
  Module m;
  m.file = in.at("file").string();
  m.attrs = attrs_from(in.at("attrs"));
  m.aliases = attrs_from(in.at("aliases"));
  const In fs = in.at("functions");
  const size_t n = fs.size();
  for (size_t i = 0; i < n; ++i) m.functions.push_back(function_from(fs.at(i)));
  if (auto problem = structural_problem(m)) throw Error("invalid TTGIR JSON: " + *problem);
  return m;
}

}  // namespace sched2cu::ttgir
