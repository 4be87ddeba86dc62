// Ring depth and the SMEM budget cut (see the header for the rule).
#include "sched2cu/sched/buffers.h"

#include <algorithm>
#include <map>

namespace sched2cu::sched {

int64_t ring_depth_for(int64_t span, int64_t ii) { return std::max<int64_t>(1, span / ii + 1); }

std::vector<RingDepth> ring_depths(const ddg::Ddg& g, const Schedule& s, bool use_tail,
                                   int max_depth) {
  std::vector<RingDepth> out;
  for (size_t i = 0; i < g.rings.size(); ++i) {
    const auto& q = g.rings[i];
    RingDepth r;
    r.req = static_cast<int>(i);
    r.live_start = s.cycle[q.producer];
    r.live_end = r.live_start;
    for (int c : q.consumers) r.live_end = std::max(r.live_end, s.cycle[c] + g.nodes[c].latency);
    const auto& p = g.nodes[q.producer];
    r.live_end_tail = r.live_end + (p.latency_tail - p.latency);
    r.nominal = static_cast<int>(ring_depth_for(r.live_end - r.live_start, s.ii));
    r.tail = static_cast<int>(ring_depth_for(r.live_end_tail - r.live_start, s.ii));
    r.depth = std::min(std::max(r.nominal, use_tail ? r.tail : r.nominal),
                       std::max(max_depth, r.nominal));
    out.push_back(r);
  }
  // Rings read by the same consumer advance together: one shared depth (the max).
  std::map<int, int> group_max;
  for (auto& r : out)
    if (g.rings[r.req].group >= 0)
      group_max[g.rings[r.req].group] = std::max(group_max[g.rings[r.req].group], r.depth);
  for (auto& r : out)
    if (g.rings[r.req].group >= 0) r.depth = group_max[g.rings[r.req].group];
  return out;
}

int64_t staging_box_cols(const std::vector<int64_t>& shape, int64_t elem_bytes) {
  if (shape.size() != 2 || elem_bytes <= 0 || elem_bytes > 128) return 0;
  const int64_t box = 128 / elem_bytes;
  return shape[1] > box && shape[1] % box == 0 ? box : 0;
}

int64_t slot_bytes(const ddg::Ddg& g, const RingDepth& r) {
  const auto& q = g.rings[r.req];
  if (r.box_cols == 0) return q.bytes;
  return q.bytes / q.shape.at(1) * r.box_cols;
}

bool narrow_store_staging(const ddg::Ddg& g, std::vector<RingDepth>& r) {
  bool any = false;
  for (auto& x : r) {
    const auto& q = g.rings[x.req];
    if (g.nodes[q.producer].op_class != "tma_store" || q.shape.size() != 2) continue;
    const int64_t elems = q.shape[0] * q.shape[1];
    const int64_t cols = elems > 0 ? staging_box_cols(q.shape, q.bytes / elems) : 0;
    if (cols == 0) continue;
    // Two slots: the warpgroup converts box j + 1 while the TMA engine reads box j.
    x.box_cols = cols;
    x.depth = 2;
    any = true;
  }
  return any;
}

int64_t ring_bytes(const ddg::Ddg& g, const std::vector<RingDepth>& r, int64_t mbarrier_bytes) {
  int64_t total = 0;
  std::map<int, int> group_depth;
  int solo = 0;
  for (const auto& x : r) {
    total += slot_bytes(g, x) * x.depth;
    int grp = g.rings[x.req].group;
    if (grp >= 0)
      group_depth[grp] = std::max(group_depth[grp], x.depth);
    else
      solo += x.depth;
  }
  int slots = solo;
  for (const auto& [grp, d] : group_depth) slots += d;
  return total + 2 * mbarrier_bytes * slots;
}

int64_t min_ring_bytes(const ddg::Ddg& g, int64_t mbarrier_bytes) {
  std::vector<RingDepth> r(g.rings.size());
  for (size_t i = 0; i < r.size(); ++i) r[i].req = static_cast<int>(i);
  int64_t least = ring_bytes(g, r, mbarrier_bytes);
  if (narrow_store_staging(g, r)) least = std::min(least, ring_bytes(g, r, mbarrier_bytes));
  return least;
}

bool fit_budget(const ddg::Ddg& g, std::vector<RingDepth>& r, int64_t avail,
                int64_t mbarrier_bytes) {
  auto key = [&](const RingDepth& x) {
    return g.rings[x.req].group >= 0 ? g.rings[x.req].group : -1 - x.req;
  };
  auto group_bytes = [&](int k) {
    int64_t b = 0;
    for (const auto& x : r)
      if (key(x) == k) b += g.rings[x.req].bytes;
    return b;
  };
  auto shortfall = [&](int k) {  // slots the group already lacks against its tail depth
    int s = 0;
    for (const auto& x : r)
      if (key(x) == k) s = std::max(s, x.tail - x.depth);
    return s;
  };
  auto cut = [&](int floor_of_nominal, int min_depth) {
    // One step on the group with the largest slot bytes among those allowed to shrink. Among
    // equal slot bytes, the one that lacks the fewest slots against its tail depth: otherwise
    // the lower id took every cut (case3 with calibrated tails: K 1 / V 5 instead of K 2 / V 4),
    // leaving one ring with no cover at all for a loaded-latency load.
    int best = 0, best_short = 0;
    bool found = false;
    int64_t best_bytes = -1;
    for (const auto& x : r) {
      int lim = std::max(min_depth, floor_of_nominal ? x.nominal : 1);
      if (x.depth <= lim || x.box_cols > 0) continue;  // a subtile ring keeps its two slots
      int k = key(x);
      int64_t b = group_bytes(k);
      int sh = shortfall(k);
      if (b > best_bytes ||
          (b == best_bytes && (sh < best_short || (sh == best_short && k < best))))
        best = k, best_bytes = b, best_short = sh, found = true;
    }
    if (!found) return false;
    for (auto& x : r)
      if (key(x) == best) --x.depth;
    return true;
  };
  while (ring_bytes(g, r, mbarrier_bytes) > avail)
    if (!cut(1, 1) && !cut(0, 2) && !cut(0, 1)) return false;
  return true;
}

int64_t ii_for_depths(const std::vector<RingDepth>& r, int64_t ii) {
  int64_t out = ii;
  for (const auto& x : r) {
    int64_t span = x.live_end - x.live_start;
    const int depth = x.box_cols > 0 ? 1 : x.depth;  // subtile slots hold boxes, not iterations
    // floor(span / II) + 1 <= depth  <=>  II >= floor(span / depth) + 1
    if (ring_depth_for(span, out) > depth) out = std::max(out, span / depth + 1);
  }
  return out;
}

}  // namespace sched2cu::sched
