// Op coverage of the emitter: which ops of a kernel the op table cannot lower (every one, with
// its TTGIR and Python lines, so that `emit` reports them all at once and `schedule` can warn
// before a graph is written for a kernel emit would refuse), and the Markdown table of the ops
// the table lowers (docs/supported_ops.md is generated from it, so it cannot drift). It never
// decides how an op is lowered: that is the op table's (optable.cpp).
#include <map>
#include <set>

#include "lower.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/emit/emit.h"

namespace sched2cu::emit {

namespace {

// Ops lowered structurally, not through the table: loops (the expander), the function itself,
// and the bodies of reduction and scan combine regions (inlined by the tt.reduce and tt.scan
// lowerings).
bool structural(const ttgir::Function& f, const ttgir::Op& o) {
  if (o.name == "scf.for" || o.name == "tt.func" || o.name == "tt.reduce.return" ||
      o.name == "tt.scan.return")
    return true;
  for (int p = o.parent_op; p != ttgir::kNoId; p = f.op(p).parent_op)
    if (f.op(p).name == "tt.reduce" || f.op(p).name == "tt.scan") return true;
  return false;
}

}  // namespace

std::vector<UnsupportedOp> unsupported_ops(const ttgir::Module& m, const std::string& kernel) {
  const ttgir::Function& f = m.function(kernel);
  const auto& table = op_table();
  std::vector<UnsupportedOp> out;
  for (const auto& o : f.ops) {
    if (structural(f, o) || table.count(o.name) != 0) continue;
    UnsupportedOp u;
    u.where = o.loc.ir.known() ? o.loc.ir.str() : std::string("(no location)");
    u.what = "op " + std::to_string(o.id) + " '" + o.name + "'" +
             (o.loc.src.known() ? " (from " + o.loc.src.str() + ")" : "");
    out.push_back(std::move(u));
  }
  return out;
}

namespace {

// A graph's IR is read from JSON, so an op can carry fewer operands than its kind takes (found by
// fuzz_graph: lowerings read operand i unchecked). Ops inside combine regions too: the
// reductions inline them.
void check_operand_counts(const ttgir::Function& f) {
  for (const auto& o : f.ops) {
    auto [lo, hi] = operand_range(o.name);
    const int n = static_cast<int>(o.operands.size());
    // A descriptor access takes one index per dimension of its descriptor's block.
    if (ttgir::is_descriptor_store(o.name) || o.name == "tt.descriptor_load") {
      const ttgir::Type* d = n >= 1 ? &f.value(o.operands[0]).type : nullptr;
      if (d != nullptr && d->kind == ttgir::Type::Kind::TensorDesc && !d->elem.empty())
        lo = hi =
            (o.name == "tt.descriptor_load" ? 1 : 2) + static_cast<int>(d->elem[0].shape.size());
    }
    if (lo < 0 || (n >= lo && (hi < 0 || n <= hi))) continue;
    const std::string takes = lo == hi ? std::to_string(lo)
                              : hi < 0 ? std::to_string(lo) + " or more"
                                       : std::to_string(lo) + " to " + std::to_string(hi);
    throw Error((o.loc.ir.known() ? o.loc.ir.str() : std::string("(no location)")) +
                ": error: emit: op " + std::to_string(o.id) + " '" + o.name + "'" +
                (o.loc.src.known() ? " (from " + o.loc.src.str() + ")" : "") + " has " +
                std::to_string(n) + " operand(s); " + o.name + " takes " + takes);
  }
}

}  // namespace

void check_coverage(const ttgir::Module& m, const std::string& kernel) {
  const auto missing = unsupported_ops(m, kernel);
  if (missing.empty()) return check_operand_counts(m.function(kernel));
  std::string msg = missing.front().where + ": error: emit: " + missing.front().what +
                    ": no lowering for this op (not in the emitter's op table; " +
                    "docs/supported_ops.md lists the ops it lowers)";
  if (missing.size() > 1) {
    msg += "; " + std::to_string(missing.size() - 1) + " more op(s) without a lowering:";
    for (size_t i = 1; i < missing.size(); ++i)
      msg += "\n" + missing[i].where + ": error: emit: " + missing[i].what;
  }
  throw Error(msg);
}

std::string supported_ops_markdown() {
  // Group the table's ops by the lowering that handles them, in a fixed order.
  struct Group {
    const char* title;
    std::vector<std::string> ops;
  };
  std::vector<Group> groups = {{"Elementwise float math (tiles, vectors, scalars)", {}},
                               {"Integer and index math, comparisons, selects, casts", {}},
                               {"Memory: descriptors, TMA, pointer loads, stores and atomics", {}},
                               {"Layouts and views", {}},
                               {"Tensor core", {}},
                               {"Control", {}}};
  const std::set<std::string> mem = {"tt.make_tensor_descriptor",
                                     "tt.descriptor_load",
                                     "tt.descriptor_store",
                                     "tt.descriptor_reduce",
                                     "ttg.local_alloc",
                                     "tt.load",
                                     "tt.store",
                                     "tt.atomic_rmw"};
  const std::set<std::string> views = {"tt.splat",           "tt.expand_dims",    "tt.broadcast",
                                       "ttg.convert_layout", "ttg.memdesc_trans", "tt.trans",
                                       "tt.make_range",      "arith.constant",    "arith.truncf",
                                       "arith.extf",         "tt.reduce",         "tt.scan",
                                       "tt.reshape",         "tt.split"};
  for (const auto& [name, fn] : op_table()) {
    size_t g = 1;
    if (is_elementwise(name) || name == "tt.extern_elementwise")  // libdevice's f32 functions
      g = 0;
    else if (mem.count(name))
      g = 2;
    else if (views.count(name))
      g = 3;
    else if (name == "ttng.warp_group_dot")
      g = 4;
    else if (name == "scf.yield" || name == "tt.return")
      g = 5;
    groups[g].ops.push_back(name);
  }
  std::string o =
      "# Ops the emitter lowers\n\n"
      "Generated from the emitter's op table (`src/emit/optable.cpp`) by the test\n"
      "`SupportedOps.DocIsCurrent`; regenerate with `SCHED2CU_UPDATE_GOLDEN=1` and the emit\n"
      "tests. `scf.for` (the modulo expander), `tt.func` and the combine regions of `tt.reduce`\n"
      "and `tt.scan` are lowered structurally. An op listed here can still be refused for a\n"
      "layout, type or shape its lowering does not handle (docs/emitter.md); an op not listed\n"
      "is refused by `emit` (every such op, with its TTGIR and Python lines) and named in a\n"
      "warning by `schedule`.\n";
  for (const auto& g : groups) {
    if (g.ops.empty()) continue;
    o += "\n## " + std::string(g.title) + "\n\n";
    for (const auto& n : g.ops) o += "- `" + n + "`\n";
  }
  return o;
}

}  // namespace sched2cu::emit
