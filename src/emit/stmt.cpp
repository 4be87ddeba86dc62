// Statement IR: constructors, reference traversal, tail duplication for zero-trip loops, and
// the printer. The printer is the only place that knows how each statement kind is spelled with
// the runtime headers (runtime/sched2cu/*.cuh); it decides nothing about the schedule.
#include "sched2cu/emit/stmt.h"

#include <cctype>
#include <map>
#include <set>

#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

void Text::add(const std::string& s) {
  if (s.empty()) return;
  if (!pieces_.empty() && pieces_.back().value < 0) {
    pieces_.back().s += s;
    return;
  }
  pieces_.push_back({s, -1, 0});
}

Text Text::ref(int value, int age) {
  Text t;
  t.pieces_.push_back({"", value, age});
  return t;
}

Text& Text::operator+=(const Text& o) {
  for (const auto& p : o.pieces_) {
    if (p.value < 0)
      add(p.s);
    else
      pieces_.push_back(p);
  }
  return *this;
}

void Text::for_each_ref(const std::function<void(Piece&)>& f) {
  for (auto& p : pieces_)
    if (p.value >= 0) f(p);
}

Text operator+(Text a, const Text& b) {
  a += b;
  return a;
}

std::string S(long long v) { return std::to_string(v); }

Stmt comment(const std::string& text) {
  Stmt s;
  s.kind = Stmt::Kind::Comment;
  s.text = Text(text);
  return s;
}
Stmt code(Text text, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::Code;
  s.text = std::move(text);
  s.note = std::move(note);
  return s;
}
Stmt decl(Text type, int value, Text init, bool is_const, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::Decl;
  s.type = std::move(type);
  s.var = R(value);
  s.init = std::move(init);
  s.is_const = is_const;
  s.note = std::move(note);
  return s;
}
Stmt named_decl(Text type, const std::string& name, Text init, bool is_const, std::string note) {
  Stmt s = decl(std::move(type), 0, std::move(init), is_const, std::move(note));
  s.var = Text(name);
  return s;
}
Stmt block(std::vector<Stmt> body, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::Block;
  s.body = std::move(body);
  s.note = std::move(note);
  return s;
}
Stmt if_(Text cond, std::vector<Stmt> body, std::string note, std::vector<Stmt> else_body) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.cond = std::move(cond);
  s.body = std::move(body);
  s.else_body = std::move(else_body);
  s.note = std::move(note);
  return s;
}
Stmt for_(Text init, Text cond, Text step, std::vector<Stmt> body, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::For;
  s.init = std::move(init);
  s.cond = std::move(cond);
  s.step = std::move(step);
  s.body = std::move(body);
  s.note = std::move(note);
  return s;
}
Stmt ring_op(Stmt::Kind k, std::string ring, int depth, Text ctr, std::string note,
             long long bytes) {
  Stmt s;
  s.kind = k;
  s.ring = std::move(ring);
  s.depth = depth;
  s.ctr = std::move(ctr);
  s.note = std::move(note);
  s.bytes = bytes;
  return s;
}
Stmt bar_op(Stmt::Kind k, Text bar, long long value, std::string note) {
  Stmt s;
  s.kind = k;
  s.bar = std::move(bar);
  s.bytes = value;
  s.note = std::move(note);
  return s;
}
Stmt ring_init(std::string ring, int depth, int full, int empty, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::RingInit;
  s.ring = std::move(ring);
  s.depth = depth;
  s.full = full;
  s.empty = empty;
  s.note = std::move(note);
  return s;
}
Stmt tma_op(Stmt::Kind k, std::vector<Stmt> body, Text bar, std::string note,
            std::vector<Access> mem, long long bytes) {
  Stmt s;
  s.kind = k;
  s.body = std::move(body);
  s.bar = std::move(bar);
  s.note = std::move(note);
  s.mem = std::move(mem);
  s.bytes = bytes;
  return s;
}
Stmt mma_issue(std::vector<Stmt> body, std::vector<Text> acc, std::string note,
               std::vector<Access> mem) {
  Stmt s;
  s.kind = Stmt::Kind::MmaIssue;
  s.body = std::move(body);
  s.acc = std::move(acc);
  s.note = std::move(note);
  s.mem = std::move(mem);
  return s;
}
Stmt mma_wait(int pending, std::vector<Text> fence, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::MmaWait;
  s.pending = pending;
  s.fence = std::move(fence);
  s.note = std::move(note);
  return s;
}
Stmt named_bar(Stmt::Kind k, int id, int threads, std::string note) {
  Stmt s;
  s.kind = k;
  s.bar_id = id;
  s.threads = threads;
  s.note = std::move(note);
  return s;
}
Stmt named_bar(Stmt::Kind k, Text id, int threads, std::string note) {
  Stmt s = named_bar(k, 0, threads, std::move(note));
  s.bar = std::move(id);
  return s;
}
Stmt warpgroup_sync(Text bar, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::WarpgroupSync;
  s.bar = std::move(bar);
  s.threads = 128;
  s.note = std::move(note);
  return s;
}
Stmt bulk_wait(int pending, bool read, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::BulkWait;
  s.pending = pending;
  s.is_const = read;
  s.note = std::move(note);
  return s;
}
Stmt sync_op(Stmt::Kind k, std::string note) {
  Stmt s;
  s.kind = k;
  s.note = std::move(note);
  return s;
}
Stmt bar_init(Text bar, int count, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::BarInit;
  s.bar = std::move(bar);
  s.bytes = count;
  s.note = std::move(note);
  return s;
}
Stmt trip_count(Text type, Text var, Text init, int loop, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::TripCount;
  s.type = std::move(type);
  s.var = std::move(var);
  s.init = std::move(init);
  s.loop = loop;
  s.note = std::move(note);
  return s;
}
Stmt mem_code(Text text, Access a, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::MemCode;
  s.text = std::move(text);
  s.mem.push_back(std::move(a));
  s.note = std::move(note);
  return s;
}
Stmt cluster_sum(Text text, Text share, int bar_id, int threads, std::vector<Access> region,
                 std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::ClusterSum;
  s.text = std::move(text);
  s.cond = std::move(share);
  s.bar_id = bar_id;
  s.threads = threads;
  s.mem = std::move(region);
  s.note = std::move(note);
  return s;
}
Stmt guarded(Text guard, Stmt s) {
  s.guard = std::move(guard);
  return s;
}
Stmt zero_trip_split(Text cond, std::vector<Stmt> fills, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::ZeroTripSplit;
  s.cond = std::move(cond);
  s.body = std::move(fills);
  s.note = std::move(note);
  return s;
}

