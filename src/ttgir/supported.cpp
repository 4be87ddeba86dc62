// The set of TTGIR ops the later stages (DDG, scheduler, emitter) accept, and the check that a
// module stays inside it. Must never accept an op nobody lowers: adding a name here is a promise
// that sched2cu_ddg and sched2cu_emit handle it (docs/ttgir.md lists them).
#include <algorithm>

#include "layouts.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir {

const std::vector<std::string>& supported_ops() {
  // Ops of the three dumped kernels (case1, case3, case6), plus the integer / float / control
  // ops the rest of the corpus (persistent tiles, masks, fp8 scales, FA backward) needs.
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> v = {
        // arith
        "arith.addf", "arith.addi", "arith.andi", "arith.bitcast", "arith.ceildivsi", "arith.cmpf",
        "arith.cmpi", "arith.constant", "arith.divf", "arith.divsi", "arith.divui", "arith.extf",
        "arith.extsi", "arith.extui", "arith.fptosi", "arith.maximumf", "arith.maxnumf",
        "arith.maxsi", "arith.minimumf", "arith.minnumf", "arith.minsi", "arith.mulf", "arith.muli",
        "arith.negf", "arith.ori", "arith.remsi", "arith.remui", "arith.select", "arith.shli",
        "arith.shrsi", "arith.shrui", "arith.sitofp", "arith.uitofp", "arith.fptoui", "arith.subf",
        "arith.subi", "arith.truncf", "arith.trunci", "arith.xori",
        // math
        "math.absf", "math.exp", "math.exp2", "math.fma", "math.log", "math.log2", "math.rsqrt",
        "math.sqrt", "math.erf", "math.tanh", "math.sin", "math.cos", "math.floor", "math.ceil",
        // scf
        "scf.for", "scf.if", "scf.yield",
        // tt
        "tt.addptr", "tt.atomic_rmw", "tt.bitcast", "tt.broadcast", "tt.clampf",
        "tt.descriptor_load", "tt.descriptor_reduce", "tt.descriptor_store", "tt.dot",
        "tt.expand_dims", "tt.extern_elementwise", "tt.fp_to_fp", "tt.get_num_programs",
        "tt.get_program_id", "tt.load", "tt.make_range", "tt.make_tensor_descriptor", "tt.mulhiui",
        "tt.precise_divf", "tt.precise_sqrt", "tt.reduce", "tt.reduce.return", "tt.reshape",
        "tt.return", "tt.scan", "tt.scan.return", "tt.splat", "tt.split", "tt.store", "tt.trans",
        // ttg / ttng
        "ttg.convert_layout", "ttg.local_alloc", "ttg.local_load", "ttg.memdesc_trans",
        "ttng.warp_group_dot"};
    std::sort(v.begin(), v.end());
    return v;
  }();
  return ops;
}

bool is_supported_op(const std::string& name) {
  const auto& v = supported_ops();
  return std::binary_search(v.begin(), v.end(), name);
}

