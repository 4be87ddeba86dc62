// The checker's explorer (model.h): an explicit-state search over every interleaving of the
// warpgroups' events, with the semantics of mbarriers (arrival counts, transaction bytes, phase
// parity), named barriers, wgmma and bulk-store groups, and shared-memory slots, checking the
// properties of docs/verify.md at every step. A process's purely local events (its own wgmma and
// bulk-group waits, fences, slot reads and writes) run eagerly right after its previous event:
// they commute with every other process's events, and running them at the earliest point is the
// most pessimistic for every check they make. Copies complete at issue, the earliest they can.
// The rest of the state is a function of the processes' positions, so those (with the named-barrier
// generations they wait for) are the visited-set key.
#include <algorithm>
#include <set>
#include <unordered_set>

#include "model.h"

namespace sched2cu::verify {
namespace {

struct Bar {
  bool init = false;
  int count = 0, pending = 0;
  long long tx = 0, done = 0;  // bytes still expected in the open phase; phases completed
};
struct Named {
  int threads = 0, arrived = 0;
  long long gen = 0;
};
struct Group {
  std::vector<Acc> reads;
  int event = -1;  // the issuing event (for messages)
};
struct PState {
  size_t pc = 0;
  long long token = -1;  // the named-barrier generation a NamedWait waits to pass
  std::vector<Group> mma, bulk;
  std::map<int, long long> seen;  // barrier -> completions this process has waited for
  std::vector<Acc> holds;         // ring-slot reads not yet released (region, ring, slot, round)
  std::set<int> unfenced;         // regions written by the generic proxy since the last proxy fence
};
// What a region of shared memory holds now.
struct Region {
  bool tma = false;  // the bytes of a TMA load: of ring `ring` round `round`, completing on `bar`
  int ring = -1, bar = -1;
  long long round = 0;
  int writer = -1;  // else the process whose generic-proxy writes they are (-1: nothing valid)
};
struct State {
  std::vector<PState> p;
  std::vector<Bar> bars;
  std::map<int, Named> named;
  std::vector<Region> mem;
  bool init_fenced = false;
  std::vector<std::pair<int, int>> hist;  // the last events run: (process, event)
};

constexpr size_t kHistory = 48;

enum class Step { Ran, Blocked, Done };

struct Failure {
  std::string what;
};

class Explorer {
 public:
  Explorer(const std::vector<Process>& procs, const Tables& tab) : P_(procs), tab_(tab) {
    // Regions that share a byte (buffers that overlay each other, parts of a slot).
    const size_t n = tab_.regions.size();
    overlap_.resize(n);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) {
        const auto& [sa, na] = tab_.regions[a];
        const auto& [sb, nb] = tab_.regions[b];
        if (sa < sb + nb && sb < sa + na) overlap_[a].push_back(static_cast<int>(b));
      }
  }

  Outcome run(long long max_states) {
    State s0;
    s0.p.resize(P_.size());
    s0.bars.resize(tab_.bars.size());
    s0.mem.assign(tab_.regions.size(), Region{});
    Outcome out;
    try {
      locals(s0);
      std::vector<State> stack{s0};
      seen_.insert(key(s0));
      while (!stack.empty()) {
        State s = std::move(stack.back());
        stack.pop_back();
        if (static_cast<long long>(seen_.size()) > max_states)
          throw Failure{"the state space exceeds " + std::to_string(max_states) +
                        " states (raise --max-states)"};
        bool any = false, all_done = true;
        for (size_t i = 0; i < P_.size(); ++i) {
          if (s.p[i].pc >= P_[i].events.size()) continue;
          all_done = false;
          State t = s;
          if (step(t, static_cast<int>(i)) != Step::Ran) continue;
          any = true;
          locals(t);
          if (seen_.insert(key(t)).second) stack.push_back(std::move(t));
        }
        if (all_done) {
          finish(s);
        } else if (!any) {
          fail(s, deadlock(s));
        }
      }
    } catch (const Failure& f) {
      out.ok = false;
      out.error = f.what;
    }
    out.states = static_cast<long long>(seen_.size());
    return out;
  }

 private:
  const std::vector<Process>& P_;
  const Tables& tab_;
  std::unordered_set<std::string> seen_;
  std::vector<std::vector<int>> overlap_;

  static std::string key(const State& s) {
    std::string k;
    for (const auto& p : s.p) {
      k.append(reinterpret_cast<const char*>(&p.pc), sizeof p.pc);
      k.append(reinterpret_cast<const char*>(&p.token), sizeof p.token);
    }
    return k;
  }

