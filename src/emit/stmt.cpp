// Printer of the emitter's statement IR. The only place that knows how each statement kind is
// spelled with the runtime headers (runtime/sched2cu/*.cuh); it never decides anything about the
// schedule, it only prints what the lowering built.
#include "stmt.h"

#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

Stmt comment(std::string text) {
  Stmt s;
  s.kind = Stmt::Kind::Comment;
  s.text = std::move(text);
  return s;
}
Stmt code(std::string text, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::Code;
  s.text = std::move(text);
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
Stmt if_(std::string cond, std::vector<Stmt> body, std::string note, std::vector<Stmt> else_body) {
  Stmt s;
  s.kind = Stmt::Kind::If;
  s.cond = std::move(cond);
  s.body = std::move(body);
  s.else_body = std::move(else_body);
  s.note = std::move(note);
  return s;
}
Stmt for_(std::string init, std::string cond, std::string step, std::vector<Stmt> body,
          std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::For;
  s.init = std::move(init);
  s.cond = std::move(cond);
  s.step = std::move(step);
  s.body = std::move(body);
  s.note = std::move(note);
  return s;
}
static Stmt ring_stmt(Stmt::Kind k, std::string ring, std::string it, std::string note) {
  Stmt s;
  s.kind = k;
  s.ring = std::move(ring);
  s.it = std::move(it);
  s.note = std::move(note);
  return s;
}
Stmt wait_full(std::string ring, std::string it, std::string note) {
  return ring_stmt(Stmt::Kind::WaitFull, std::move(ring), std::move(it), std::move(note));
}
Stmt wait_empty(std::string ring, std::string it, std::string note) {
  return ring_stmt(Stmt::Kind::WaitEmpty, std::move(ring), std::move(it), std::move(note));
}
Stmt arm(std::string ring, std::string it, int bytes, std::string note) {
  Stmt s = ring_stmt(Stmt::Kind::Arm, std::move(ring), std::move(it), std::move(note));
  s.bytes = std::to_string(bytes);
  return s;
}
Stmt release(std::string ring, std::string it, std::string note) {
  return ring_stmt(Stmt::Kind::Release, std::move(ring), std::move(it), std::move(note));
}
Stmt commit(std::string ring, std::string it, std::string note) {
  return ring_stmt(Stmt::Kind::Commit, std::move(ring), std::move(it), std::move(note));
}
Stmt tma_load(std::string map, std::string dst, std::string ring, std::string it,
              std::vector<std::string> coords, std::string note) {
  Stmt s = ring_stmt(Stmt::Kind::TmaLoad, std::move(ring), std::move(it), std::move(note));
  s.map = std::move(map);
  s.ptr = std::move(dst);
  s.coords = std::move(coords);
  return s;
}
Stmt tma_store(std::string map, std::string src, std::vector<std::string> coords,
               std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::TmaStore;
  s.map = std::move(map);
  s.ptr = std::move(src);
  s.coords = std::move(coords);
  s.note = std::move(note);
  return s;
}
Stmt mma_wait(int pending, std::string acc, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::MmaWait;
  s.pending = pending;
  s.acc = std::move(acc);
  s.note = std::move(note);
  return s;
}

Stmt zero_trip_split(std::string cond, std::vector<Stmt> fills, std::string note) {
  Stmt s;
  s.kind = Stmt::Kind::ZeroTripSplit;
  s.cond = std::move(cond);
  s.body = std::move(fills);
  s.note = std::move(note);
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
    std::vector<Stmt> rest(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, body.end());
    split_zero_trip(rest);
    std::vector<Stmt> zero = s.body;
    zero.insert(zero.end(), rest.begin(), rest.end());
    Stmt split = if_(s.cond, std::move(zero), s.note, std::move(rest));
    body.resize(i);
    body.push_back(std::move(split));
    return;
  }
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

void line(std::string& out, int indent, const std::string& text, const std::string& note) {
  out += std::string(static_cast<size_t>(indent), ' ') + text;
  if (!note.empty()) out += "  // " + note;
  out += "\n";
}

}  // namespace

