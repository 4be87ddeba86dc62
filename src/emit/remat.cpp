// Index-math rematerialization of the modulo expander (docs/emitter.md, "Index math"): integer,
// mask and pointer tensors computed only from loop-invariant values and the induction variable
// (offsets, `offs < n` masks, `base + offs` pointers, and the scalar row offsets and row pointers
// they start from) are recomputed right before each op that reads them, for that op's
// iteration, instead of being carried across pipeline stages. A load issued stages before the
// store that shares its mask would otherwise carry the mask and the pointers through every stage
// in between (registers and copies per stage). Never applied to a value with synchronization in
// its lowering, a loop-carried value, or float data.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "expander.h"

namespace sched2cu::emit::detail {

namespace {

bool pure_index_op(const std::string& n) {
  static const std::set<std::string> ops = {
      "arith.addi",   "arith.subi",     "arith.muli",     "arith.andi",        "arith.ori",
      "arith.xori",   "arith.cmpi",     "arith.select",   "arith.extsi",       "arith.trunci",
      "arith.minsi",  "arith.maxsi",    "tt.addptr",      "tt.make_range",     "tt.splat",
      "tt.broadcast", "tt.expand_dims", "arith.constant", "ttg.convert_layout"};
  return ops.count(n) != 0;
}

bool index_type(const Val& v) {
  if (v.lay != Lay::BTile && v.lay != Lay::BRow && v.lay != Lay::BCol && v.lay != Lay::BRowB &&
      v.lay != Lay::BColB && v.lay != Lay::Splat && v.lay != Lay::Scalar)
    return false;
  return v.cty == "int" || v.cty == "long long" || v.cty == "bool" ||
         (!v.cty.empty() && v.cty.back() == '*');
}

bool plain_code(const std::vector<Stmt>& body) {
  for (const auto& s : body)
    if (s.kind != Stmt::Kind::Code && s.kind != Stmt::Kind::Comment &&
        !(s.kind == Stmt::Kind::Decl && !s.init.empty()))
      return false;
  return true;
}

// A scalar's `const T x = e;` becomes a hoisted `T x;` and the statement `x = e;`, so that every
// op that reads it can recompute it in its own step (two such reads in one step would otherwise
// declare it twice in one scope).
void hoist_decls(Lowered& low) {
  for (auto& s : low.body) {
    if (s.kind != Stmt::Kind::Decl) continue;
    Stmt d = s;
    d.init = {};
    d.is_const = false;
    low.decls.push_back(d);
    s = code(s.var + " = " + s.init + ";", s.note);
  }
}

}  // namespace

std::vector<int> Expander::rematerialize_index_math() {
  std::set<int> yielded(fl_.yielded.begin(), fl_.yielded.end());
  std::set<int> cand;
  for (int id : nodes_) {
    const Node& n = node(id);
    if (n.child_loop >= 0) continue;
    const ttgir::Op& o = c_.op(n.op);
    if (o.results.size() != 1 || !pure_index_op(o.name) || yielded.count(o.results[0])) continue;
    if (!L_.has(o.results[0]) || !index_type(L_.vals.at(o.results[0]))) continue;
    if (!plain_code(lowered_.at(id).body)) continue;
    cand.insert(id);
  }
  // Inputs: values from outside the loop, the induction variable, or other candidates.
  for (bool changed = true; changed;) {
    changed = false;
    for (int id : std::vector<int>(cand.begin(), cand.end())) {
      for (int v : c_.op(node(id).op).operands) {
        if (v == fl_.iv) continue;
        auto it = def_node_.find(v);
        const bool iter_arg =
            std::find(fl_.iter_args.begin(), fl_.iter_args.end(), v) != fl_.iter_args.end();
        if (iter_arg || (it != def_node_.end() && !cand.count(it->second))) {
          cand.erase(id);
          changed = true;
          break;
        }
      }
    }
  }
  // A scalar is recomputed only for the index tensors built from it (a row's pointer tile):
  // scalars read only by other ops (a TMA coordinate) stay where the schedule put them.
  {
    std::set<int> keep;
    for (int id : cand)
      if (L_.vals.at(c_.op(node(id).op).results[0]).lay != Lay::Scalar) keep.insert(id);
    for (bool grown = true; grown;) {
      grown = false;
      for (int id : keep)
        for (int v : c_.op(node(id).op).operands) {
          auto d = def_node_.find(v);
          if (d != def_node_.end() && cand.count(d->second) && keep.insert(d->second).second)
            grown = true;
        }
    }
    cand = keep;
  }
  if (cand.empty()) return {};
  for (int id : cand) hoist_decls(lowered_.at(id));
  // Every other node runs the candidates it reads (transitively) first, in program order.
  std::map<int, std::set<int>> deps;  // candidate -> candidates it needs, itself included
  std::function<const std::set<int>&(int)> need = [&](int id) -> const std::set<int>& {
    auto it = deps.find(id);
    if (it != deps.end()) return it->second;
    std::set<int> s{id};
    for (int v : c_.op(node(id).op).operands) {
      auto d = def_node_.find(v);
      if (d != def_node_.end() && cand.count(d->second)) {
        const auto& sub = need(d->second);
        s.insert(sub.begin(), sub.end());
      }
    }
    return deps[id] = s;
  };
  for (int id : nodes_) {
    if (cand.count(id)) continue;
    std::set<int> pre;
    for (int v : free_values(c_.f, node(id).op)) {
      auto d = def_node_.find(v);
      if (d != def_node_.end() && cand.count(d->second)) {
        const auto& sub = need(d->second);
        pre.insert(sub.begin(), sub.end());
      }
    }
    if (pre.empty()) continue;
    std::vector<int> order(pre.begin(), pre.end());
    std::sort(order.begin(), order.end(), [&](int a, int b) { return node(a).op < node(b).op; });
    std::vector<Stmt> body;
    for (int p : order) {
      const auto& b = lowered_.at(p).body;
      body.insert(body.end(), b.begin(), b.end());
    }
    auto& low = lowered_.at(id);
    body.insert(body.end(), low.body.begin(), low.body.end());
    low.body = std::move(body);
  }
  std::vector<int> out(cand.begin(), cand.end());
  nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), [&](int id) { return cand.count(id); }),
               nodes_.end());
  return out;
}

}  // namespace sched2cu::emit::detail