std::vector<Text*> Stmt::texts() {
  std::vector<Text*> out{&text, &cond, &init, &step, &type, &var, &guard, &ctr, &bar};
  for (auto& t : acc) out.push_back(&t);
  for (auto& t : fence) out.push_back(&t);
  for (auto& a : mem) {
    out.push_back(&a.index);
    out.push_back(&a.offset);
    out.push_back(&a.round);
  }
  return out;
}
std::vector<const Text*> Stmt::texts() const {
  std::vector<const Text*> out;
  for (Text* x : const_cast<Stmt*>(this)->texts()) out.push_back(x);
  return out;
}

void for_each_stmt(std::vector<Stmt>& body, const std::function<void(Stmt&)>& f) {
  for (auto& s : body) {
    f(s);
    for_each_stmt(s.body, f);
    for_each_stmt(s.else_body, f);
  }
}
void for_each_stmt(const std::vector<Stmt>& body, const std::function<void(const Stmt&)>& f) {
  for (const auto& s : body) {
    f(s);
    for_each_stmt(s.body, f);
    for_each_stmt(s.else_body, f);
  }
}

void resolve_names(std::vector<Stmt>& body, const Namer& name) {
  for_each_stmt(body, [&](Stmt& s) {
    for (Text* t : s.texts())
      if (!t->empty()) *t = Text(render(*t, name));
  });
}

