// Static instances of the modulo expander (expander.h): the iteration an event instance of a
// section step runs, how its value references resolve (the defining stage's age, iter_args to
// the previous iteration's yield, carried copies), and the statements of one step with its
// waits, carry shifts and ping-pong turns. Never reorders the events of a step.
#include <algorithm>
#include <climits>
#include <functional>

#include "expander.h"

namespace sched2cu::emit::detail {

Text Expander::iter_text(const SInst& si, int s) const {
  if (si.sec == 0) return S(si.step - s);
  if (si.sec == 1) return s == 0 ? Text(k_) : Text(k_ + " - " + S(s));
  const int d = s - si.step;  // drain step e runs iteration T + e - s
  return d == 0 ? Text(T_) : Text(T_ + " - " + S(d));
}

long long Expander::iter_min(const SInst& si, int s) const {
  if (si.sec == 0) return si.step - s;
  if (si.sec == 1) return S_ - 1 - s;
  return S_ - 1 + si.step - s;  // the pipelined path runs only when T >= S - 1
}

int Expander::age_of(int value, int s_use) const {
  auto it = def_node_.find(value);
  if (it == def_node_.end() || !node_stage_.count(it->second)) return INT_MIN;
  return s_use - node_stage_.at(it->second);
}

std::pair<int, int> Expander::read_of(int value, int s_use, const Event* reader) const {
  auto y = yield_of_.find(value);
  if (y == yield_of_.end()) {
    const int a = age_of(value, s_use);
    if (a != 1 || reader == nullptr) return {value, a};
    // Not for MMA results: the tensor core writes them asynchronously from the issue on.
    const int dn = def_node_.at(value);
    auto de = def_event_.find(dn);
    if (node(dn).pipeline == "TC" || de == def_event_.end()) return {value, a};
    const int re = static_cast<int>(reader - ev_.data());
    if (rank_.at(re) < rank_.at(de->second)) return {value, 0};
    return {value, a};
  }
  const int a = age_of(y->second, s_use);  // an iter_arg: the previous iteration's yield
  return {y->second, a == INT_MIN ? INT_MIN : a + 1};
}

void Expander::for_each_read(const std::vector<Stmt>& body, int s_use,
                             const std::function<void(int, int, int)>& f,
                             const Event* reader) const {
  for (const auto& st : body) {
    for (const Text* t : {&st.text, &st.cond, &st.init, &st.var})
      for (const auto& p : t->pieces()) {
        if (p.value < 0 || is_pseudo(p.value)) continue;
        const auto [v, a] = read_of(p.value, s_use, reader);
        if (a != INT_MIN) f(p.value, v, a);
      }
    for_each_read(st.body, s_use, f, reader);
    for_each_read(st.else_body, s_use, f, reader);
  }
}

std::vector<Stmt> Expander::instantiate(std::vector<Stmt> body, const SInst& si, int s) {
  const Text j = iter_text(si, s);
  const long long jmin = iter_min(si, s);
  const bool jlit = si.sec == 0;
  auto resolve = [&](const Text& t) {
    Text out;
    for (const auto& p : t.pieces()) {
      if (p.value < 0) {
        out += p.s;
        continue;
      }
      if (is_pseudo(p.value)) {
        if ((p.value - kPseudo) / 3 != li_) {
          out += Text::ref(p.value, p.age);  // another loop's: resolved by its expander
          continue;
        }
        const int kind = (p.value - kPseudo) % 3;
        if (kind == 0) out += Text(it_) + " + " + (jlit ? Text(S(si.step - s)) : "(" + j + ")");
        if (kind == 1) out += "(" + j + ")";
        if (kind == 2)
          out += jlit && jmin == 0 ? Text("ks > 0")
                 : jmin >= 1       ? Text("1")
                                   : "(" + j + " > 0 || ks > 0)";
        continue;
      }
      if (p.value == fl_.iv) {
        Text idx = jlit ? Text(S(si.step - s)) : "(" + j + ")";
        if (!kb_.empty()) idx = "(" + kb_ + " + " + idx + ")";  // this CTA's share (split.cpp)
        out += "(" + R(fl_.lb) + " + " + idx + " * " + R(fl_.step) + ")";
        continue;
      }
      const auto [v, a] =
          read_of(p.value, s, si.ev >= 0 ? &ev_[static_cast<size_t>(si.ev)] : nullptr);
      if (a == INT_MIN) {
        out += Text::ref(p.value, p.age);  // defined outside the loop
        continue;
      }
      if (a < 0) c_.fail(loop_.op, "internal: a value is read before the stage that defines it");
      if (a > 0) max_age_[v] = std::max(max_age_[v], a);
      if (a == 0 && age_of(v, s) > 0) cross_step_.insert(v);
      out += Text::ref(v, a);
    }
    return out;
  };
  std::function<void(std::vector<Stmt>&)> walk = [&](std::vector<Stmt>& v) {
    for (auto& st : v) {
      for (Text* t : st.texts()) *t = resolve(*t);
      walk(st.body);
      walk(st.else_body);
    }
  };
  walk(body);
  // Waits for stores of an iteration this instance does not have: iteration i < n has no
  // iteration i - n (iter_dep -n), the last no next one (what the protocol checker proves they are
  // not needed). The iteration is static in the prologue; the reference loop for short trip
  // counts runs iterations 0 .. ref_iters_ - 1 only.
  const long long known = si.sec == 0 ? si.step - s : -1;
  const bool last = si.sec == 2 && s - si.step == 1;
  auto needless = [&](const Stmt& x) {
    if (x.kind != Stmt::Kind::BulkWait || x.loop != li_) return false;
    if (x.iter_dep > 0) return last;
    if (x.iter_dep == 0) return false;
    return (known >= 0 && known < -x.iter_dep) || (ref_iters_ >= 0 && ref_iters_ <= -x.iter_dep);
  };
  const bool first = known >= 0 || ref_iters_ >= 0;
  if (first || last) {
    std::erase_if(body, needless);
    for_each_stmt(body, [&](Stmt& st) {
      std::erase_if(st.body, needless);
      std::erase_if(st.else_body, needless);
      // `if (c) <needless wait> else w` keeps w as `if (!(c)) w`.
      if (st.kind == Stmt::Kind::If && st.body.empty() && st.else_body.size() == 1 &&
          st.else_body[0].guard.empty() && st.else_body[0].body.empty()) {
        Stmt w = std::move(st.else_body[0]);
        w.guard = "!(" + st.cond + ")";
        st = std::move(w);
      }
    });
  }
  return body;
}

std::vector<SInst> Expander::section(int sec, int step) const {
  std::vector<SInst> out;
  out.push_back({sec, step, -1});
  for (int e : order_) {
    const int s = ev_[static_cast<size_t>(e)].stage;
    const bool in = sec == 0 ? s <= step : sec == 1 ? true : s > step;
    if (in) out.push_back({sec, step, e});
  }
  return out;
}

int Expander::sid(const SInst& si) const {
  for (size_t i = 0; i < all_.size(); ++i)
    if (all_[i].sec == si.sec && all_[i].step == si.step && all_[i].ev == si.ev)
      return static_cast<int>(i);
  return -1;
}

std::vector<Stmt> Expander::emit_step(const std::vector<SInst>& insts,
                                      const std::map<int, int>& waits,
                                      const std::map<int, std::vector<Text>>& fences) {
  std::vector<Stmt> out;
  int first_mma = -1, last_mma = -1;
  for (size_t i = 0; i < insts.size(); ++i)
    if (insts[i].ev >= 0 && ev_[static_cast<size_t>(insts[i].ev)].low.mma) {
      if (first_mma < 0) first_mma = static_cast<int>(i);
      last_mma = static_cast<int>(i);
    }
  const bool turns = L_.r.pingpong && first_mma >= 0;
  const int threads = 256;
  for (size_t i = 0; i < insts.size(); ++i) {
    const SInst& si = insts[i];
    const int id = sid(si);
    auto w = waits.find(id);
    if (w != waits.end()) {
      auto f = fences.find(id);
      out.push_back(mma_wait(w->second, f == fences.end() ? std::vector<Text>{} : f->second,
                             w->second == 0
                                 ? "every wgmma group of this role is done"
                                 : "the newest " + S(w->second) + " wgmma group(s) may still run"));
    }
    if (si.ev < 0) {
      for (const auto& [value, amax] : max_age_)
        for (int a = amax; a >= 1; --a) {
          const int v = value;  // a lambda cannot capture a structured binding (clang 14)
          // In prologue step p, copy a - 1 holds a value only once its stage has run (or for a
          // carried yield, which starts at its init; not a zero init folded into scale-d, which
          // is never written: its iteration-0 value only reaches MMAs that ignore it).
          bool carried = false, folded = false;
          for (const auto& [ia, y] : yield_of_)
            if (y == v) {
              carried = true;
              folded = L_.val(ia, loop_.op).zero_iter >= 0;
            }
          if (si.sec == 0 && (!carried || folded) && age_of(v, si.step) < a) continue;
          out.push_back(code(
              Text::ref(v, a) + " = " + Text::ref(v, a - 1) + ";",
              a == amax ? "carried copies of " + c_.note(c_.f.value(v).def_op) : std::string()));
        }
      continue;
    }
    const Event& e = ev_[static_cast<size_t>(si.ev)];
    const Text ctr =
        Text(it_) + " + " +
        (si.sec == 0 ? Text(S(si.step - e.stage)) : "(" + iter_text(si, e.stage) + ")");
    const std::string ring = e.ring >= 0 ? c_.ring_name(li_, e.ring) : std::string();
    const int depth = e.ring >= 0 ? loop_.rings.at(static_cast<size_t>(e.ring)).depth : 0;
    switch (e.kind) {
      case Event::Kind::WaitFull:
        out.push_back(ring_op(Stmt::Kind::WaitFull, ring, depth, ctr,
                              "ring " + S(e.ring) + ": data landed, stage " + S(e.stage)));
        break;
      case Event::Kind::WaitEmptyArm:
        out.push_back(
            ring_op(Stmt::Kind::WaitEmpty, ring, depth, ctr, "ring " + S(e.ring) + ": slot free"));
        out.push_back(ring_op(Stmt::Kind::Arm, ring, depth, ctr,
                              "ring " + S(e.ring) + ": expect " + S(e.bytes) + " B", e.bytes));
        break;
      case Event::Kind::WaitEmpty:
        out.push_back(ring_op(Stmt::Kind::WaitEmpty, ring, depth, ctr,
                              "ring " + S(e.ring) + ": slot free for the exchange"));
        break;
      case Event::Kind::Release:
        out.push_back(ring_op(Stmt::Kind::Release, ring, depth, ctr,
                              "ring " + S(e.ring) + ": every reader is done, stage " + S(e.stage)));
        break;
      case Event::Kind::Op: {
        if (turns && static_cast<int>(i) == first_mma)
          out.push_back(named_bar(Stmt::Kind::NamedSync, S(c_.bar_turn(0)) + " + slice", threads,
                                  "ping-pong: this warpgroup's turn to issue its MMAs"));
        const Node& n = node(e.node);
        auto body = instantiate(e.low.body, si, e.stage);
        const std::string where = "node " + S(n.id) + ", stage " + S(e.stage);
        if (!body.empty())
          body[0].note = body[0].note.empty() ? where : body[0].note + ", " + where;
        out.insert(out.end(), body.begin(), body.end());
        if (e.node == fill_anchor_ && !fills_.empty())
          out.push_back(if_("(" + iter_text(si, e.stage) + ") == (" + T_ + " > 1 ? 1 : 0)", fills_,
                            "the enclosing loop's staging fill, once this loop's first "
                            "MMAs are issued"));
        if (turns && static_cast<int>(i) == last_mma)
          out.push_back(named_bar(Stmt::Kind::NamedArrive,
                                  S(c_.bar_turn(0)) + " + (slice + 1) % " + S(L_.r.split_parts),
                                  threads, "ping-pong: the next warpgroup's turn"));
        break;
      }
    }
  }
  drop_repeated_store_drains(out);
  return out;
}

// One full drain of the storing thread's TMA store groups per step covers every later store of
// the step that waits only for its own previous iteration (iter_dep -1): each op appears once per
// step, so that iteration's stores were issued in an earlier step. Later such drains, and the
// warpgroup barrier that publishes each, would only wait again (the protocol checker finds
// nothing that needs them: removing either of two such drains was an uncaught mutant).
void Expander::drop_repeated_store_drains(std::vector<Stmt>& out) const {
  auto storer = [](const Text& g) {  // unguarded, or run by the warpgroup's storing thread
    std::string t;
    for (const auto& p : g.pieces()) {
      if (p.value >= 0) return false;
      t += p.s;
    }
    return t.empty() || t == "thread_idx_in_warpgroup() == 0";
  };
  bool drained = false;
  const std::function<void(std::vector<Stmt>&)> walk = [&](std::vector<Stmt>& v) {
    for (size_t i = 0; i < v.size();) {
      Stmt& st = v[i];
      const bool full = st.kind == Stmt::Kind::BulkWait && st.loop == li_ && st.pending == 0 &&
                        st.is_const && storer(st.guard);
      if (full && drained && st.iter_dep == -1) {
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
        if (i < v.size() && v[i].kind == Stmt::Kind::WarpgroupSync)
          v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      drained |= full;
      if (st.kind == Stmt::Kind::Block) walk(st.body);  // not conditional bodies
      ++i;
    }
  };
  walk(out);
}

void Expander::collect_ages() {
  for (const auto& si : all_)
    if (si.ev >= 0)
      instantiate(ev_[static_cast<size_t>(si.ev)].low.body, si,
                  ev_[static_cast<size_t>(si.ev)].stage);
}

}  // namespace sched2cu::emit::detail
