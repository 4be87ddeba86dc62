// The per-role modulo expander's events (docs/emitter.md, "Modulo expander"): one Op event per
// node of the role and the ring-protocol events the graph's channels imply (wait for a slot's
// data at its first reader, release it when its last reader completes, wait for a free slot and
// arm it before the first load into it). Only collects and times events; placing them in stages
// and printing the sections is expander.cpp's. Never reorders what the graph ordered.
#include <algorithm>
#include <climits>
#include <map>

#include "expander.h"

namespace sched2cu::emit::detail {

// When a slot's last reader is an MMA group and no later MMA of this role is issued between
// that group and the slot's release, releasing there needs every group drained (wait_group 0),
// which idles the tensor core until the next issue. The release then moves to right after this
// role's next MMA issue, where one group may stay in flight: the slot is held at most one II
// longer, and the pipeline never drains. Returns the release time (cycles of the graph).
long long Expander::release_time(long long last, const std::vector<int>& mma_readers) const {
  if (mma_readers.empty()) return last;
  long long issued = LLONG_MIN;  // the latest issue of a reading group
  for (int m : mma_readers) {
    issued = std::max<long long>(issued, node(m).cycle);
    // A group whose result registers the loop reads (attention's S, a rescaled O) is waited for
    // there anyway; only an accumulator that is just carried makes the release the one drain.
    const ttgir::Op& mo = c_.op(node(m).op);
    for (int u : c_.f.value(mo.results.at(0)).users) {
      const ttgir::Op& uo = c_.op(u);
      if (uo.name != "scf.yield") return last;
      // Carried: the next iteration's readers of the iter_arg, other than the MMA itself.
      const ttgir::ForLoop fl = c_.f.for_loop(uo.parent_op);
      for (size_t k = 0; k < fl.yielded.size(); ++k)
        if (fl.yielded[k] == mo.results[0])
          for (int r : c_.f.value(fl.iter_args[k]).users)
            if (r != mo.id) return last;
    }
  }
  long long next = LLONG_MAX;  // the role's first MMA issue after that group, in any iteration
  for (int id : nodes_) {
    const Node& n = node(id);
    if (n.pipeline != "TC") continue;
    long long t = n.cycle;
    if (t <= issued) t += ((issued - t) / ii_ + 1) * ii_;
    next = std::min(next, t);
  }
  if (next == LLONG_MAX || next <= last) return last;  // a group can stay in flight already
  return next;
}

void Expander::make_events() {
  // Normalize the role's stages (its earliest node is in stage 0 of the role).
  long long tmin = LLONG_MAX;
  for (int id : nodes_) tmin = std::min<long long>(tmin, node(id).cycle);
  ii_ = loop_.ii;
  const long long base = tmin == LLONG_MAX ? 0 : tmin / ii_ * ii_;
  auto rebase = [&](Event& e) { e.t -= base; };
  for (int id : nodes_) {
    Event e;
    e.kind = Event::Kind::Op;
    e.node = id;
    e.t = node(id).cycle;
    e.low = lowered_.at(id);
    rebase(e);
    ev_.push_back(std::move(e));
  }
  // Ring events from the channels (the buffers' readers and fills).
  std::map<int, int> node_of_op;
  for (int id : nodes_) node_of_op[node(id).op] = id;
  for (const auto& ch : loop_.channels) {
    const auto& ring = loop_.rings.at(static_cast<size_t>(ch.ring));
    if (ch.consumer_role == L_.r.id) {
      long long first = LLONG_MAX, last = -1;
      std::vector<int> mma;
      for (int b : ring.buffers)
        for (int u : c_.g.buffers.at(static_cast<size_t>(b)).consumer_ops) {
          auto it = node_of_op.find(u);
          if (it == node_of_op.end()) continue;
          const Node& r = node(it->second);
          first = std::min<long long>(first, r.cycle);
          last = std::max<long long>(last, r.cycle + r.latency);
          if (r.pipeline == "TC") mma.push_back(r.id);
        }
      if (last < 0) continue;
      last = release_time(last, mma);
      Event w;
      w.kind = Event::Kind::WaitFull;
      w.ring = ch.ring;
      w.t = first;
      w.rank = 0;
      rebase(w);
      ev_.push_back(w);
      Event r;
      r.kind = Event::Kind::Release;
      r.ring = ch.ring;
      r.t = last;
      r.rank = 2;
      r.mma_readers = mma;
      rebase(r);
      ev_.push_back(r);
    }
    if (ch.producer_role != L_.r.id) continue;
    // The producer waits for a free slot before its first write into it: registers stored into
    // the slot by the op that makes the buffer (a "store" channel, exchange.cpp: no bytes armed,
    // it commits the slot itself), or a TMA load it arms the slot's bytes for.
    const bool store = ch.mechanism == "store";
    long long first = LLONG_MAX;
    for (int b : ring.buffers) {
      const ttgir::Op& made = c_.op(c_.g.buffers.at(static_cast<size_t>(b)).producer_op);
      const ttgir::Op* w = store || made.name == "tt.descriptor_load" ? &made
                           : made.operands.empty()                    ? nullptr
                                                   : c_.f.def_op(made.operands[0]);
      auto it = w ? node_of_op.find(w->id) : node_of_op.end();
      if (it != node_of_op.end()) first = std::min<long long>(first, node(it->second).cycle);
    }
    if (first == LLONG_MAX) continue;
    Event a;
    a.kind = store ? Event::Kind::WaitEmpty : Event::Kind::WaitEmptyArm;
    a.ring = ch.ring;
    a.t = first;
    a.rank = 0;
    a.bytes = store ? 0 : ch.expect_bytes;
    rebase(a);
    ev_.push_back(a);
  }
  place(0, false);
}

}  // namespace sched2cu::emit::detail
