// wgmma waits of the modulo expander (docs/emitter.md, "Modulo expander"): which MMA groups each
// emitted instance needs complete (register reads of MMA results, ring-slot releases, writes to
// registers an MMA still reads), derived by simulating the emitted sequence for several trip
// counts, and where the steady state's loop back edge goes. Never weakens a wait the simulation
// shows is needed.
#include <algorithm>
#include <climits>
#include <functional>

#include "expander.h"

namespace sched2cu::emit::detail {

// The variables an MMA node's group reads or writes asynchronously, as named at its issue (a
// register operand defined later in the step than the MMA is read from its own variable, which
// still holds the previous iteration's value: read_of with the MMA as the reader, as the issue
// itself names it).
std::vector<std::pair<int, int>> Expander::mma_regs(int n) const {
  std::vector<std::pair<int, int>> out;
  const int s = node_stage_.at(n);
  for (const auto& e : ev_)
    if (e.node == n)
      for (const auto& t : e.low.mma_regs)
        for (const auto& p : t.pieces())
          if (p.value >= 0 && !is_pseudo(p.value)) {
            const auto [v, a] = read_of(p.value, s, &e);
            if (a != INT_MIN) out.emplace_back(v, a);
          }
  return out;
}

std::vector<Req> Expander::requirements(const SInst& si) const {
  std::vector<Req> out;
  auto mma_of = [&](int v) -> int {
    auto it = def_node_.find(v);
    if (it == def_node_.end() || !node_stage_.count(it->second)) return -1;
    return node(it->second).pipeline == "TC" ? it->second : -1;
  };
  if (si.ev < 0) {  // carry shifts read the previous copies
    for (const auto& [v, amax] : max_age_) {
      const int m = mma_of(v);
      if (m >= 0)
        for (int a = 1; a <= amax; ++a) out.push_back({m, a});
    }
    return out;
  }
  const Event& e = ev_[static_cast<size_t>(si.ev)];
  if (e.kind == Event::Kind::Release) {
    // The reader of iteration j issued in step j + stage(reader); the release of iteration j
    // runs in step j + stage(release).
    for (int m : e.mma_readers) out.push_back({m, e.stage - node_stage_.at(m)});
    return out;
  }
  if (e.kind != Event::Kind::Op) return out;
  // Register reads of MMA results: each reference (value, age) was defined `age` steps ago. An
  // MMA's own operands are read by the tensor core (ordered behind earlier groups); what runs
  // before its issue (D = C, a fill of D) reads registers like any other statement.
  std::vector<Stmt> body;
  for (const auto& st : e.low.body)
    if (st.kind != Stmt::Kind::MmaIssue) body.push_back(st);
  for_each_read(
      body, e.stage,
      [&](int, int v, int a) {
        const int m = mma_of(v);
        if (m >= 0) out.push_back({m, a});
      },
      &e);
  return out;
}

std::vector<std::pair<int, int>> Expander::writes(const SInst& si) const {
  std::vector<std::pair<int, int>> out;
  if (si.ev < 0) {
    for (const auto& [v, amax] : max_age_)
      for (int a = 1; a <= amax; ++a) out.emplace_back(v, a);
    return out;
  }
  const Event& e = ev_[static_cast<size_t>(si.ev)];
  if (e.kind != Event::Kind::Op) return out;
  if (e.low.mma) {
    // D written before the issue (D = C, a fill): an earlier group using D must be done.
    for (const auto& st : e.low.body)
      if (st.kind != Stmt::Kind::MmaIssue) {
        for (int r : c_.op(node(e.node).op).results) out.emplace_back(r, 0);
        break;
      }
    return out;
  }
  for (int r : c_.op(node(e.node).op).results) out.emplace_back(r, 0);
  return out;
}

// Simulates the emitted sequence for trip counts S - 1 .. S + 6 and derives, per static
// instance, the deepest wgmma.wait_group that still completes every MMA it needs (register reads
// of MMA results, slot releases, writes to registers an MMA still reads), and what to fence.
void Expander::derive_waits(std::map<int, int>& waits, std::map<int, std::vector<Text>>& fences,
                            bool& end_wait, std::vector<Text>& end_fence) {
  struct Dyn {
    int sid;
    long long step;
  };
  auto sequence = [&](long long T) {
    std::vector<Dyn> seq;
    auto add = [&](int sec, int step, long long k) {
      for (const auto& si : section(sec, step)) seq.push_back({sid(si), k});
    };
    if (S_ == 1) {
      for (long long k = 0; k < T; ++k) add(1, 0, k);
    } else {
      for (int p = 0; p + 1 < S_; ++p) add(0, p, p);
      for (long long k = S_ - 1; k < T; ++k) add(1, 0, k);
      for (int e = 0; e + 1 < S_; ++e) add(2, e, T + e);
    }
    return seq;
  };
  // Issue-time registers of each MMA node.
  std::map<int, std::vector<std::pair<int, int>>> regs;
  for (int id : nodes_)
    if (node(id).pipeline == "TC") regs[id] = mma_regs(id);
  auto text_of = [&](int m) {
    std::vector<Text> out;
    for (const auto& [v, a] : regs[m]) out.push_back(Text::ref(v, a));
    return out;
  };
  for (int round = 0;; ++round) {
    if (round == 8)
      fail("internal: the wgmma waits did not reach a fixed point in 8 rounds of simulation");
    bool changed = false;
    end_wait = false;
    std::map<int, std::set<int>> completed_by;  // sid -> MMA nodes it completes
    for (long long T = std::max(0, S_ - 1); T <= S_ + 6; ++T) {
      const auto seq = sequence(T);
      std::vector<std::pair<int, long long>> issued;  // (node, iteration) in issue order
      std::vector<char> done;
      for (const auto& d : seq) {
        const SInst& si = all_[static_cast<size_t>(d.sid)];
        auto need = [&](int m, long long iter) {
          if (iter < 0) return;
          long long idx = -1;
          for (long long i = static_cast<long long>(issued.size()) - 1; i >= 0; --i)
            if (issued[static_cast<size_t>(i)].first == m &&
                issued[static_cast<size_t>(i)].second == iter) {
              idx = i;
              break;
            }
          if (idx < 0 || done[static_cast<size_t>(idx)]) return;
          const int n = static_cast<int>(issued.size() - 1 - static_cast<size_t>(idx));
          auto it = waits.find(d.sid);
          if (it == waits.end() || it->second > n) {
            waits[d.sid] = n;
            changed = true;
          }
        };
        for (const auto& r : requirements(si)) need(r.mma, d.step - r.back - node_stage_.at(r.mma));
        // Writes to variables an in-flight MMA uses.
        for (const auto& w : writes(si))
          for (size_t i = 0; i < issued.size(); ++i) {
            if (done[i]) continue;
            for (const auto& rv : regs[issued[i].first])
              if (rv == w) need(issued[i].first, issued[i].second);
          }
        auto it = waits.find(d.sid);
        if (it != waits.end()) {
          const long long keep = it->second;
          for (long long i = 0; i + keep < static_cast<long long>(issued.size()); ++i)
            if (!done[static_cast<size_t>(i)]) {
              done[static_cast<size_t>(i)] = 1;
              completed_by[d.sid].insert(issued[static_cast<size_t>(i)].first);
            }
        }
        if (si.ev >= 0) {
          const Event& e = ev_[static_cast<size_t>(si.ev)];
          if (e.kind == Event::Kind::Op && e.low.mma) {
            issued.emplace_back(e.node, d.step - e.stage);
            done.push_back(0);
          }
        }
      }
      for (size_t i = 0; i < issued.size(); ++i)
        if (!done[i]) {
          end_wait = true;
          completed_by[-1].insert(issued[i].first);
        }
    }
    fences.clear();
    end_fence.clear();
    for (const auto& [s, ms] : completed_by)
      for (int m : ms) {
        auto t = text_of(m);
        auto& dst = s < 0 ? end_fence : fences[s];
        dst.insert(dst.end(), t.begin(), t.end());
      }
    if (!changed) break;
  }
}

// ptxas schedules wgmma.wait_group freely inside a basic block: a full drain placed after the
// register math that should overlap the last MMAs is hoisted above that math (seen with nvcc
// 13.0 on attention: the softmax then waits for PV). A basic-block boundary stops it, so the
// steady state starts at such a wait: the first event after the body's last MMA issue that waits
// for every group, with register math in between. 0 (the graph's window) when there is none.
long long Expander::choose_origin(const std::map<int, int>& waits) const {
  if (S_ < 2) return 0;
  std::vector<SInst> body = section(1, 0);
  int last_mma = -1;
  for (size_t i = 0; i < body.size(); ++i)
    if (body[i].ev >= 0 && ev_[static_cast<size_t>(body[i].ev)].low.mma)
      last_mma = static_cast<int>(i);
  if (last_mma < 0) return 0;
  bool math = false;
  for (size_t i = static_cast<size_t>(last_mma) + 1; i < body.size(); ++i) {
    const Event& e = ev_[static_cast<size_t>(body[i].ev)];
    auto w = waits.find(sid(body[i]));
    if (w != waits.end() && w->second == 0) return math ? e.pos : 0;
    if (e.kind == Event::Kind::Op && !e.low.body.empty()) math = true;
  }
  return 0;
}

}  // namespace sched2cu::emit::detail