  const Event& ev(const State& s, int i) const {
    return P_[static_cast<size_t>(i)].events[s.p[static_cast<size_t>(i)].pc];
  }
  std::string bar_name(int b) const { return tab_.bars[static_cast<size_t>(b)]; }
  std::string region_name(int r) const { return tab_.region_name(r); }
  std::string ring_slot(const Acc& a) const {
    return tab_.rings[static_cast<size_t>(a.ring)] + " slot " + std::to_string(a.slot) + " round " +
           std::to_string(a.round);
  }
  bool overlaps(int a, int b) const {
    const auto& o = overlap_[static_cast<size_t>(a)];
    return std::find(o.begin(), o.end(), b) != o.end();
  }
  std::string who(int i) const {
    const Process& p = P_[static_cast<size_t>(i)];
    return "warpgroup " + std::to_string(p.warpgroup) + (p.role.empty() ? "" : " (" + p.role + ")");
  }

  static bool local(Event::K k) {
    switch (k) {
      case Event::K::BarInit:
      case Event::K::InitFence:
      case Event::K::MmaIssue:
      case Event::K::MmaWait:
      case Event::K::BulkWait:
      case Event::K::ProxyFence:
      case Event::K::Read:
      case Event::K::Write:
      case Event::K::TmaStore:
        return true;
      default:
        return false;
    }
  }

  // Runs every process's local events until each stands at a visible one.
  void locals(State& s) {
    bool moved = true;
    while (moved) {
      moved = false;
      for (size_t i = 0; i < P_.size(); ++i)
        while (s.p[i].pc < P_[i].events.size() && local(P_[i].events[s.p[i].pc].k)) {
          if (step(s, static_cast<int>(i)) != Step::Ran) break;
          moved = true;
        }
    }
  }

  [[noreturn]] void fail(const State& s, const std::string& why) const {
    std::string m = why + "\n  trace (the last events, oldest first):\n";
    for (const auto& [pi, ei] : s.hist) {
      const Process& p = P_[static_cast<size_t>(pi)];
      m += "    wg" + std::to_string(p.warpgroup) + ": " + p.events[static_cast<size_t>(ei)].what +
           "\n";
    }
    for (size_t i = 0; i < P_.size(); ++i) {
      m += "  " + who(static_cast<int>(i)) + ": ";
      m += s.p[i].pc < P_[i].events.size() ? "at " + P_[i].events[s.p[i].pc].what : "finished";
      m += "\n";
    }
    throw Failure{m};
  }

  std::string deadlock(const State& s) const {
    std::string m = "deadlock: every warpgroup that has not finished waits forever";
    for (size_t i = 0; i < P_.size(); ++i) {
      if (s.p[i].pc >= P_[i].events.size()) continue;
      const Event& e = P_[i].events[s.p[i].pc];
      m += "\n  " + who(static_cast<int>(i)) + " waits at " + e.what;
      if (e.k == Event::K::Wait) {
        const Bar& b = s.bars[static_cast<size_t>(e.bar)];
        m += " — " + bar_name(e.bar) + " has completed " + std::to_string(b.done) +
             " phase(s), this wait needs " + std::to_string(e.expect) +
             "; its open phase waits for " + std::to_string(b.pending) + " more arrival(s) and " +
             std::to_string(b.tx) + " more byte(s)";
      } else if (e.k == Event::K::NamedWait) {
        auto it = s.named.find(e.nb);
        if (it != s.named.end())
          m += " — named barrier " + std::to_string(e.nb) + " has " +
               std::to_string(it->second.arrived) + " of " + std::to_string(it->second.threads) +
               " threads";
      }
    }
    return m;
  }

  void complete(Bar& b) {
    if (b.pending == 0 && b.tx == 0) {
      ++b.done;
      b.pending = b.count;
    }
  }

  Bar& initialized(State& s, int b, const std::string& use) {
    Bar& x = s.bars[static_cast<size_t>(b)];
    if (!x.init) fail(s, use + " " + bar_name(b) + ", which no thread initialized");
    return x;
  }

