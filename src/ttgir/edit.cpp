// In-place edits of a parsed function (sched2cu/ttgir/edit.h): appending ops and values,
// removing dead code and dead loop-carried values, renumbering. Must never change what a live op
// computes, and must leave every invariant of ir.h true after renumber().
#include "sched2cu/ttgir/edit.h"

#include <algorithm>
#include <functional>
#include <set>

namespace sched2cu::ttgir {
namespace {

Block& block_of(Function& f, const Op& o) {
  Region& r = o.parent_op == kNoId ? f.body
                                   : f.ops.at(static_cast<size_t>(o.parent_op))
                                         .regions.at(static_cast<size_t>(o.parent_region));
  return r.blocks.at(static_cast<size_t>(o.parent_block));
}

// Ops that only compute their results: removable when nothing reads them.
bool pure(const std::string& n) {
  static const std::set<std::string> ops = {"tt.splat",           "tt.broadcast",
                                            "tt.expand_dims",     "tt.make_range",
                                            "tt.addptr",          "tt.load",
                                            "ttg.convert_layout", "ttg.local_alloc",
                                            "tt.reshape",         "tt.trans",
                                            "tt.get_program_id",  "tt.get_num_programs",
                                            "tt.descriptor_load", "tt.make_tensor_descriptor",
                                            "ttg.memdesc_trans"};
  return n.rfind("arith.", 0) == 0 || n.rfind("math.", 0) == 0 || ops.count(n) != 0;
}

void recompute_users(Function& f) {
  for (auto& v : f.values) v.users.clear();
  for (const Op& o : f.ops)
    for (ValueId v : o.operands) {
      auto& users = f.values[static_cast<size_t>(v)].users;
      if (users.empty() || users.back() != o.id) users.push_back(o.id);
    }
}

// One pass: erases dead pure ops and dead iter_args from their blocks; true when any was.
bool sweep(Function& f) {
  recompute_users(f);
  bool changed = false;
  for (Op& o : f.ops) {
    if (o.name != "scf.for" || o.regions.size() != 1) continue;
    Block& body = o.regions[0].blocks.at(0);
    if (body.ops.empty()) continue;
    Op& y = f.ops.at(static_cast<size_t>(body.ops.back()));
    if (y.name != "scf.yield") continue;
    for (size_t i = body.args.size(); i-- > 1;) {
      const size_t k = i - 1;  // iter_arg k: operand 3 + k, result k, yielded k
      const ValueId arg = body.args[i], res = o.results.at(k), next = y.operands.at(k);
      if (!f.values[static_cast<size_t>(res)].users.empty()) continue;
      // The yielded value may read the iter_arg (its own update); nothing else may.
      bool dead = true;
      for (OpId u : f.values[static_cast<size_t>(arg)].users) {
        const Op& uo = f.ops[static_cast<size_t>(u)];
        const bool own_update = !uo.results.empty() && uo.results[0] == next &&
                                f.values[static_cast<size_t>(next)].users.size() == 1;
        dead &= own_update || u == y.id;
      }
      if (!dead) continue;
      o.operands.erase(o.operands.begin() + 3 + static_cast<std::ptrdiff_t>(k));
      o.results.erase(o.results.begin() + static_cast<std::ptrdiff_t>(k));
      body.args.erase(body.args.begin() + static_cast<std::ptrdiff_t>(i));
      y.operands.erase(y.operands.begin() + static_cast<std::ptrdiff_t>(k));
      if (!o.operand_segments.empty()) o.operand_segments.assign(o.operands.size(), 1);
      if (!y.operand_segments.empty()) y.operand_segments.assign(y.operands.size(), 1);
      changed = true;
      recompute_users(f);
    }
  }
  for (Op& o : f.ops) {
    if (!pure(o.name) || o.id == kNoId) continue;
    bool used = false;
    for (ValueId r : o.results) used |= !f.values[static_cast<size_t>(r)].users.empty();
    if (used) continue;
    auto& ops = block_of(f, o).ops;
    const auto it = std::find(ops.begin(), ops.end(), o.id);
    if (it == ops.end()) continue;
    ops.erase(it);
    for (ValueId v : o.operands) {
      auto& us = f.values[static_cast<size_t>(v)].users;
      us.erase(std::remove(us.begin(), us.end(), o.id), us.end());
    }
    o.operands.clear();
    changed = true;
  }
  return changed;
}

}  // namespace

ValueId add_value(Function& f, const std::string& name, Type t) {
  Value v;
  v.id = static_cast<ValueId>(f.values.size());
  v.name = name;
  v.type = std::move(t);
  f.values.push_back(std::move(v));
  return static_cast<ValueId>(f.values.size() - 1);
}

OpId insert_before(Function& f, OpId before, Op o, const std::string& name, const Type& t) {
  const Op& at = f.ops.at(static_cast<size_t>(before));
  o.id = static_cast<OpId>(f.ops.size());
  o.parent_op = at.parent_op;
  o.parent_region = at.parent_region;
  o.parent_block = at.parent_block;
  if (o.operand_segments.empty()) o.operand_segments.assign(o.operands.size(), 1);
  if (t.kind != Type::Kind::None) {
    const ValueId v = add_value(f, name, t);
    f.values[static_cast<size_t>(v)].def_op = o.id;
    f.values[static_cast<size_t>(v)].result_index = 0;
    f.values[static_cast<size_t>(v)].loc = o.loc;
    o.results = {v};
  }
  const OpId id = o.id;
  auto& ops = block_of(f, at).ops;
  ops.insert(std::find(ops.begin(), ops.end(), before), id);
  f.ops.push_back(std::move(o));
  return id;
}

void remove_dead_code(Function& f) {
  while (sweep(f)) {
  }
  renumber(f);
}

void renumber(Function& f) {
  std::vector<OpId> op_map(f.ops.size(), kNoId);
  std::vector<ValueId> val_map(f.values.size(), kNoId);
  std::vector<OpId> order;
  std::vector<ValueId> vorder;
  for (ValueId a : f.args) {
    val_map[static_cast<size_t>(a)] = static_cast<ValueId>(vorder.size());
    vorder.push_back(a);
  }
  std::function<void(const Region&)> walk = [&](const Region& r) {
    for (const Block& b : r.blocks)
      for (OpId id : b.ops) {
        op_map[static_cast<size_t>(id)] = static_cast<OpId>(order.size());
        order.push_back(id);
        const Op& o = f.ops[static_cast<size_t>(id)];
        for (ValueId v : o.results) {
          val_map[static_cast<size_t>(v)] = static_cast<ValueId>(vorder.size());
          vorder.push_back(v);
        }
        for (const Region& sub : o.regions) {
          for (const Block& sb : sub.blocks)
            for (ValueId a : sb.args) {
              val_map[static_cast<size_t>(a)] = static_cast<ValueId>(vorder.size());
              vorder.push_back(a);
            }
          walk(sub);
        }
      }
  };
  walk(f.body);
  const auto V = [&](ValueId v) {
    const ValueId n = val_map.at(static_cast<size_t>(v));
    if (n == kNoId) throw Error("internal: an edit left a use of a removed value");
    return n;
  };
  const auto O = [&](OpId o) { return o == kNoId ? kNoId : op_map.at(static_cast<size_t>(o)); };
  std::function<void(Region&)> remap_region = [&](Region& r) {
    for (Block& b : r.blocks) {
      for (ValueId& a : b.args) a = V(a);
      for (OpId& id : b.ops) id = O(id);
    }
  };
  std::vector<Op> ops;
  ops.reserve(order.size());
  for (OpId old : order) {
    Op o = f.ops[static_cast<size_t>(old)];
    o.id = O(old);
    for (ValueId& v : o.operands) v = V(v);
    for (ValueId& v : o.results) v = V(v);
    o.parent_op = O(o.parent_op);
    for (Region& r : o.regions) remap_region(r);
    ops.push_back(std::move(o));
  }
  std::vector<Value> values;
  values.reserve(vorder.size());
  for (ValueId old : vorder) {
    Value v = f.values[static_cast<size_t>(old)];
    v.id = V(old);
    v.def_op = O(v.def_op);
    v.owner_op = O(v.owner_op);
    values.push_back(std::move(v));
  }
  // Block arguments: their position within the block (an erased iter_arg shifts the rest).
  for (const Op& o : ops)
    for (size_t r = 0; r < o.regions.size(); ++r)
      for (size_t b = 0; b < o.regions[r].blocks.size(); ++b) {
        const auto& args = o.regions[r].blocks[b].args;
        for (size_t i = 0; i < args.size(); ++i) {
          Value& v = values[static_cast<size_t>(args[i])];
          v.owner_op = o.id;
          v.owner_region = static_cast<int>(r);
          v.owner_block = static_cast<int>(b);
          v.arg_index = static_cast<int>(i);
        }
      }
  for (const Op& o : ops)
    for (size_t i = 0; i < o.results.size(); ++i)
      values[static_cast<size_t>(o.results[i])].result_index = static_cast<int>(i);
  remap_region(f.body);
  for (ValueId& a : f.args) a = V(a);
  f.ops = std::move(ops);
  f.values = std::move(values);
  recompute_users(f);
}

}  // namespace sched2cu::ttgir