std::optional<Unsupported> first_unsupported(const Module& m) {
  // The target the whole toolchain is for, one CTA per program, whole warps. Module attributes
  // carry no location of their own: the message names the file and the attribute.
  const SourceLoc mloc{m.file, 0, 0};
  const Attribute* target = m.attr("ttg.target");
  if (target != nullptr && target->text != "cuda:90")
    return Unsupported{"", kNoId, "target '" + target->text + "' (only cuda:90, Hopper)", mloc};
  const Attribute* ctas = m.attr("ttg.num-ctas");
  if (ctas != nullptr && ctas->ival != 1)
    return Unsupported{
        "", kNoId, "ttg.num-ctas = " + std::to_string(ctas->ival) + " (only 1: no clusters)", mloc};
  // Read as an int by every later stage: the attribute's own value must be in range, not a
  // wider one that truncates into it.
  if (const Attribute* w = m.attr("ttg.num-warps");
      w != nullptr && (w->kind != Attribute::Kind::Integer || w->ival < 1 || w->ival > 32))
    return Unsupported{
        "", kNoId,
        "ttg.num-warps = " +
            (w->kind == Attribute::Kind::Integer ? std::to_string(w->ival) : w->str()) +
            " (must be 1..32: at most 1024 threads)",
        mloc};
  // Triton writes both; without them the layouts (built for num-warps) and the target are
  // guesses.
  if (target == nullptr)
    return Unsupported{"", kNoId, "no ttg.target module attribute (only cuda:90, Hopper)", mloc};
  if (m.attr("ttg.num-warps") == nullptr)
    return Unsupported{"", kNoId, "no ttg.num-warps module attribute", mloc};
  for (const Function& f : m.functions) {
    if (f.body.blocks.size() != 1)
      return Unsupported{f.name, kNoId, "multi-block function", f.loc.ir};
    // Terminators: a function body ends with tt.return, and tt.return, scf.yield and
    // tt.reduce.return / tt.scan.return end the block of what they return from, nowhere else (a
    // missing tt.return was accepted, and a misplaced yield read as a loop's yield).
    const auto& top = f.body.blocks[0].ops;
    if (top.empty() || f.op(top.back()).name != "tt.return")
      return Unsupported{f.name, kNoId, "function @" + f.name + " does not end with tt.return",
                         f.loc.ir};
    for (const Op& o : f.ops) {
      const char* owner = o.name == "tt.return"          ? ""
                          : o.name == "scf.yield"        ? "scf.for or scf.if"
                          : o.name == "tt.reduce.return" ? "tt.reduce"
                          : o.name == "tt.scan.return"   ? "tt.scan"
                                                         : nullptr;
      if (owner == nullptr) continue;
      const Op* p = o.parent_op == kNoId ? nullptr : &f.op(o.parent_op);
      const bool right_owner = *owner == '\0' ? p == nullptr
                               : o.name == "scf.yield"
                                   ? p != nullptr && (p->name == "scf.for" || p->name == "scf.if")
                                   : p != nullptr && p->name == owner;
      const auto& blk = p == nullptr ? f.body.blocks[0]
                                     : p->regions.at(static_cast<size_t>(o.parent_region))
                                           .blocks.at(static_cast<size_t>(o.parent_block));
      if (!right_owner || blk.ops.back() != o.id)
        return Unsupported{f.name, o.id,
                           "'" + o.name + "' that is not the last op of " +
                               (*owner == '\0' ? std::string("the function body")
                                               : "the region of its " + std::string(owner)),
                           o.loc.ir};
    }
    for (const auto& [k, v] : f.attrs)
      if (k == "function_results")
        return Unsupported{f.name, kNoId, "function with results", f.loc.ir};
    for (ValueId a : f.args)
      if (auto p = detail::layout_problem(m, f.value(a).type))
        return Unsupported{f.name, kNoId, "layout of '" + f.value(a).type.str() + "': " + *p,
                           f.value(a).loc.ir};
    for (ValueId a : f.args)
      if (f.value(a).type.kind == Type::Kind::Other)
        return Unsupported{f.name, kNoId, "unsupported type '" + f.value(a).type.str() + "'",
                           f.value(a).loc.ir};
    for (const Op& o : f.ops) {
      if (!is_supported_op(o.name))
        return Unsupported{f.name, o.id, "unsupported op '" + o.name + "'", o.loc.ir};
      // Results and block arguments: a layout Triton would not build (a rank-1 sizePerThread on
      // a 2-D tensor was read past its end).
      std::vector<ValueId> defined = o.results;
      for (const Region& reg : o.regions)
        for (const Block& b : reg.blocks)
          defined.insert(defined.end(), b.args.begin(), b.args.end());
      for (ValueId v : defined)
        if (auto p = detail::layout_problem(m, f.value(v).type))
          return Unsupported{f.name, o.id, "layout of '" + f.value(v).type.str() + "': " + *p,
                             o.loc.ir};
      for (ValueId r : o.results)
        if (f.value(r).type.kind == Type::Kind::Other)
          return Unsupported{
              f.name, o.id,
              "unsupported type '" + f.value(r).type.str() + "' (result of '" + o.name + "')",
              o.loc.ir};
      for (const Region& reg : o.regions)
        if (reg.blocks.size() != 1)
          return Unsupported{f.name, o.id, "'" + o.name + "' with a multi-block region", o.loc.ir};
      // Shapes every later stage divides by or allocates from: each extent positive and small
      // enough that a tile's element count fits 2^31 (a zero extent was a SIGFPE in schedule,
      // 2^31 - 1 a bad_alloc).
      for (ValueId r : o.results) {
        const Type& t = f.value(r).type;
        if (t.kind != Type::Kind::Tensor && t.kind != Type::Kind::MemDesc) continue;
        int64_t n = 1;
        for (int64_t d : t.shape) {
          if (d <= 0 || d > (int64_t{1} << 20) || (n *= d) > (int64_t{1} << 31))
            return Unsupported{f.name, o.id,
                               "tensor shape of '" + t.str() + "' (result of '" + o.name +
                                   "'): every extent must be 1..2^20 and the element count "
                                   "at most 2^31",
                               o.loc.ir};
        }
      }
      // A loop with results ends its body with an scf.yield of one value per result (the
      // scheduler and the emitter read the yielded values by position); without results the
      // printer leaves the yield out.
      if (o.name == "scf.for" && o.operands.size() >= 3) {
        // A constant step <= 0 never ends (or never starts) the loop: Triton's range() rejects it.
        const Op* st = f.def_op(o.operands[2]);
        const Attribute* v = st && st->name == "arith.constant" ? st->attr("value") : nullptr;
        if (v != nullptr && v->kind == Attribute::Kind::Integer && v->ival <= 0)
          return Unsupported{
              f.name, o.id,
              "scf.for with the constant step " + std::to_string(v->ival) + " (must be >= 1)",
              o.loc.ir};
      }
      // A loop's parts, as the parser builds them: lb, ub, step, then one init per iter_arg;
      // one region of one block whose arguments are the induction variable and the iter_args;
      // one result per iter_arg, each of its init's type.
      if (o.name == "scf.for") {
        const size_t n = o.operands.size() < 3 ? 0 : o.operands.size() - 3;
        bool ok = o.operands.size() >= 3 && o.regions.size() == 1 &&
                  o.regions[0].blocks.size() == 1 && o.regions[0].blocks[0].args.size() == n + 1 &&
                  o.results.size() == n;
        for (size_t k = 0; ok && k < n; ++k)
          ok = f.value(o.operands[3 + k]).type == f.value(o.results[k]).type &&
               f.value(o.regions[0].blocks[0].args[1 + k]).type == f.value(o.results[k]).type;
        if (!ok)
          return Unsupported{f.name, o.id,
                             "scf.for whose operands, region and results do not match (lb, ub, "
                             "step and one init per iter_arg; one block with the induction "
                             "variable and the iter_args; one result per iter_arg, same types)",
                             o.loc.ir};
      }
      // An empty loop has nothing to schedule (Triton removes loops without effects).
      if (o.name == "scf.for" && o.regions.size() == 1 && o.regions[0].blocks.size() == 1) {
        const auto& body = o.regions[0].blocks[0].ops;
        if (body.empty() || (body.size() == 1 && f.op(body[0]).name == "scf.yield"))
          return Unsupported{f.name, o.id, "scf.for with an empty body (nothing to schedule)",
                             o.loc.ir};
      }
      if (o.name == "scf.if" &&
          (o.operands.size() != 1 || o.regions.empty() || o.regions.size() > 2))
        return Unsupported{f.name, o.id, "scf.if without one condition and one or two regions",
                           o.loc.ir};
      if (o.name == "scf.for" && !o.regions.empty() && !o.regions[0].blocks.empty()) {
        const Block& body = o.regions[0].blocks[0];
        const Op* y = body.ops.empty() ? nullptr : &f.op(body.ops.back());
        if ((y == nullptr || y->name != "scf.yield") && !o.results.empty())
          return Unsupported{f.name, o.id,
                             "scf.for with " + std::to_string(o.results.size()) +
                                 " result(s) whose body does not end with scf.yield",
                             o.loc.ir};
        if (y != nullptr && y->name == "scf.yield" && y->operands.size() != o.results.size())
          return Unsupported{f.name, o.id,
                             "scf.for with " + std::to_string(o.results.size()) +
                                 " result(s) yields " + std::to_string(y->operands.size()) +
                                 " values",
                             y->loc.ir};
      }
      // A reduction's (a scan's) combiner region ends with one tt.reduce.return
      // (tt.scan.return) value per result.
      if (o.name == "tt.reduce" || o.name == "tt.scan") {
        const std::string ret = o.name + ".return";
        const Op* y = o.regions.size() == 1 && o.regions[0].blocks.size() == 1 &&
                              !o.regions[0].blocks[0].ops.empty()
                          ? &f.op(o.regions[0].blocks[0].ops.back())
                          : nullptr;
        if (y == nullptr || y->name != ret || y->operands.size() != o.results.size())
          return Unsupported{f.name, o.id,
                             o.name + " whose region does not end with a " + ret + " of " +
                                 std::to_string(o.results.size()) + " value(s)",
                             o.loc.ir};
      }
    }
  }
  return std::nullopt;
}

void check_supported(const Module& m) {
  auto u = first_unsupported(m);
  if (!u) return;
  std::string msg = u->what;
  if (u->op != kNoId) {
    const Op& o = m.function(u->function).op(u->op);
    if (o.loc.src.known()) msg += " (from " + o.loc.src.str() + ")";
  }
  throw Error(u->where, msg);
}

}  // namespace sched2cu::ttgir