namespace {

std::string literal(const Text& t) {
  std::string s;
  for (const auto& p : t.pieces()) s += p.s;
  return s;
}

bool ident_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; }

// Identifier tokens of `s`, counted.
void count_idents(const std::string& s, std::map<std::string, int>& n) {
  for (size_t i = 0; i < s.size();) {
    if (!ident_char(s[i]) || std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
      // Skip a number's whole token (1LL, 0x1F) so that its suffix is no identifier.
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      i = j > i ? j : i + 1;
      continue;
    }
    size_t j = i;
    while (j < s.size() && ident_char(s[j])) ++j;
    ++n[s.substr(i, j - i)];
    i = j;
  }
}

// No call but casts and bit reinterpretations: dropping it changes nothing.
bool pure_init(std::string e) {
  for (const char* f : {"static_cast<", "__uint_as_float(", "__int_as_float("})
    for (size_t at; (at = e.find(f)) != std::string::npos;) e.erase(at, std::string(f).size());
  for (size_t i = 0; i < e.size(); ++i)
    if (e[i] == '(' && i > 0 && ident_char(e[i - 1])) return false;
  return true;
}

bool scalar_type(const std::string& ty) {
  static const std::set<std::string> k = {"int",      "long long", "float", "bool",
                                          "uint32_t", "unsigned",  "double"};
  return k.count(ty) != 0;
}

// The name a removable scalar declaration declares, or "".
std::string removable(const Stmt& s) {
  if (s.kind != Stmt::Kind::Decl || !scalar_type(literal(s.type)) || !pure_init(literal(s.init)))
    return "";
  return literal(s.var);
}

// Occurrences of identifier `name` in `s` and everything inside it.
int occurrences(const Stmt& s, const std::string& name) {
  std::map<std::string, int> n;
  for (const Text* t : s.texts()) count_idents(literal(*t), n);
  count_idents(s.ring, n);
  int k = n[name];
  for (const Stmt& b : s.body) k += occurrences(b, name);
  for (const Stmt& b : s.else_body) k += occurrences(b, name);
  return k;
}

// Drops each removable declaration that no later statement of its block reads (a name is
// scoped to its block: each role declares its own ring counters).
bool drop_pass(std::vector<Stmt>& body) {
  bool dropped = false;
  for (size_t i = 0; i < body.size();) {
    const std::string name = removable(body[i]);
    int later = 0;
    for (size_t j = i + 1; !name.empty() && j < body.size() && later == 0; ++j)
      later += occurrences(body[j], name);
    if (!name.empty() && later == 0) {
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(i));
      dropped = true;
      continue;
    }
    dropped |= drop_pass(body[i].body);
    dropped |= drop_pass(body[i].else_body);
    ++i;
  }
  return dropped;
}

}  // namespace

void drop_unused_decls(std::vector<Stmt>& body) {
  while (drop_pass(body)) {
  }
}

void for_each_ref(Stmt& s, const std::function<void(Text::Piece&)>& f) {
  for (Text* t : s.texts()) t->for_each_ref(f);
  for (auto& b : s.body) for_each_ref(b, f);
  for (auto& b : s.else_body) for_each_ref(b, f);
}

Stmt split_end() {
  Stmt s;
  s.kind = Stmt::Kind::SplitEnd;
  return s;
}