  // The checks of a read of a region that a TMA load fills (ring slots, resident buffers) or that
  // generic-proxy writes fill (staging), by engine a.engine; a ring-slot read is held until the
  // reader releases the slot.
  void check_read(State& s, int i, const Acc& a, const Event& e) {
    const Region& m = s.mem[static_cast<size_t>(a.region)];
    if (m.writer >= 0 && m.ring < 0) {  // staging: the writer's own bytes
      check_fenced(s, i, a, e, m.writer, a.region);
      return;
    }
    const std::string want = a.ring >= 0 ? ring_slot(a) : "the resident buffer";
    if (m.tma || m.writer >= 0) {
      check_part(s, i, a, e, a.region, m, want);
    } else {
      // A ring slot that several warpgroups wrote part by part (a register exchange): every
      // byte must hold a part of this round, each read only after its full barrier.
      const auto parts = written_parts(s, a);
      if (parts.empty())
        fail(s, who(i) + ": " + e.what + " reads " + region_name(a.region) + " as " + want +
                    " before that TMA load was issued (or after other writes clobbered it)");
      for (int q : parts) check_part(s, i, a, e, q, s.mem[static_cast<size_t>(q)], want);
    }
    if (a.ring >= 0) s.p[static_cast<size_t>(i)].holds.push_back(a);
  }

  // A read through the async proxy of bytes process `writer` wrote through the generic proxy
  // needs that process's fence.proxy.async in between.
  void check_fenced(State& s, int i, const Acc& a, const Event& e, int writer, int region) {
    if (a.engine == Access::Engine::Generic) return;
    for (int q : s.p[static_cast<size_t>(writer)].unfenced)
      if (overlaps(q, region))
        fail(s, who(i) + ": " + e.what + " reads " + region_name(region) +
                    " through the async proxy, but the generic-proxy writes to it were not "
                    "followed by fence.proxy.async");
  }

  // Region `q` (the read region or a part of it) holding `m`: the bytes of this ring round,
  // waited for on their full barrier, fenced when written by the generic proxy.
  void check_part(State& s, int i, const Acc& a, const Event& e, int q, const Region& m,
                  const std::string& want) {
    if (m.ring != a.ring || m.round != a.round)
      fail(s, who(i) + ": " + e.what + " reads " + region_name(q) + " as " + want +
                  " before it was " + (m.writer >= 0 ? "written" : "loaded") +
                  " (or after other writes clobbered it)");
    auto it = s.p[static_cast<size_t>(i)].seen.find(m.bar);
    if (it == s.p[static_cast<size_t>(i)].seen.end() || it->second < a.round + 1)
      fail(s, who(i) + ": " + e.what + " reads " + want + " without having waited for " +
                  bar_name(m.bar) + " phase " + std::to_string(a.round));
    if (m.writer >= 0) check_fenced(s, i, a, e, m.writer, q);
  }

  // The regions inside ring-slot read `a` that generic ring writes filled, when together they
  // cover every byte of it (else none).
  std::vector<int> written_parts(const State& s, const Acc& a) const {
    if (a.ring < 0) return {};
    const auto& [start, bytes] = tab_.regions[static_cast<size_t>(a.region)];
    std::vector<std::pair<long long, int>> in;  // (start, region)
    for (int q : overlap_[static_cast<size_t>(a.region)]) {
      const auto& [qs, qn] = tab_.regions[static_cast<size_t>(q)];
      const Region& m = s.mem[static_cast<size_t>(q)];
      if (q != a.region && m.writer >= 0 && m.ring >= 0 && start <= qs && qs + qn <= start + bytes)
        in.emplace_back(qs, q);
    }
    std::sort(in.begin(), in.end());
    long long at = start;
    std::vector<int> out;
    for (const auto& [qs, q] : in) {
      if (qs > at) return {};
      at = std::max(at, qs + tab_.regions[static_cast<size_t>(q)].second);
      out.push_back(q);
    }
    return at >= start + bytes ? out : std::vector<int>{};
  }

  // Whether anything still reads a region overlapping `region` that a write of ring slot `a`
  // (ring -1: a generic or staging write) must not clobber; fails naming the reader.
  void check_clobber(State& s, int i, const Acc& a, const Event& e, const char* how) {
    for (size_t q = 0; q < s.p.size(); ++q) {
      for (const Acc& h : s.p[q].holds)
        if (overlaps(h.region, a.region) &&
            !(a.ring >= 0 && h.ring == a.ring && h.slot == a.slot && h.round >= a.round))
          fail(s, who(i) + ": " + e.what + " " + how + " " + region_name(a.region) + " while " +
                      who(static_cast<int>(q)) + " has not released its read of " + ring_slot(h) +
                      " there");
      for (const Group& g : s.p[q].mma)
        for (const Acc& r : g.reads)
          if (overlaps(r.region, a.region))
            fail(s, who(i) + ": " + e.what + " " + how + " " + region_name(a.region) +
                        " while a wgmma group of " + who(static_cast<int>(q)) + " (" +
                        P_[q].events[static_cast<size_t>(g.event)].what + ") may still read it");
      for (const Group& g : s.p[q].bulk)
        for (const Acc& r : g.reads)
          if (overlaps(r.region, a.region))
            fail(s, who(i) + ": " + e.what + " " + how + " " + region_name(a.region) +
                        " while the TMA store of " + who(static_cast<int>(q)) + " that reads it (" +
                        P_[q].events[static_cast<size_t>(g.event)].what +
                        ") may still be reading: no tma_wait_read covers it");
    }
  }

