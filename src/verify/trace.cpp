// The checker's interpreter (model.h): runs the emitted statements once per warpgroup, as that
// warpgroup's leader thread, and records the synchronization events it performs in order. Plain
// code is read only for the integer variables that control flow and ring counters depend on;
// every other statement is skipped. A condition or counter it cannot evaluate is an error, never
// a guess.
#include <regex>

#include "eval.h"
#include "model.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::verify {

int Tables::bar(const std::string& n) {
  auto [it, fresh] = bar_id.emplace(n, static_cast<int>(bars.size()));
  if (fresh) bars.push_back(n);
  return it->second;
}
int Tables::ring(const std::string& n) {
  auto [it, fresh] = ring_id.emplace(n, static_cast<int>(rings.size()));
  if (fresh) rings.push_back(n);
  return it->second;
}
int Tables::region(long long start, long long bytes) {
  auto [it, fresh] =
      region_id.emplace(std::make_pair(start, bytes), static_cast<int>(regions.size()));
  if (fresh) regions.emplace_back(start, bytes);
  return it->second;
}
std::string Tables::region_name(int r) const {
  const auto& [a, n] = regions.at(static_cast<size_t>(r));
  return "smem[" + std::to_string(a) + ", +" + std::to_string(n) + ")";
}

std::string Scenario::str() const {
  std::string s;
  for (const auto& [l, t] : trips) {
    if (!s.empty()) s += ", ";
    s += "loop " + std::to_string(l) + ": ";
    for (size_t i = 0; i < t.size(); ++i) s += (i ? "/" : "") + std::to_string(t[i]);
  }
  s = s.empty() ? "no loop" : s + " iterations";
  return cluster > 1 ? s + ", the first CTA of a cluster of " + std::to_string(cluster) : s;
}

namespace {

const emit::Namer kLiteral = [](int, int) -> std::string {
  throw Error("verify: internal: an unresolved reference in the emitted statements");
};

std::string text(const emit::Text& t) { return emit::render(t, kLiteral); }

// The statement's first printed line without indentation (and its note).
std::string printed(const Stmt& s) {
  Stmt c = s;
  c.body.clear();
  c.else_body.clear();
  std::string out;
  switch (s.kind) {
    case Stmt::Kind::TmaLoad:
      return "TMA load (" + s.note + ")";
    case Stmt::Kind::TmaStore:
      return "TMA store (" + s.note + ")";
    case Stmt::Kind::MmaIssue:
      return "wgmma group (" + s.note + ")";
    default:
      break;
  }
  if (s.kind == Stmt::Kind::If && s.one_line) c = s;
  emit::print({c}, 0, kLiteral, out);
  const size_t nl = out.find('\n');
  return nl == std::string::npos ? out : out.substr(0, nl);
}

bool integral(std::string t) {
  if (t.rfind("const ", 0) == 0) t = t.substr(6);
  static const char* ok[] = {"int",     "long long", "unsigned", "unsigned int", "uint32_t",
                             "int32_t", "int64_t",   "uint64_t", "bool",         "size_t"};
  for (const char* o : ok)
    if (t == o) return true;
  return false;
}

class Interp {
 public:
  Interp(int warpgroups, const std::vector<std::string>& params,
         const std::map<int, long long>& offsets, const Scenario& sc, Tables& tab)
      : W_(warpgroups), params_(params), offsets_(offsets), sc_(sc), tab_(tab) {}

  Process run(const std::vector<Stmt>& body, int wg) {
    p_ = Process{};
    p_.warpgroup = wg;
    env_ = Env{};
    env_.warpgroup = wg;
    env_.cluster = sc_.cluster;
    env_.push();
    // Kernel arguments: trip counts come from the scenario, so their values only reach index
    // math the protocol does not depend on; a fixed value keeps that math defined.
    for (const auto& n : params_) env_.declare(n, 4096);
    env_.declare("wg", wg);
    for (const char* b : {"blockIdx.x", "blockIdx.y", "blockIdx.z"}) env_.declare(b, 0);
    trip_seen_.clear();
    exec(body, false);
    return std::move(p_);
  }

 private:
  const int W_;
  const std::vector<std::string>& params_;
  const std::map<int, long long>& offsets_;
  const Scenario& sc_;
  Tables& tab_;
  Process p_;
  Env env_;
  std::map<int, size_t> trip_seen_;

  [[noreturn]] void fail(const Stmt& s, const std::string& why) const {
    throw Error("verify: cannot model `" + printed(s) + "` (warpgroup " +
                std::to_string(p_.warpgroup) + "): " + why);
  }

  long long value(const Stmt& s, const emit::Text& t, const char* what) {
    const std::string e = text(t);
    auto v = eval(e, env_);
    if (!v)
      fail(s,
           std::string("its ") + what + " `" + e + "` depends on a value the model does not track");
    return *v;
  }