void split_zero_trip(std::vector<Stmt>& body) {
  for (size_t i = 0; i < body.size(); ++i) {
    Stmt& s = body[i];
    if (s.kind != Stmt::Kind::ZeroTripSplit) {
      split_zero_trip(s.body);
      split_zero_trip(s.else_body);
      continue;
    }
    // The statements after the split up to the next phase (or the end) run in both branches.
    size_t end = i + 1;
    while (end < body.size() && body[end].kind != Stmt::Kind::SplitEnd) ++end;
    std::vector<Stmt> rest(body.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                           body.begin() + static_cast<std::ptrdiff_t>(end));
    split_zero_trip(rest);
    std::vector<Stmt> zero = s.body;
    zero.insert(zero.end(), rest.begin(), rest.end());
    Stmt split = if_(s.cond, std::move(zero), s.note, std::move(rest));
    std::vector<Stmt> tail(body.begin() + static_cast<std::ptrdiff_t>(end), body.end());
    body.resize(i);
    body.push_back(std::move(split));
    body.insert(body.end(), tail.begin(), tail.end());
  }
  // Phase markers have done their work.
  std::erase_if(body, [](const Stmt& x) { return x.kind == Stmt::Kind::SplitEnd; });
}

std::string render(const Text& t, const Namer& name) {
  std::string out;
  for (const auto& p : t.pieces()) out += p.value < 0 ? p.s : name(p.value, p.age);
  return out;
}

namespace {

void line(std::string& out, int indent, const std::string& text, const std::string& note) {
  out += std::string(static_cast<size_t>(indent), ' ') + text;
  if (!note.empty()) out += "  // " + note;
  out += "\n";
}

// Prints `body` inline (no braces), attaching `note` to its first line.
void inline_body(const std::vector<Stmt>& body, int indent, const Namer& name,
                 const std::string& note, std::string& out) {
  std::vector<Stmt> b = body;
  if (!b.empty() && b[0].note.empty()) b[0].note = note;
  print(b, indent, name, out);
}

}  // namespace

namespace {

// The one-line spelling of a simple statement, or "" for the kinds that print several lines.
std::string single(const Stmt& s, const Namer& name) {
  auto T = [&](const Text& t) { return render(t, name); };
  auto bar_id = [&]() { return s.bar.empty() ? S(s.bar_id) : T(s.bar); };
  switch (s.kind) {
    case Stmt::Kind::Code:
    case Stmt::Kind::MemCode:
    case Stmt::Kind::ClusterSum:
      return T(s.text);
    case Stmt::Kind::Decl: {
      // A constant pointer is `T* const`: its pointee stays writable and casts to `T*` as a
      // kernel's void* parameter does (stores and splats through it need no const_cast).
      const std::string ty = T(s.type);
      const bool ptr = !ty.empty() && ty.back() == '*';
      return std::string(s.is_const && !ptr ? "const " : "") + ty +
             (s.is_const && ptr ? " const" : "") + " " + T(s.var) +
             (s.init.empty() ? "" : " = " + T(s.init)) + ";";
    }
    case Stmt::Kind::TripCount:
      return "const " + T(s.type) + " " + T(s.var) + " = " + T(s.init) + ";";
    case Stmt::Kind::WaitFull:
      return s.ring + "->wait_full(" + T(s.ctr) + ");";
    case Stmt::Kind::WaitEmpty:
      return s.ring + "->wait_empty(" + T(s.ctr) + ");";
    case Stmt::Kind::Arm:
      return s.ring + "->arm(" + T(s.ctr) + ", " + S(s.bytes) + "u);";
    case Stmt::Kind::Release:
      // Arrival convention: one lane per warp (docs/schedule_graph.md).
      return "if ((threadIdx.x % 32) == 0) " + s.ring + "->release(" + T(s.ctr) + ");";
    case Stmt::Kind::Commit:
      // Every lane's stores and fence precede its warp's one arrival (the warp converges first).
      return "__syncwarp(); if ((threadIdx.x % 32) == 0) " + s.ring + "->commit(" + T(s.ctr) + ");";
    case Stmt::Kind::RingInit:
      return s.ring + "->init(" + S(s.full) + ", " + S(s.empty) + ");";
    case Stmt::Kind::BarInit:
      return "mbar_init(" + T(s.bar) + ", " + S(s.bytes) + ");";
    case Stmt::Kind::InitFence:
      return "mbar_fence_init();";
    case Stmt::Kind::CtaSync:
      return "__syncthreads();";
    case Stmt::Kind::BarWait:
      return "mbar_wait(" + T(s.bar) + ", " + S(s.bytes) + ");";
    case Stmt::Kind::BarArm:
      return "mbar_arrive_expect_tx(" + T(s.bar) + ", " + S(s.bytes) + "u);";
    case Stmt::Kind::BulkWait:
      return std::string(s.is_const ? "tma_wait_read<" : "tma_wait<") + S(s.pending) + ">();";
    case Stmt::Kind::ProxyFence:
      return "fence_proxy_async();";
    case Stmt::Kind::NamedSync:
      return "named_bar_sync(" + bar_id() + ", " + S(s.threads) + ");";
    case Stmt::Kind::NamedArrive:
      return "named_bar_arrive(" + bar_id() + ", " + S(s.threads) + ");";
    case Stmt::Kind::WarpgroupSync:
      return "warpgroup_sync(" + T(s.bar) + ");";
    default:
      return "";
  }
}

}  // namespace

