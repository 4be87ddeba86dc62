// Queries on the TTGIR IR (ir.h): type sizes, attribute lookups, alias resolution, loop views.
// Pure functions over the data model; must never mutate the IR or assume it came from the parser
// (it may come from JSON), so every id is range-checked through .at().
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "sched2cu/ttgir/ir.h"

namespace sched2cu::ttgir {

// ---------------------------------------------------------------- Attribute

Attribute::Attribute() = default;
Attribute::~Attribute() = default;
Attribute::Attribute(const Attribute&) = default;
Attribute::Attribute(Attribute&&) noexcept = default;
Attribute& Attribute::operator=(const Attribute&) = default;
Attribute& Attribute::operator=(Attribute&&) noexcept = default;

const Attribute* Attribute::get(const std::string& key) const {
  const Attribute* d = this;
  if (kind == Kind::Dialect && params.size() == 1 && params[0].kind == Kind::Dict) d = &params[0];
  if (d->kind != Kind::Dict) return nullptr;
  for (const auto& [k, v] : d->dict)
    if (k == key) return &v;
  return nullptr;
}

double Attribute::as_double() const {
  if (kind == Kind::Integer || kind == Kind::Bool) return static_cast<double>(ival);
  if (kind != Kind::Float) throw Error("attribute is not a number");
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    // Hex float literals are the bit pattern of the attribute's float type.
    uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
    int width = type.empty() ? 32 : type[0].bits;
    if (width == 64) return std::bit_cast<double>(bits);
    if (width == 32) return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    if (width == 16 && !type.empty() && type[0].name == "f16") {
      // IEEE half: widen by hand (no std::float16_t dependency).
      uint32_t h = static_cast<uint32_t>(bits);
      int e = static_cast<int>((h >> 10) & 0x1f);
      double m = static_cast<double>(h & 0x3ff);
      double s = (h & 0x8000) ? -1.0 : 1.0;
      if (e == 0) return s * std::ldexp(m, -24);
      if (e == 31) return m == 0 ? s * INFINITY : NAN;
      return s * std::ldexp(1024.0 + m, e - 25);
    }
    if (width == 16 && !type.empty() && type[0].name == "bf16")
      return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits) << 16));
    throw Error("hex float literal of unsupported width: " + text);
  }
  return std::strtod(text.c_str(), nullptr);
}

std::vector<int64_t> Attribute::as_int_array() const {
  if (kind != Kind::Array && kind != Kind::DenseArray) throw Error("attribute is not an array");
  std::vector<int64_t> out;
  for (const auto& e : elems) {
    if (e.kind != Kind::Integer) throw Error("array element is not an integer");
    out.push_back(e.ival);
  }
  return out;
}

bool Attribute::operator==(const Attribute& o) const {
  return kind == o.kind && ival == o.ival && text == o.text && type == o.type && elems == o.elems &&
         dict == o.dict && params == o.params;
}

// ---------------------------------------------------------------- Type

bool Type::is_scalar() const {
  return kind == Kind::Integer || kind == Kind::Float || kind == Kind::Index;
}

const Type& Type::element_type() const {
  const Type* t = this;
  while ((t->kind == Kind::Tensor || t->kind == Kind::MemDesc || t->kind == Kind::TensorDesc) &&
         !t->elem.empty())
    t = &t->elem[0];
  return *t;
}

int Type::element_bits() const {
  const Type& e = element_type();
  if (e.kind == Kind::Ptr) return 64;
  return e.bits;
}

int64_t Type::numel() const {
  if (kind == Kind::TensorDesc) return elem.empty() ? 0 : elem[0].numel();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // the parser bounds every shape so this cannot overflow
  return n;
}

int64_t Type::byte_size() const { return (numel() * element_bits() + 7) / 8; }

std::string Type::encoding_alias() const {
  if (!encoding.empty() && encoding[0].kind == Attribute::Kind::Alias) return encoding[0].text;
  return "";
}

// ---------------------------------------------------------------- Location

namespace {
bool same(const SourceLoc& a, const SourceLoc& b) {
  return a.file == b.file && a.line == b.line && a.col == b.col;
}
}  // namespace