  void event(Event e, const Stmt& s, const std::string& extra = "") {
    e.stmt = &s;
    e.what = printed(s) + extra;
    p_.events.push_back(std::move(e));
  }

  // A declaration or assignment of an integer variable in plain code.
  void scalar_code(const std::string& t) {
    static const std::regex decl_re(
        R"(^(const\s+)?(int|long long|unsigned|unsigned int|uint32_t|int32_t|int64_t|uint64_t|bool|size_t)\s+(\w+)\s*=\s*(.+);$)");
    static const std::regex assign_re(R"(^(\w+)\s*(=|\+=|-=)\s*(.+);$)");
    static const std::regex incr_re(R"(^(\+\+(\w+)|(\w+)\+\+);$)");
    std::smatch m;
    if (std::regex_match(t, m, decl_re)) {
      env_.declare(m[3], eval(m[4], env_));
    } else if (std::regex_match(t, m, assign_re)) {
      if (!env_.declared(m[1])) return;
      auto v = eval(m[3], env_);
      if (m[2] != "=") {
        auto old = env_.get(m[1]);
        v = v && old ? std::optional<long long>(m[2] == "+=" ? *old + *v : *old - *v)
                     : std::nullopt;
      }
      env_.assign(m[1], v);
    } else if (std::regex_match(t, m, incr_re)) {
      const std::string n = m[2].matched ? m[2].str() : m[3].str();
      if (!env_.declared(n)) return;
      auto old = env_.get(n);
      env_.assign(n, old ? std::optional<long long>(*old + 1) : std::nullopt);
    }
  }

  // The bytes an access touches, and for a ring slot its ring, slot and round.
  Acc access(const Stmt& s, const Access& a) {
    Acc r;
    r.engine = a.engine;
    r.write = a.write;
    auto base = offsets_.find(a.buffer);
    if (base == offsets_.end())
      fail(s, "it accesses buffer " + std::to_string(a.buffer) + ", which the plan does not place");
    long long off = 0;
    if (!a.ring.empty()) {
      const long long c = value(s, a.index, "ring counter");
      if (a.depth <= 0) fail(s, "a ring access without a depth");
      r.ring = tab_.ring(a.ring);
      r.slot = c % a.depth;
      r.round = c / a.depth;
      // A part of the slot (one warpgroup's rows of an exchanged tile) starts `offset` bytes
      // into it; the slot's own size is then `slot_bytes`.
      off = r.slot * (a.slot_bytes > 0 ? a.slot_bytes : a.bytes);
      if (!text(a.offset).empty()) off += value(s, a.offset, "offset in the ring slot");
      r.bar = tab_.bar(a.ring + ".full[" + std::to_string(r.slot) + "]");
    } else if (!text(a.offset).empty()) {
      off = value(s, a.offset, "staging offset");
    }
    if (a.ring.empty() && !text(a.round).empty()) r.round = value(s, a.round, "fill round");
    r.region = tab_.region(base->second + off, a.bytes);
    return r;
  }

  std::string slot_text(const Acc& a) const {
    std::string t = " [" + tab_.region_name(a.region);
    if (a.ring >= 0)
      t += ": " + tab_.rings[static_cast<size_t>(a.ring)] + " slot " + std::to_string(a.slot) +
           ", round " + std::to_string(a.round);
    return t + "]";
  }

  void ring_op(const Stmt& s, bool single) {
    const long long c = value(s, s.ctr, "ring counter");
    if (s.depth <= 0) fail(s, "a ring statement without a depth");
    const long long slot = c % s.depth, round = c / s.depth;
    const std::string at = "[" + std::to_string(slot) + "]";
    const std::string info = " [counter " + std::to_string(c) + ": slot " + std::to_string(slot) +
                             ", round " + std::to_string(round) + "]";
    Event e;
    switch (s.kind) {
      case Stmt::Kind::WaitFull:
        e.k = Event::K::Wait;
        e.bar = tab_.bar(s.ring + ".full" + at);
        e.parity = static_cast<int>(round & 1);
        e.expect = round + 1;
        break;
      case Stmt::Kind::WaitEmpty:
        e.k = Event::K::Wait;
        e.bar = tab_.bar(s.ring + ".empty" + at);
        e.parity = static_cast<int>((round & 1) ^ 1);
        e.expect = round;
        break;
      case Stmt::Kind::Arm:
        e.k = Event::K::Arrive;
        e.bar = tab_.bar(s.ring + ".full" + at);
        e.count = single ? 1 : 128;
        e.tx = s.bytes * e.count;
        e.phase = round;
        break;
      case Stmt::Kind::Commit:  // lane 0 of every warp arrives, no bytes
        e.k = Event::K::Arrive;
        e.bar = tab_.bar(s.ring + ".full" + at);
        e.count = single ? 1 : 4;
        e.phase = round;
        break;
      default: {  // Release: lane 0 of every warp arrives
        e.k = Event::K::Release;
        e.bar = tab_.bar(s.ring + ".empty" + at);
        e.count = single ? 1 : 4;
        e.phase = round;
        Acc a;
        a.ring = tab_.ring(s.ring);
        a.slot = slot;
        a.round = round;
        e.mem.push_back(a);
        break;
      }
    }
    event(e, s, info);
  }