void print(const std::vector<Stmt>& body, int indent, const Namer& name, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  auto T = [&](const Text& t) { return render(t, name); };
  for (const Stmt& s : body) {
    const std::string one = single(s, name);
    if (!one.empty()) {
      line(out, indent, s.guard.empty() ? one : "if (" + T(s.guard) + ") " + one, s.note);
      continue;
    }
    if (!s.guard.empty()) throw Error("emit: internal: a guard on a multi-line statement");
    switch (s.kind) {
      case Stmt::Kind::Comment:
        out += pad + "// " + T(s.text) + "\n";
        break;
      case Stmt::Kind::Block:
        line(out, indent, "{", s.note);
        print(s.body, indent + 2, name, out);
        out += pad + "}\n";
        break;
      case Stmt::Kind::If: {
        if (s.one_line) {
          const std::string a = s.body.size() == 1 ? single(s.body[0], name) : "";
          const std::string b = s.else_body.size() == 1 ? single(s.else_body[0], name) : "";
          if (a.empty() || b.empty())
            throw Error("emit: internal: a one-line if needs one-line branches");
          std::string t = "if (" + T(s.cond) + ") ";
          t.append(a).append(" else ").append(b);
          line(out, indent, t, s.note);
          break;
        }
        line(out, indent, "if (" + T(s.cond) + ") {", s.note);
        print(s.body, indent + 2, name, out);
        // `else if` chains print flat.
        const Stmt* e = &s;
        while (e->else_body.size() == 1 && e->else_body[0].kind == Stmt::Kind::If &&
               !e->else_body[0].one_line) {
          e = &e->else_body[0];
          out += pad + "} else if (" + T(e->cond) + ") {" +
                 (e->note.empty() ? "" : "  // " + e->note) + "\n";
          print(e->body, indent + 2, name, out);
        }
        if (!e->else_body.empty()) {
          out += pad + "} else {\n";
          print(e->else_body, indent + 2, name, out);
        }
        out += pad + "}\n";
        break;
      }
      case Stmt::Kind::For:
        line(out, indent, "for (" + T(s.init) + "; " + T(s.cond) + "; " + T(s.step) + ") {",
             s.note);
        print(s.body, indent + 2, name, out);
        out += pad + "}\n";
        break;
      case Stmt::Kind::TmaLoad:
      case Stmt::Kind::TmaStore:
      case Stmt::Kind::MmaIssue:
        inline_body(s.body, indent, name, s.note, out);
        break;
      case Stmt::Kind::MmaWait:
        line(out, indent, "wgmma_wait<" + S(s.pending) + ">();", s.note);
        for (const auto& f : s.fence) out += pad + "wgmma_fence_operand(" + T(f) + ");\n";
        break;
      case Stmt::Kind::ZeroTripSplit:
        throw Error("emit: internal: zero-trip split left unresolved (" + s.note + ")");
      case Stmt::Kind::SplitEnd:
        break;
      default:
        throw Error("emit: internal: a statement kind the printer does not know");
    }
  }
}

}  // namespace sched2cu::emit
