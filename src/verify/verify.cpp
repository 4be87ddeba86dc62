// verify(): the trip-count scenarios a kernel's protocol is proven for, and the report. The
// scenarios come from the graph's loops (their nesting, ring depths and stage counts); every
// role reads the same trip counts, so what is proven is the protocol for each of them, whatever
// kernel arguments produce it.
#include "sched2cu/verify/verify.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

#include "model.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::verify {
namespace {

// The iteration count that wraps every ring at least twice past the pipeline's fill and is a
// multiple of no ring depth, so that the last slot used is never the last slot of a ring.
long long long_trip(const sgraph::ScheduleGraph& g) {
  int depth = 1, stages = 1;
  std::set<int> depths;
  for (const auto& l : g.loops) {
    stages = std::max(stages, l.stages);
    for (const auto& r : l.rings) {
      depth = std::max(depth, r.depth);
      if (r.depth > 1) depths.insert(r.depth);
    }
  }
  long long n = 2LL * depth + stages;
  for (;; ++n) {
    bool ok = true;
    for (int d : depths) ok &= n % d != 0;
    if (ok) return n;
  }
}

std::vector<Scenario> scenarios(const sgraph::ScheduleGraph& g) {
  const long long N = long_trip(g);
  int stages = 1;
  for (const auto& l : g.loops) stages = std::max(stages, l.stages);
  const int L = static_cast<int>(g.loops.size());
  auto outer = [&](int l) { return g.loops[static_cast<size_t>(l)].parent_loop < 0; };
  bool nested = false;
  for (int l = 0; l < L; ++l) nested |= !outer(l);
  // An outer loop of a nest runs a few times: its inner loops' ring counters keep counting
  // across its iterations, so ring wraps come from the inner trip counts.
  const long long N_outer = nested ? 3 : N;
  auto uniform = [&](long long n) {
    Scenario s;
    for (int l = 0; l < L; ++l) {
      bool parent = false;
      for (const auto& m : g.loops) parent |= m.parent_loop == l;
      s.trips[l] = {parent ? std::min(n, N_outer) : n};
    }
    return s;
  };
  std::vector<Scenario> out;
  for (long long n = 0; n <= stages + 1; ++n) out.push_back(uniform(n));
  out.push_back(uniform(N));
  for (int l = 0; l < L; ++l) {
    if (!outer(l)) {
      // Uneven runs of a nested loop: the slot and phase its counter carries across runs. Each
      // rotation puts the empty run at another outer iteration, so that a pipelined outer loop's
      // prologue, steady state and drain each meet it.
      const std::vector<long long> runs = {0, N, 1, N + 1};
      for (size_t rot = 0; rot < runs.size(); ++rot) {
        Scenario s = uniform(N);
        auto& t = s.trips[l];
        t.clear();
        for (size_t k = 0; k < runs.size(); ++k) t.push_back(runs[(k + rot) % runs.size()]);
        for (int p = g.loops[static_cast<size_t>(l)].parent_loop; p >= 0;
             p = g.loops[static_cast<size_t>(p)].parent_loop)
          s.trips[p] = {static_cast<long long>(runs.size())};
        out.push_back(s);
      }
    }
  }
  int tops = 0;
  for (int l = 0; l < L; ++l) tops += outer(l) ? 1 : 0;
  if (tops > 1)
    for (int l = 0; l < L; ++l)
      if (outer(l))
        for (long long n : {0LL, 1LL}) {
          // One phase of a multiphase kernel short: the next one's join and counters.
          Scenario s = uniform(N);
          s.trips[l] = {n};
          out.push_back(s);
        }
  // A split loop (docs/emitter.md, "Split loops"): every scenario again as the first CTA of a
  // cluster of two, which passes the sum through its drained rings.
  bool split = false;
  for (const auto& l : g.loops) split |= l.split > 1;
  if (split) {
    const size_t n = out.size();
    for (size_t i = 0; i < n; ++i) {
      Scenario s = out[i];
      s.cluster = 2;
      out.push_back(s);
    }
  }
  return out;
}

// "op 16 ..." in a statement note -> " (kernel.py:17)".
std::string source_of(const std::string& note, const ttgir::Function& f) {
  static const std::regex op_re(R"(op (\d+) )");
  std::smatch m;
  if (!std::regex_search(note, m, op_re)) return "";
  const int id = std::stoi(m[1]);
  if (id < 0 || id >= static_cast<int>(f.ops.size())) return "";
  const auto& loc = f.ops[static_cast<size_t>(id)].loc.src;
  return loc.known() ? " (" + loc.str() + ")" : "";
}

}  // namespace

Report verify(const emit::Program& p, const sgraph::ScheduleGraph& g, const Options& o) {
  Report r;
  const ttgir::Function* f = nullptr;
  for (const auto& fn : g.ir.functions)
    if (fn.name == g.kernel.name) f = &fn;
  for (const Scenario& sc : scenarios(g)) {
    Tables tab;
    std::vector<Process> procs =
        trace(p.body, p.warpgroups, p.int_params, p.buffer_offset, sc, tab);
    for (auto& pr : procs)
      for (auto& e : pr.events)
        if (e.stmt != nullptr && f != nullptr) e.what += source_of(e.stmt->note, *f);
    if (o.dump_events) {
      std::fprintf(stderr, "scenario %s\n", sc.str().c_str());
      for (const auto& pr : procs)
        for (const auto& e : pr.events)
          std::fprintf(stderr, "  wg%d %s\n", pr.warpgroup, e.what.c_str());
    }
    const Outcome out = explore(procs, tab, o.max_states);
    ++r.scenarios;
    r.states += out.states;
    if (!out.ok) {
      r.ok = false;
      r.failure = "scenario " + sc.str() + ":\n  " + out.error;
      return r;
    }
  }
  return r;
}

}  // namespace sched2cu::verify