bool Location::operator==(const Location& o) const {
  if (!same(src, o.src) || !same(ir, o.ir) || name != o.name || frames.size() != o.frames.size())
    return false;
  for (size_t i = 0; i < frames.size(); ++i)
    if (!same(frames[i], o.frames[i])) return false;
  return true;
}

// ---------------------------------------------------------------- Op / Function / Module

const Attribute* Op::attr(const std::string& key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}

const Op* Function::def_op(ValueId v) const {
  const Value& val = value(v);
  return val.def_op == kNoId ? nullptr : &op(val.def_op);
}

ValueId Function::through_sign_extensions(ValueId v) const {
  for (;;) {
    const Op* d = def_op(v);
    if (d == nullptr || d->name != "arith.extsi" || d->operands.size() != 1) return v;
    const Type& from = value(d->operands[0]).type.element_type();
    if (from.kind != Type::Kind::Integer || from.bits != 32) return v;
    v = d->operands[0];
  }
}

std::vector<OpId> Function::for_ops() const {
  std::vector<OpId> out;
  for (const auto& o : ops)
    if (o.name == "scf.for") out.push_back(o.id);
  return out;
}

bool Function::has_atomics() const {
  for (const Op& o : ops)
    if (is_atomic(o.name)) return true;
  return false;
}

OpId Function::enclosing_for(OpId id) const {
  for (OpId p = op(id).parent_op; p != kNoId; p = op(p).parent_op)
    if (op(p).name == "scf.for") return p;
  return kNoId;
}

ForLoop Function::for_loop(OpId id) const {
  const Op& o = op(id);
  if (o.name != "scf.for" || o.operands.size() < 3 || o.regions.size() != 1 ||
      o.regions[0].blocks.size() != 1 || o.regions[0].blocks[0].args.empty())
    throw Error(o.loc.ir, "op " + std::to_string(id) + " is not a well-formed scf.for");
  const Block& blk = o.regions[0].blocks[0];
  ForLoop l;
  l.op = id;
  l.lb = o.operands[0];
  l.ub = o.operands[1];
  l.step = o.operands[2];
  l.inits.assign(o.operands.begin() + 3, o.operands.end());
  l.iv = blk.args[0];
  l.iter_args.assign(blk.args.begin() + 1, blk.args.end());
  l.results = o.results;
  l.body = blk.ops;
  if (!blk.ops.empty() && op(blk.ops.back()).name == "scf.yield") {
    l.yield_op = blk.ops.back();
    l.yielded = op(l.yield_op).operands;
  }
  return l;
}

const Value* Function::arg_by_name(const std::string& n) const {
  for (ValueId a : args)
    if (value(a).name == n) return &value(a);
  return nullptr;
}

const Attribute& Module::resolve(const Attribute& a) const {
  const Attribute* cur = &a;
  for (size_t hops = 0; cur->kind == Attribute::Kind::Alias; ++hops) {
    if (hops > aliases.size()) throw Error("alias cycle at #" + cur->text);
    const Attribute* next = nullptr;
    for (const auto& [k, v] : aliases)
      if (k == cur->text) next = &v;
    if (!next) throw Error("undefined attribute alias #" + cur->text);
    cur = next;
  }
  return *cur;
}

const Attribute* Module::encoding_of(const Type& t) const {
  const Type* s = &t;
  if (s->kind == Type::Kind::TensorDesc && !s->elem.empty()) s = &s->elem[0];
  if (s->encoding.empty()) return nullptr;
  return &resolve(s->encoding[0]);
}

std::string Module::encoding_kind(const Type& t) const {
  const Attribute* e = encoding_of(t);
  return e && e->kind == Attribute::Kind::Dialect ? e->text : "";
}

const Attribute* Module::encoding_param(const Type& t, const std::string& key) const {
  const Attribute* e = encoding_of(t);
  return e ? e->get(key) : nullptr;
}

const Attribute* Module::attr(const std::string& key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}

int Module::num_warps() const {
  const Attribute* a = attr("ttg.num-warps");
  return a ? static_cast<int>(a->ival) : 0;
}

const Function& Module::function(const std::string& n) const {
  for (const auto& f : functions)
    if (f.name == n) return f;
  throw Error("no function @" + n + " in " + file);
}

}  // namespace sched2cu::ttgir