  // A write leaves `region` and every region inside it holding `m` (a warpgroup's rows of a
  // resident tile hold what the tile's TMA load wrote), and every other region sharing a byte
  // with it invalid.
  void written(State& s, int region, const Region& m) {
    const auto& [start, bytes] = tab_.regions[static_cast<size_t>(region)];
    for (int q : overlap_[static_cast<size_t>(region)]) {
      const auto& [qs, qn] = tab_.regions[static_cast<size_t>(q)];
      s.mem[static_cast<size_t>(q)] = start <= qs && qs + qn <= start + bytes ? m : Region{};
    }
    s.mem[static_cast<size_t>(region)] = m;
  }

  Step step(State& s, int i) {
    PState& p = s.p[static_cast<size_t>(i)];
    const auto& evs = P_[static_cast<size_t>(i)].events;
    if (p.pc >= evs.size()) return Step::Done;
    const Event& e = evs[p.pc];
    switch (e.k) {
      case Event::K::BarInit: {
        Bar& b = s.bars[static_cast<size_t>(e.bar)];
        if (b.init) fail(s, who(i) + ": " + bar_name(e.bar) + " is initialized twice");
        if (e.count <= 0)
          fail(s, who(i) + ": " + bar_name(e.bar) + " is initialized with count " +
                      std::to_string(e.count));
        b = Bar{true, e.count, e.count, 0, 0};
        break;
      }
      case Event::K::InitFence:
        s.init_fenced = true;
        break;
      case Event::K::Wait: {
        Bar& b = initialized(s, e.bar, "waits on");
        const bool pass = (b.done & 1) != e.parity;
        if (pass && b.done != e.expect)
          fail(s, who(i) + ": " + e.what + " is satisfied by the wrong phase: it means phase " +
                      std::to_string(e.expect - 1) + " of " + bar_name(e.bar) +
                      ", which has completed " + std::to_string(b.done) +
                      " phase(s), and the parity matches");
        if (!pass) {
          if (b.done > e.expect)
            fail(s, who(i) + ": " + e.what + " waits for phase " + std::to_string(e.expect - 1) +
                        " of " + bar_name(e.bar) + ", which has already completed " +
                        std::to_string(b.done) + " phases: the parity now names a later phase");
          return Step::Blocked;
        }
        auto& sn = p.seen[e.bar];
        sn = std::max(sn, e.expect);
        break;
      }
      case Event::K::Arrive:
      case Event::K::Release: {
        Bar& b = initialized(s, e.bar, "arrives on");
        const long long phase = e.phase;
        if (phase >= 0 && b.done != phase)
          fail(s, who(i) + ": " + e.what + " arrives for phase " + std::to_string(phase) + " of " +
                      bar_name(e.bar) + ", but its open phase is " + std::to_string(b.done) +
                      " (the barrier's arrival count differs from the threads that arrive)");
        if (e.k == Event::K::Release) {
          const Acc& a = e.mem.at(0);
          for (const Group& g : p.mma)
            for (const Acc& r : g.reads)
              if (r.ring == a.ring && r.slot == a.slot && r.round <= a.round)
                fail(s, who(i) + ": " + e.what + " releases " + ring_slot(a) +
                            " while the wgmma group that reads it (" +
                            P_[static_cast<size_t>(i)].events[static_cast<size_t>(g.event)].what +
                            ") is still pending: no wgmma_wait covers it");
          std::erase_if(p.holds, [&](const Acc& h) {
            return h.ring == a.ring && h.slot == a.slot && h.round <= a.round;
          });
        }
        b.pending -= e.count;
        if (b.pending < 0)
          fail(s, who(i) + ": " + e.what + ": more arrivals on " + bar_name(e.bar) +
                      " in one phase than its count " + std::to_string(b.count));
        b.tx += e.tx;
        complete(b);
        break;
      }
      case Event::K::TmaLoad: {
        Bar& b = initialized(s, e.bar, "a TMA load completes on");
        if (!s.init_fenced)
          fail(s, who(i) + ": " + e.what + " completes on " + bar_name(e.bar) +
                      " but no mbar_fence_init made its initialization visible to the async proxy");
        const Acc& a = e.mem.at(0);
        check_clobber(s, i, a, e, "overwrites");
        if (b.done != a.round)
          fail(s, who(i) + ": " + e.what + " is a copy of round " + std::to_string(a.round) +
                      " but " + bar_name(e.bar) + " has its phase " + std::to_string(b.done) +
                      " open: the expected bytes of a phase differ from what its copies deliver");
        Region m;
        m.tma = true;
        m.ring = a.ring;
        m.round = a.round;
        m.bar = e.bar;
        written(s, a.region, m);
        b.tx -= e.tx;
        if (b.tx < 0 && b.pending == 0)
          fail(s, who(i) + ": " + e.what + " delivers more bytes to phase " +
                      std::to_string(b.done) + " of " + bar_name(e.bar) + " than were armed (" +
                      std::to_string(-b.tx) + " B too many)");
        complete(b);
        break;
      }
      case Event::K::MmaIssue:
        for (const Acc& a : e.mem) check_read(s, i, a, e);
        p.mma.push_back({e.mem, static_cast<int>(p.pc)});
        break;
      case Event::K::Read:
        for (const Acc& a : e.mem) check_read(s, i, a, e);
        break;
      case Event::K::MmaWait:
        while (static_cast<int>(p.mma.size()) > e.count) p.mma.erase(p.mma.begin());
        break;
      case Event::K::BulkWait:
        while (static_cast<int>(p.bulk.size()) > e.count) p.bulk.erase(p.bulk.begin());
        break;
      case Event::K::ProxyFence:
        p.unfenced.clear();
        break;
      case Event::K::Write:
        for (const Acc& a : e.mem) {
          check_clobber(s, i, a, e, "rewrites");
          p.unfenced.insert(a.region);
          Region m;
          m.writer = i;
          if (a.ring >= 0) {  // a ring slot (part) filled by stores: read after its full barrier
            m.ring = a.ring;
            m.round = a.round;
            m.bar = a.bar;
          }
          written(s, a.region, m);
        }
        break;
      case Event::K::TmaStore:
        for (const Acc& a : e.mem) check_read(s, i, a, e);
        p.bulk.push_back({e.mem, static_cast<int>(p.pc)});
        break;
      case Event::K::NamedArrive: {
        Named& n = s.named[e.nb];
        if (n.arrived > 0 && n.threads != e.threads)
          fail(s, who(i) + ": " + e.what + " counts " + std::to_string(e.threads) +
                      " threads on named barrier " + std::to_string(e.nb) +
                      ", which other threads joined counting " + std::to_string(n.threads));
        n.threads = e.threads;
        n.arrived += e.count;
        p.token = n.gen;
        if (n.arrived > n.threads)
          fail(s, who(i) + ": " + e.what + ": more threads reach named barrier " +
                      std::to_string(e.nb) + " than its count " + std::to_string(n.threads));
        if (n.arrived == n.threads) {
          ++n.gen;
          n.arrived = 0;
        }
        break;
      }
      case Event::K::NamedWait: {
        const Named& n = s.named[e.nb];
        if (n.gen <= p.token) return Step::Blocked;
        p.token = -1;
        break;
      }
    }
    s.hist.emplace_back(i, static_cast<int>(p.pc));
    if (s.hist.size() > kHistory) s.hist.erase(s.hist.begin());
    ++p.pc;
    if (p.pc == evs.size()) {
      if (!p.mma.empty())
        fail(s, who(i) + " finishes with " + std::to_string(p.mma.size()) +
                    " wgmma group(s) pending: no wgmma_wait<0> covers them");
      if (!p.bulk.empty())
        fail(s, who(i) + " finishes with " + std::to_string(p.bulk.size()) +
                    " TMA store group(s) still reading their staging: no tma_wait covers them");
    }
    return Step::Ran;
  }

  void finish(const State& s) const {
    for (size_t b = 0; b < s.bars.size(); ++b) {
      const Bar& x = s.bars[b];
      if (x.init && (x.pending != x.count || x.tx != 0))
        fail(s, bar_name(static_cast<int>(b)) + " ends in the middle of a phase (" +
                    std::to_string(x.count - x.pending) + " of " + std::to_string(x.count) +
                    " arrivals, " + std::to_string(x.tx) + " bytes outstanding)");
    }
    for (const auto& [id, n] : s.named)
      if (n.arrived != 0)
        fail(s, "named barrier " + std::to_string(id) + " ends with " + std::to_string(n.arrived) +
                    " of " + std::to_string(n.threads) + " threads arrived");
  }
};

}  // namespace

Outcome explore(const std::vector<Process>& procs, const Tables& tab, long long max_states) {
  return Explorer(procs, tab).run(max_states);
}

}  // namespace sched2cu::verify