void print(const std::vector<Stmt>& body, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  for (const Stmt& s : body) {
    switch (s.kind) {
      case Stmt::Kind::Comment:
        out += pad + "// " + s.text + "\n";
        break;
      case Stmt::Kind::Code:
        line(out, indent, s.text, s.note);
        break;
      case Stmt::Kind::Block:
        line(out, indent, "{", s.note);
        print(s.body, indent + 2, out);
        out += pad + "}\n";
        break;
      case Stmt::Kind::If:
        line(out, indent, "if (" + s.cond + ") {", s.note);
        print(s.body, indent + 2, out);
        {
          // `else if` chains print flat.
          const Stmt* e = &s;
          while (e->else_body.size() == 1 && e->else_body[0].kind == Stmt::Kind::If) {
            e = &e->else_body[0];
            out += pad + "} else if (" + e->cond + ") {" +
                   (e->note.empty() ? "" : "  // " + e->note) + "\n";
            print(e->body, indent + 2, out);
          }
          if (!e->else_body.empty()) {
            out += pad + "} else {\n";
            print(e->else_body, indent + 2, out);
          }
        }
        out += pad + "}\n";
        break;
      case Stmt::Kind::For:
        line(out, indent, "for (" + s.init + "; " + s.cond + "; " + s.step + ") {", s.note);
        print(s.body, indent + 2, out);
        out += pad + "}\n";
        break;
      case Stmt::Kind::WaitFull:
        line(out, indent, s.ring + "->wait_full(" + s.it + ");", s.note);
        break;
      case Stmt::Kind::WaitEmpty:
        line(out, indent, s.ring + "->wait_empty(" + s.it + ");", s.note);
        break;
      case Stmt::Kind::Arm:
        line(out, indent, s.ring + "->arm(" + s.it + ", " + s.bytes + "u);", s.note);
        break;
      case Stmt::Kind::Release:
        // Arrival convention: one lane per warp (docs/schedule_graph.md).
        line(out, indent, "if ((threadIdx.x % 32) == 0) " + s.ring + "->release(" + s.it + ");",
             s.note);
        break;
      case Stmt::Kind::Commit:
        line(out, indent, "if ((threadIdx.x % 32) == 0) " + s.ring + "->commit(" + s.it + ");",
             s.note);
        break;
      case Stmt::Kind::TmaLoad:
        line(out, indent,
             "tma_load_" + std::to_string(s.coords.size()) + "d(" + s.ptr + ", &" + s.map + ", " +
                 s.ring + "->full_bar(" + s.it + "), " + join(s.coords) + ");",
             s.note);
        break;
      case Stmt::Kind::TmaStore:
        line(out, indent,
             "tma_store_" + std::to_string(s.coords.size()) + "d(&" + s.map + ", " + s.ptr + ", " +
                 join(s.coords) + ");",
             s.note);
        break;
      case Stmt::Kind::MmaGroup:
        line(out, indent, "wgmma_fence();", s.note);
        out += pad + "#pragma unroll\n";
        out += pad + "for (int ks = 0; ks < " + std::to_string(s.ksteps) + "; ++ks)\n";
        out += pad + "  wgmma_ss<" + std::to_string(s.n) + ", " + s.ta + ", " + s.tb + ", " +
               s.major_a + ", " + s.major_b + ">(\n";
        out += pad + "      " + s.acc + ", " + s.desc_a + ",\n";
        out += pad + "      " + s.desc_b + ", " + s.scale + ");\n";
        out += pad + "wgmma_commit();\n";
        out += pad + "wgmma_fence_operand(" + s.acc + ");\n";
        break;
      case Stmt::Kind::MmaWait:
        line(out, indent, "wgmma_wait<" + std::to_string(s.pending) + ">();", s.note);
        out += pad + "wgmma_fence_operand(" + s.acc + ");\n";
        break;
      case Stmt::Kind::ZeroTripSplit:
        throw Error("emit: internal: zero-trip split left unresolved (" + s.note + ")");
    }
  }
}

}  // namespace sched2cu::emit
