// Split loops (docs/emitter.md, "Split loops"): the code that lets the CTAs of a cluster share
// the iterations of the loop the graph marks (Loop::split), and sums their results into the
// first CTA. Lowers the graph's decision; never decides whether or how far to split (the
// scheduler marks the loop, the launcher picks the cluster size).
#include <string>

#include "lower.h"

namespace sched2cu::emit {

namespace {

// How many CTAs share the split loop in this program: the cluster, unless the loop around it
// runs more than once (split_outer gives the first CTA the whole program then).
Text share(const Ctx& c, int li) {
  const int parent = c.g.loops.at(static_cast<size_t>(li)).parent_loop;
  if (parent < 0) return "split_n";
  return "(T" + S(parent) + " <= 1 ? split_n : 1u)";
}

}  // namespace

Text split_trip(const Ctx& c, int li, const Text& full, const std::string& kb,
                std::vector<Stmt>& out) {
  if (c.split_loop < 0) return full;
  if (li == c.split_loop) {
    out.push_back(named_decl("int", kb,
                             "split_first(" + full + ", split_rank, " + share(c, li) + ")", true,
                             "loop " + S(li) + ": where this CTA's share starts"));
    return "split_count(" + full + ", split_rank, " + share(c, li) + ")";
  }
  if (c.g.loops.at(static_cast<size_t>(c.split_loop)).parent_loop == li)
    return "split_outer(" + full + ", split_rank)";
  return full;
}

Stmt split_sum(const Ctx& c, const sgraph::Role& r, int li, const std::vector<Text>& vals) {
  const int threads = 128 * static_cast<int>(r.warpgroups.size());
  const int bar = r.warpgroups.size() > 1 ? c.bar_role() : c.bar_warpgroup() + r.warpgroups.front();
  Text call = "split_sum<" + S(threads) + ", " + S(c.split_region_bytes) + ">(split_bars, smem + " +
              S(c.split_region) + ", split_rank, " + share(c, li) + ", threadIdx.x - " +
              S(128LL * r.warpgroups.front()) + ", " + S(bar) + ", split_phase";
  for (const Text& v : vals) call += ", " + v;
  // The region for the protocol checker: its bytes from the start of the buffer it begins at.
  Access region;
  region.write = true;
  region.buffer = c.split_region_buffer;
  region.bytes = c.split_region_bytes;
  return cluster_sum(call + ");", share(c, li), bar, threads, {region},
                     "loop " + S(li) + "'s results summed into the cluster's first CTA");
}

void split_head(const Ctx& c, std::vector<Stmt>& head, std::vector<Stmt>& init,
                std::vector<Stmt>& after_sync) {
  if (c.split_loop < 0) return;
  int threads = 0;
  for (const auto& n : c.g.loops.at(static_cast<size_t>(c.split_loop)).nodes)
    if (n.pipeline == "TC" && n.role >= 0)
      threads = 128 * static_cast<int>(c.role(n.role).warpgroups.size());
  head.push_back(named_decl("uint32_t", "split_n", "cluster_nctarank()", true,
                            "CTAs sharing loop " + S(c.split_loop) + " (the launch's cluster)"));
  head.push_back(named_decl("uint32_t", "split_rank", "cluster_ctarank()", true));
  head.push_back(code("SplitBars* const split_bars = reinterpret_cast<SplitBars*>(smem + " +
                          S(c.split_bar_offset) + ");",
                      "loop " + S(c.split_loop) + "'s sum across the cluster"));
  init.push_back(code("split_bars->init(split_n, " + S(threads) + ");"));
  after_sync.push_back(code("if (split_n > 1) cluster_sync();",
                            "peers arrive on these barriers only once every CTA initialized them"));
  after_sync.push_back(named_decl("uint32_t", "split_phase", "0", false,
                                  "rounds of the sum so far (its barriers' parities)"));
}

namespace {

void mark_code(std::vector<Stmt>& body) {
  for (Stmt& x : body) {
    x.global_write |= x.kind == Stmt::Kind::Code;
    mark_code(x.body);
    mark_code(x.else_body);
  }
}

}  // namespace

void split_guard_writes(std::vector<Stmt>& body) {
  for (Stmt& s : body) {
    if (s.global_write) {
      s.guard = s.guard.empty() ? Text("split_rank == 0") : "split_rank == 0 && (" + s.guard + ")";
      continue;
    }
    if (s.kind == Stmt::Kind::TmaStore) {
      // The copies and their bulk-group commit: a CTA that issues none waits for none.
      mark_code(s.body);
    }
    split_guard_writes(s.body);
    split_guard_writes(s.else_body);
  }
}

}  // namespace sched2cu::emit
