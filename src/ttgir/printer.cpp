// Text forms of the TTGIR IR: Type::str() in Triton's spelling, and print_module(), a generic-form
// MLIR dump for debugging and tests. Must never throw on a well-formed IR and never print ids
// that do not exist (it prints value names with their id to keep shadowed names unambiguous).
#include <sstream>

#include "sched2cu/ttgir/ir.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir {

namespace {

std::string join_dims(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s;
}

std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* hex = "0123456789ABCDEF";
      o += '\\';
      o += hex[(c >> 4) & 0xf];
      o += hex[c & 0xf];
    } else {
      o += c;
    }
  }
  return o + "\"";
}

std::string ident_or_quote(const std::string& k) {
  bool plain = !k.empty() && !(k[0] >= '0' && k[0] <= '9');
  for (char c : k)
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == '$');
  return plain ? k : quote(k);
}

}  // namespace

std::string attr_str(const Attribute& a);

std::string Type::str() const {
  switch (kind) {
    case Kind::Integer:
    case Kind::Float:
    case Kind::Index:
    case Kind::None:
    case Kind::AsyncToken:
    case Kind::Other:
      return name;
    case Kind::Ptr: {
      std::string s = "!tt.ptr<" + (elem.empty() ? std::string("?") : elem[0].str());
      if (address_space != 1) s += ", " + std::to_string(address_space);
      return s + ">";
    }
    case Kind::TensorDesc:
      return "!tt.tensordesc<" + (elem.empty() ? std::string("?") : elem[0].str()) + ">";
    case Kind::Tensor: {
      std::string s = "tensor<" + join_dims(shape) + (elem.empty() ? "?" : elem[0].str());
      if (!encoding.empty()) s += ", " + attr_str(encoding[0]);
      return s + ">";
    }
    case Kind::MemDesc: {
      std::string s = "!ttg.memdesc<" + join_dims(shape) + (elem.empty() ? "?" : elem[0].str());
      if (!encoding.empty()) s += ", " + attr_str(encoding[0]);
      if (!memory_space.empty()) s += ", " + attr_str(memory_space[0]);
      if (mutable_memory) s += ", mutable";
      if (!alloc_shape.empty()) {
        std::string d = join_dims(alloc_shape);
        s += ", " + d.substr(0, d.size() - 1);
      }
      return s + ">";
    }
  }
  return name;
}

std::string attr_str(const Attribute& a) {
  using K = Attribute::Kind;
  auto typed = [&](const std::string& s) {
    return a.type.empty() ? s : s + " : " + a.type[0].str();
  };
  auto list = [&](const std::vector<Attribute>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + attr_str(v[i]);
    return s;
  };
  switch (a.kind) {
    case K::Unit:
      return "unit";
    case K::Bool:
      return a.ival ? "true" : "false";
    case K::Integer:
    case K::Float:
      return typed(a.text);
    case K::String:
      return typed(quote(a.text));
    case K::Symbol:
      return "@" + a.text;
    case K::TypeAttr:
      return a.type.empty() ? "none" : a.type[0].str();
    case K::Array:
      return "[" + list(a.elems) + "]";
    case K::DenseArray:
      return "array<" + a.text + (a.elems.empty() ? "" : ": " + list(a.elems)) + ">";
    case K::Dict: {
      std::string s = "{";
      for (size_t i = 0; i < a.dict.size(); ++i) {
        s += (i ? ", " : "") + ident_or_quote(a.dict[i].first);
        if (a.dict[i].second.kind != K::Unit) s += " = " + attr_str(a.dict[i].second);
      }
      return s + "}";
    }
    case K::Dense: {
      std::string inner;
      for (size_t i = 0; i < a.elems.size(); ++i) {
        const Attribute& e = a.elems[i];
        bool bare = e.kind == K::Integer || e.kind == K::Float;
        inner += (i ? ", " : "") + (bare ? e.text : attr_str(e));
      }
      if (a.elems.size() != 1) inner = "[" + inner + "]";
      return typed("dense<" + inner + ">");
    }
    case K::Alias:
      return "#" + a.text;
    case K::Dialect:
      return (a.text.find('.') == std::string::npos ? "" : "#") + a.text +
             (a.params.empty() ? "" : "<" + list(a.params) + ">");
    case K::Keyword:
      return a.text;
  }
  return "?";
}

std::string Attribute::str() const { return attr_str(*this); }

namespace {

void print_region(std::ostringstream& os, const Function& f, const Region& r, int indent);

std::string vname(const Function& f, ValueId v) {
  return "%" + f.value(v).name + "." + std::to_string(v);
}

void print_op(std::ostringstream& os, const Function& f, const Op& o, int indent) {
  os << std::string(static_cast<size_t>(indent), ' ');
  for (size_t i = 0; i < o.results.size(); ++i) os << (i ? ", " : "") << vname(f, o.results[i]);
  if (!o.results.empty()) os << " = ";
  os << quote(o.name) << "(";
  for (size_t i = 0; i < o.operands.size(); ++i) os << (i ? ", " : "") << vname(f, o.operands[i]);
  os << ")";
  if (!o.regions.empty()) {
    os << " (";
    for (size_t i = 0; i < o.regions.size(); ++i) {
      if (i) os << ", ";
      print_region(os, f, o.regions[i], indent);
    }
    os << ")";
  }
  if (!o.attrs.empty()) {
    Attribute d;
    d.kind = Attribute::Kind::Dict;
    d.dict = o.attrs;
    os << " " << attr_str(d);
  }
  os << " : (";
  for (size_t i = 0; i < o.operands.size(); ++i)
    os << (i ? ", " : "") << f.value(o.operands[i]).type.str();
  os << ") -> (";
  for (size_t i = 0; i < o.results.size(); ++i)
    os << (i ? ", " : "") << f.value(o.results[i]).type.str();
  os << ")";
  if (o.loc.src.known())
    os << " loc(" << quote(o.loc.src.file) << ":" << o.loc.src.line << ":" << o.loc.src.col << ")";
  os << "\n";
}

void print_region(std::ostringstream& os, const Function& f, const Region& r, int indent) {
  os << "{\n";
  for (size_t b = 0; b < r.blocks.size(); ++b) {
    const Block& blk = r.blocks[b];
    os << std::string(static_cast<size_t>(indent), ' ') << "^bb" << b << "(";
    for (size_t i = 0; i < blk.args.size(); ++i)
      os << (i ? ", " : "") << vname(f, blk.args[i]) << ": " << f.value(blk.args[i]).type.str();
    os << "):\n";
    for (OpId id : blk.ops) print_op(os, f, f.op(id), indent + 2);
  }
  os << std::string(static_cast<size_t>(indent), ' ') << "}";
}

}  // namespace

std::string print_module(const Module& m) {
  std::ostringstream os;
  for (const auto& [k, v] : m.aliases) os << "#" << k << " = " << attr_str(v) << "\n";
  Attribute d;
  d.kind = Attribute::Kind::Dict;
  d.dict = m.attrs;
  os << "module attributes " << attr_str(d) << " {\n";
  for (const auto& f : m.functions) {
    os << "  tt.func " << (f.is_public ? "public " : "private ") << "@" << f.name << " ";
    print_region(os, f, f.body, 2);
    os << "\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace sched2cu::ttgir
