// Which values a role's share of a scheduled loop reads from outside it (docs/emitter.md, "Modulo
// expander", Nodes): whether the role works in a loop at all, an op's free values, and the inputs
// of the role's own work in a loop nest through the index math it recomputes. Pure queries of the
// graph and the IR; nothing here lowers or places an op.
#include <algorithm>
#include <map>
#include <set>

#include "expander.h"

namespace sched2cu::emit::detail {

bool works_in(const Lower& L, int li) {
  for (const auto& n : L.c.g.loops.at(static_cast<size_t>(li)).nodes) {
    if (n.child_loop >= 0) {
      if (works_in(L, n.child_loop)) return true;
      continue;
    }
    if (n.role == L.r.id && n.pipeline != "NONE") return true;
  }
  return false;
}

std::vector<int> free_values(const ttgir::Function& f, int op) {
  std::vector<int> out;
  std::vector<int> stack{op};
  std::set<int> inside;
  while (!stack.empty()) {
    const ttgir::Op& o = f.op(stack.back());
    stack.pop_back();
    for (int r : o.results) inside.insert(r);
    for (const auto& rg : o.regions)
      for (const auto& b : rg.blocks) {
        for (int a : b.args) inside.insert(a);
        for (int x : b.ops) stack.push_back(x);
      }
    for (int v : o.operands) out.push_back(v);
  }
  std::vector<int> res;
  for (int v : out)
    if (!inside.count(v) && std::find(res.begin(), res.end(), v) == res.end()) res.push_back(v);
  return res;
}

namespace {
// What role L's own work in loop `li` reads (nested loops included): the free values of its
// nodes, through the index math and views it recomputes (NONE-pipeline or scalar nodes of the
// loop, pulled in where read).
void role_reads(const Lower& L, int li, std::vector<int>& out) {
  const sgraph::Loop& loop = L.c.g.loops.at(static_cast<size_t>(li));
  std::map<int, const sgraph::Node*> def;
  for (const auto& n : loop.nodes)
    for (int r : L.c.op(n.op).results) def[r] = &n;
  std::vector<const sgraph::Node*> work;
  std::set<const sgraph::Node*> seen;
  for (const auto& n : loop.nodes) {
    if (n.child_loop >= 0) {
      role_reads(L, n.child_loop, out);
      continue;
    }
    if (n.role == L.r.id && n.pipeline != "NONE" && seen.insert(&n).second) work.push_back(&n);
  }
  const std::vector<int> child_reads(out.begin(), out.end());
  auto visit = [&](int v) {
    auto it = def.find(v);
    if (it == def.end()) {
      out.push_back(v);
      return;
    }
    const sgraph::Node* p = it->second;
    if ((p->pipeline == "NONE" || is_scalar_op(L.c, p->op)) && seen.insert(p).second)
      work.push_back(p);
  };
  for (const int v : child_reads) visit(v);  // nested loops read this loop's index math too
  // An iter_arg the role reads starts at its init, which the role then needs too (a pointer
  // advanced by the loop, first computed by the enclosing loop's index math).
  const ttgir::ForLoop fl = L.c.f.for_loop(loop.op);
  std::set<size_t> inits_read;
  for (bool grew = true; grew;) {
    while (!work.empty()) {
      const sgraph::Node* n = work.back();
      work.pop_back();
      for (int v : free_values(L.c.f, n->op)) visit(v);
    }
    grew = false;
    for (size_t k = 0; k < fl.iter_args.size() && k < fl.inits.size(); ++k)
      if (!inits_read.count(k) && std::find(out.begin(), out.end(), fl.iter_args[k]) != out.end()) {
        inits_read.insert(k);
        visit(fl.inits[k]);
        grew = true;
      }
  }
}
}  // namespace

std::vector<int> role_free_values(const Lower& L, int li) {
  const int op = L.c.g.loops.at(static_cast<size_t>(li)).op;
  const ttgir::Op& o = L.c.op(op);
  std::vector<int> reads(o.operands.begin(),
                         o.operands.begin() + std::min<ptrdiff_t>(3, std::ssize(o.operands)));
  role_reads(L, li, reads);
  const std::vector<int> outside = free_values(L.c.f, op);
  std::vector<int> res;
  for (int v : outside)
    if (std::find(reads.begin(), reads.end(), v) != reads.end()) res.push_back(v);
  return res;
}

}  // namespace sched2cu::emit::detail