  // `count` threads arrive on named barrier `nb` of `threads`; with `wait`, they wait for it.
  void named_barrier(const Stmt& s, int nb, int threads, int count, bool wait) {
    const std::string info = " [barrier " + std::to_string(nb) + "]";
    Event a;
    a.k = Event::K::NamedArrive;
    a.nb = nb;
    a.threads = threads;
    a.count = count;
    event(a, s, info);
    if (!wait) return;
    Event w;
    w.k = Event::K::NamedWait;
    w.nb = nb;
    event(w, s, info);
  }

  void exec(const std::vector<Stmt>& body, bool single) {
    for (const Stmt& s : body) {
      if (!text(s.guard).empty()) {
        const std::string g = text(s.guard);
        auto v = eval(g, env_);
        if (!v) fail(s, "its guard `" + g + "` depends on a value the model does not track");
        if (!*v) continue;
        exec_one(s, single || reads_thread_identity(g));
        continue;
      }
      exec_one(s, single);
    }
  }

  void exec_one(const Stmt& s, bool single) {
    const int mult = single ? 1 : 128;
    switch (s.kind) {
      case Stmt::Kind::Comment:
      case Stmt::Kind::ZeroTripSplit:
      case Stmt::Kind::SplitEnd:
        return;
      case Stmt::Kind::Code:
        return scalar_code(text(s.text));
      case Stmt::Kind::Decl:
        if (integral(text(s.type)))
          env_.declare(text(s.var), s.init.empty() ? std::nullopt : eval(text(s.init), env_));
        return;
      case Stmt::Kind::TripCount: {
        auto t = sc_.trips.find(s.loop);
        long long n = 0;
        if (t == sc_.trips.end() || t->second.empty()) {
          n = value(s, s.init, "trip count");
        } else {
          const size_t k = trip_seen_[s.loop]++;
          n = t->second[k % t->second.size()];
        }
        env_.declare(text(s.var), n);
        return;
      }
      case Stmt::Kind::Block:
        env_.push();
        exec(s.body, single);
        env_.pop();
        return;
      case Stmt::Kind::If: {
        const std::string c = text(s.cond);
        auto v = eval(c, env_);
        if (!v) fail(s, "its condition `" + c + "` depends on a value the model does not track");
        if (*v && s.note.rfind("role ", 0) == 0) p_.role = s.note;
        env_.push();
        exec(*v ? s.body : s.else_body, single || (*v && reads_thread_identity(c)));
        env_.pop();
        return;
      }
      case Stmt::Kind::For: {
        env_.push();
        scalar_code(text(s.init) + ";");
        long long n = 0;
        for (;;) {
          const long long c = value(s, s.cond, "loop condition");
          if (!c) break;
          if (++n > 1000000) fail(s, "more than a million iterations");
          env_.push();
          exec(s.body, single);
          env_.pop();
          scalar_code(text(s.step) + ";");
        }
        env_.pop();
        return;
      }
      case Stmt::Kind::WaitFull:
      case Stmt::Kind::WaitEmpty:
      case Stmt::Kind::Arm:
      case Stmt::Kind::Commit:
      case Stmt::Kind::Release:
        return ring_op(s, single);
      case Stmt::Kind::RingInit:
        for (int i = 0; i < s.depth; ++i) {
          const std::string at = "[" + std::to_string(i) + "]";
          Event f;
          f.k = Event::K::BarInit;
          f.bar = tab_.bar(s.ring + ".full" + at);
          f.count = s.full;
          event(f, s);
          Event e = f;
          e.bar = tab_.bar(s.ring + ".empty" + at);
          e.count = s.empty;
          event(e, s);
        }
        return;
      case Stmt::Kind::BarInit: {
        Event e;
        e.k = Event::K::BarInit;
        e.bar = tab_.bar(text(s.bar));
        e.count = static_cast<int>(s.bytes);
        return event(e, s);
      }
      case Stmt::Kind::InitFence: {
        Event e;
        e.k = Event::K::InitFence;
        return event(e, s);
      }
      case Stmt::Kind::CtaSync: {
        Event a;
        a.k = Event::K::NamedArrive;
        a.nb = 0;
        a.threads = 128 * W_;
        a.count = mult;
        event(a, s);
        Event w;
        w.k = Event::K::NamedWait;
        w.nb = 0;
        return event(w, s);
      }
      case Stmt::Kind::BarWait: {
        Event e;
        e.k = Event::K::Wait;
        e.bar = tab_.bar(text(s.bar));
        e.parity = static_cast<int>(s.bytes & 1);
        e.expect = s.bytes + 1;
        return event(e, s);
      }
      case Stmt::Kind::BarArm: {
        Event e;
        e.k = Event::K::Arrive;
        e.bar = tab_.bar(text(s.bar));
        e.count = mult;
        e.tx = s.bytes * mult;
        e.phase = 0;  // a function-scope barrier is used for one phase
        return event(e, s);
      }
      case Stmt::Kind::TmaLoad: {
        if (s.mem.size() != 1) fail(s, "a TMA load names no slot");
        Event e;
        e.k = Event::K::TmaLoad;
        e.mem.push_back(access(s, s.mem[0]));
        const Access& a = s.mem[0];
        // The copies complete on a ring slot: the slot they write, or for a staging fill (whose
        // bytes are a staging box) a slot of its fill ring named by the statement itself.
        const bool fill = !s.ring.empty();
        if (fill || !a.ring.empty()) {
          const long long c = value(s, fill ? s.ctr : a.index, "ring counter");
          const int depth = fill ? s.depth : a.depth;
          if (depth <= 0) fail(s, "a ring statement without a depth");
          e.bar = tab_.bar((fill ? s.ring : a.ring) + ".full[" + std::to_string(c % depth) + "]");
        } else {
          e.bar = tab_.bar(text(s.bar));
        }
        e.tx = s.bytes * mult;
        return event(e, s, slot_text(e.mem[0]));
      }
      case Stmt::Kind::TmaStore:
      case Stmt::Kind::MmaIssue:
      case Stmt::Kind::MemCode: {
        if (s.kind == Stmt::Kind::MmaIssue && single)
          fail(s, "a wgmma group issued under a one-thread condition");
        Event e;
        e.k = s.kind == Stmt::Kind::TmaStore   ? Event::K::TmaStore
              : s.kind == Stmt::Kind::MmaIssue ? Event::K::MmaIssue
              : s.mem.at(0).write              ? Event::K::Write
                                               : Event::K::Read;
        std::string info;
        for (const Access& a : s.mem) {
          e.mem.push_back(access(s, a));
          info += slot_text(e.mem.back());
        }
        return event(e, s, info);
      }
      case Stmt::Kind::MmaWait:
      case Stmt::Kind::BulkWait: {
        Event e;
        e.k = s.kind == Stmt::Kind::MmaWait ? Event::K::MmaWait : Event::K::BulkWait;
        e.count = s.pending;
        return event(e, s);
      }
      case Stmt::Kind::ProxyFence: {
        Event e;
        e.k = Event::K::ProxyFence;
        return event(e, s);
      }
      case Stmt::Kind::ClusterSum: {
        // The first CTA of a cluster sharing the loop (the modelled CTA is rank 0): every thread
        // of the role joins the barrier, stores its words into the region and loads the sums
        // back (the peers' remote adds land in between, from outside this CTA's protocol).
        if (value(s, s.cond, "cluster share") <= 1) return;
        if (single) fail(s, "a split sum under a one-thread condition");
        named_barrier(s, s.bar_id, s.threads, mult, true);
        for (const bool write : {true, false}) {
          Event e;
          e.k = write ? Event::K::Write : Event::K::Read;
          std::string what;
          for (const Access& x : s.mem) {
            Access y = x;
            y.write = write;
            e.mem.push_back(access(s, y));
            what += slot_text(e.mem.back());
          }
          event(e, s, (write ? " [stores its words" : " [loads the sums") + what + "]");
        }
        return;
      }
      case Stmt::Kind::NamedSync:
      case Stmt::Kind::NamedArrive:
      case Stmt::Kind::WarpgroupSync:
        return named_barrier(
            s, text(s.bar).empty() ? s.bar_id : static_cast<int>(value(s, s.bar, "barrier id")),
            s.threads, mult, s.kind != Stmt::Kind::NamedArrive);
    }
  }
};

}  // namespace

std::vector<Process> trace(const std::vector<Stmt>& body, int warpgroups,
                           const std::vector<std::string>& int_params,
                           const std::map<int, long long>& buffer_offset, const Scenario& sc,
                           Tables& tab) {
  std::vector<Process> out;
  out.reserve(static_cast<size_t>(warpgroups));
  Interp in(warpgroups, int_params, buffer_offset, sc, tab);
  for (int w = 0; w < warpgroups; ++w) out.push_back(in.run(body, w));
  return out;
}

}  // namespace sched2cu::verify
