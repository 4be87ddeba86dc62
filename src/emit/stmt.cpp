// Statement IR: constructors, reference traversal, tail duplication for zero-trip loops, and
// the printer. The printer is the only place that knows how each statement kind is spelled with
// the runtime headers (runtime/sched2cu/*.cuh); it decides nothing about the schedule.
#include "stmt.h"

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
Stmt ring_op(Stmt::Kind k, std::string ring, Text ctr, std::string note, long long bytes) {
  Stmt s;
  s.kind = k;
  s.ring = std::move(ring);
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
Stmt tma_op(Stmt::Kind k, std::vector<Stmt> body, Text bar, std::string note) {
  Stmt s;
  s.kind = k;
  s.body = std::move(body);
  s.bar = std::move(bar);
  s.note = std::move(note);
  return s;
}
Stmt mma_issue(std::vector<Stmt> body, std::vector<Text> acc, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::MmaIssue;
  s.body = std::move(body);
  s.acc = std::move(acc);
  s.note = std::move(note);
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
Stmt zero_trip_split(Text cond, std::vector<Stmt> fills, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::ZeroTripSplit;
  s.cond = std::move(cond);
  s.body = std::move(fills);
  s.note = std::move(note);
  return s;
}

void for_each_ref(Stmt& s, const std::function<void(Text::Piece&)>& f) {
  for (Text* t : {&s.text, &s.cond, &s.init, &s.step, &s.type, &s.var, &s.ctr, &s.bar})
    t->for_each_ref(f);
  for (auto& t : s.acc) t.for_each_ref(f);
  for (auto& t : s.fence) t.for_each_ref(f);
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

void print(const std::vector<Stmt>& body, int indent, const Namer& name, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  auto T = [&](const Text& t) { return render(t, name); };
  for (const Stmt& s : body) {
    switch (s.kind) {
      case Stmt::Kind::Comment:
        out += pad + "// " + T(s.text) + "\n";
        break;
      case Stmt::Kind::Code:
        line(out, indent, T(s.text), s.note);
        break;
      case Stmt::Kind::Decl:
        line(out, indent,
             std::string(s.is_const ? "const " : "") + T(s.type) + " " + T(s.var) +
                 (s.init.empty() ? "" : " = " + T(s.init)) + ";",
             s.note);
        break;
      case Stmt::Kind::Block:
        line(out, indent, "{", s.note);
        print(s.body, indent + 2, name, out);
        out += pad + "}\n";
        break;
      case Stmt::Kind::If: {
        line(out, indent, "if (" + T(s.cond) + ") {", s.note);
        print(s.body, indent + 2, name, out);
        // `else if` chains print flat.
        const Stmt* e = &s;
        while (e->else_body.size() == 1 && e->else_body[0].kind == Stmt::Kind::If) {
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
      case Stmt::Kind::WaitFull:
        line(out, indent, s.ring + "->wait_full(" + T(s.ctr) + ");", s.note);
        break;
      case Stmt::Kind::WaitEmpty:
        line(out, indent, s.ring + "->wait_empty(" + T(s.ctr) + ");", s.note);
        break;
      case Stmt::Kind::Arm:
        line(out, indent, s.ring + "->arm(" + T(s.ctr) + ", " + S(s.bytes) + "u);", s.note);
        break;
      case Stmt::Kind::Release:
        // Arrival convention: one lane per warp (docs/schedule_graph.md).
        line(out, indent, "if ((threadIdx.x % 32) == 0) " + s.ring + "->release(" + T(s.ctr) + ");",
             s.note);
        break;
      case Stmt::Kind::BarWait:
        line(out, indent, "mbar_wait(" + T(s.bar) + ", " + S(s.bytes) + ");", s.note);
        break;
      case Stmt::Kind::BarArm:
        line(out, indent, "mbar_arrive_expect_tx(" + T(s.bar) + ", " + S(s.bytes) + "u);", s.note);
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
      case Stmt::Kind::NamedSync:
        line(out, indent, "named_bar_sync(" + S(s.bar_id) + ", " + S(s.threads) + ");", s.note);
        break;
      case Stmt::Kind::NamedArrive:
        line(out, indent, "named_bar_arrive(" + S(s.bar_id) + ", " + S(s.threads) + ");", s.note);
        break;
      case Stmt::Kind::ZeroTripSplit:
        throw Error("emit: internal: zero-trip split left unresolved (" + s.note + ")");
      case Stmt::Kind::SplitEnd:
        break;
    }
  }
}

}  // namespace sched2cu::emit
