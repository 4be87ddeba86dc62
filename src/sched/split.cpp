// Split loops (split.h; docs/scheduler.md, "Split loops"). A loop may be split over the CTAs of a
// cluster when running its iterations in contiguous parts and adding the parts' results gives
// the loop's results: every carried value is an f32 sum that starts at zero, nothing in the loop
// writes memory, and no loop that fills rings runs after it in its CTA (the CTAs other than the
// first write their share of the sum into the split loop's drained rings).
#include "sched2cu/sched/split.h"

#include <set>

namespace sched2cu::sched {
namespace {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;

bool zero_constant(const Function& f, ttgir::ValueId v) {
  const Op* d = f.def_op(v);
  if (d == nullptr) return false;
  if (d->name == "tt.splat" && !d->operands.empty()) return zero_constant(f, d->operands[0]);
  if (d->name != "arith.constant") return false;
  const ttgir::Attribute* a = d->attr("value");
  if (a == nullptr) return false;
  const ttgir::Attribute* e = a;
  if (a->kind == ttgir::Attribute::Kind::Dense) {
    if (a->elems.size() != 1) return false;
    e = &a->elems[0];
  }
  if (e->kind == ttgir::Attribute::Kind::Integer) return e->ival == 0;
  // +0.0 only: a -0.0 start changes the sign of an exact zero sum.
  return e->kind == ttgir::Attribute::Kind::Float && !e->text.empty() && e->text[0] != '-' &&
         e->as_double() == 0.0;
}

// Ops that write memory (or a shared-memory tile another iteration reads).
bool writes_memory(const std::string& n) {
  static const std::set<std::string> w = {
      "tt.store",      "tt.descriptor_store", "tt.descriptor_reduce",
      "tt.atomic_rmw", "tt.atomic_cas",       "ttg.local_store"};
  return w.count(n) != 0;
}

// Why loop `li` may not be split, or "" when it may.
std::string refusal(const Function& f, const sgraph::ScheduleGraph& g, int li) {
  const sgraph::Loop& L = g.loops.at(static_cast<size_t>(li));
  if (L.parent_loop >= 0 && g.loops.at(static_cast<size_t>(L.parent_loop)).parent_loop >= 0)
    return "it is nested two loops deep";
  for (const auto& n : L.nodes)
    if (n.child_loop >= 0) return "it holds a loop";
  const ttgir::ForLoop fl = f.for_loop(L.op);
  if (fl.iter_args.empty()) return "it carries no value";
  for (OpId o : fl.body)
    if (writes_memory(f.op(o).name))
      return "op " + std::to_string(o) + " " + f.op(o).name + " writes memory in every iteration";
  for (size_t k = 0; k < fl.iter_args.size(); ++k) {
    const std::string which = "iter_arg " + std::to_string(k);
    const ttgir::Type& t = f.value(fl.iter_args[k]).type;
    if (t.element_type().name != "f32") return which + " is not f32";
    if (!zero_constant(f, fl.inits[k])) return which + " does not start at zero";
    const Op* up = f.def_op(fl.yielded[k]);
    const auto& users = f.value(fl.iter_args[k]).users;
    if (up == nullptr || users.size() != 1 || users[0] != up->id)
      return which + " is read by more than its own update";
    const bool dot = (up->name == "ttng.warp_group_dot" || up->name == "tt.dot") &&
                     up->operands.size() >= 3 && up->operands[2] == fl.iter_args[k] &&
                     up->operands[0] != fl.iter_args[k] && up->operands[1] != fl.iter_args[k];
    const bool add = up->name == "arith.addf" && up->operands.size() == 2 &&
                     (up->operands[0] == fl.iter_args[k]) != (up->operands[1] == fl.iter_args[k]);
    if (!dot && !add) return which + " is not a sum (" + up->name + ")";
    for (const auto& n : L.nodes)
      if (n.op == up->id && n.role >= 0 &&
          g.launch.roles.at(static_cast<size_t>(n.role)).kind != "consumer")
        return which + " is summed by a producer role";
  }
  // Another tensor-core loop would run whole in every CTA of the cluster.
  for (size_t o = 0; o < g.loops.size(); ++o) {
    if (static_cast<int>(o) == li) continue;
    for (const auto& n : g.loops[o].nodes)
      if (n.pipeline == "TC")
        return "loop " + std::to_string(o) + " has tensor-core work every CTA would repeat";
  }
  // Loops after it in program order that fill rings would write the bytes its share is summed
  // through (a later phase's rings share the pool).
  for (size_t o = 0; o < g.loops.size(); ++o) {
    if (g.loops[o].op <= L.op || g.loops[o].rings.empty()) continue;
    if (static_cast<int>(o) == L.parent_loop) continue;
    return "loop " + std::to_string(o) + " fills rings after it";
  }
  bool rings = false;
  for (const auto& b : g.buffers) rings |= b.loop == li;
  if (!rings) return "it has no ring to sum through";
  return "";
}

}  // namespace

void plan_split(const Function& f, sgraph::ScheduleGraph& g, std::vector<std::string>& notes) {
  for (size_t li = 0; li < g.loops.size(); ++li) {
    bool tc = false;
    for (const auto& n : g.loops[li].nodes) tc |= n.pipeline == "TC";
    if (!tc) continue;
    const std::string why = refusal(f, g, static_cast<int>(li));
    if (!why.empty()) {
      notes.push_back("loop " + std::to_string(li) + ": not split over a cluster (" + why + ")");
      continue;
    }
    g.loops[li].split = kMaxSplit;
    notes.push_back("loop " + std::to_string(li) + ": may be split over a cluster of up to " +
                    std::to_string(kMaxSplit) +
                    " CTAs (f32 sums from zero, no memory writes): the launcher splits it 2 ways "
                    "where the grid leaves half the SMs idle and each CTA keeps at least 32 "
                    "iterations (kSplitMinShare of sched2cu_host_split, runtime/sched2cu/abi.h)");
    return;
  }
}

}  // namespace sched2cu::sched
