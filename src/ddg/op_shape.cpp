// The cost shape of one op (see build.h): the bytes and elements of its largest tensor, and an
// MMA's flops and operand type (f32 tiles as tf32, the only f32 MMA the tensor cores run); and
// whether a TMA load is consumed in registers. Reads the IR only.
#include <set>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/ddg/build.h"

namespace sched2cu::ddg {

using ttgir::Function;
using ttgir::Op;
using ttgir::OpId;
using ttgir::Type;
using ttgir::ValueId;

bool is_tensorish(const Type& t) {
  return t.kind == Type::Kind::Tensor || t.kind == Type::Kind::MemDesc;
}

namespace {

std::string dtype_name(const Type& t) { return t.element_type().name; }

}  // namespace

OpShape op_shape(const Function& f, const Op& op, int consumer_wgs) {
  OpShape s;
  const Type* main = nullptr;
  if (ttgir::is_descriptor_store(op.name) || op.name == "tt.store") {
    main = &f.value(op.operands.back()).type;
  } else if (op.name == "tt.reduce") {
    main = &f.value(op.operands.at(0)).type;
  } else if (!op.results.empty()) {
    main = &f.value(op.results[0]).type;
  } else {
    for (ValueId v : op.operands)
      if (is_tensorish(f.value(v).type) && (!main || f.value(v).type.numel() > main->numel()))
        main = &f.value(v).type;
  }
  if (main && (is_tensorish(*main) || main->kind == Type::Kind::TensorDesc)) {
    s.bytes = main->byte_size();
    s.elems = main->numel();
  } else {
    s.elems = 1;
  }
  s.elems_per_wg = s.elems / std::max(1, consumer_wgs);
  if (op.name == "ttng.warp_group_dot" || op.name == "tt.dot") {
    const Type& a = f.value(op.operands.at(0)).type;
    const Type& b = f.value(op.operands.at(1)).type;
    if (a.shape.size() != 2 || b.shape.size() != 2)
      throw Error(op.loc.ir, "'" + op.name + "' with operands that are not 2-D tiles");
    s.flops = 2 * a.shape[0] * b.shape[1] * a.shape[1];
    s.dtype = dtype_name(a);
    if (s.dtype == "f32") {
      // Triton's InputPrecision: 0 TF32 (tl.dot's default for f32), 1 TF32x3, 2 IEEE, ...; only
      // tf32 is one tensor-core instruction (Triton splits TF32x3 into three tf32 dots before
      // TTGIR, and an IEEE dot never becomes a warp_group_dot).
      const ttgir::Attribute* p = op.attr("inputPrecision");
      if (p != nullptr && p->ival != 0)
        throw Error(op.loc.ir, "'" + op.name + "' of f32 tiles with inputPrecision " +
                                   std::to_string(p->ival) +
                                   ": only tf32 (input_precision=\"tf32\", 0) runs on the tensor "
                                   "cores as one wgmma");
      s.dtype = "tf32";
    }
  }
  return s;
}

bool is_register_load(const ttgir::Module& m, const Function& f, const Op& op,
                      const std::set<OpId>& global_loads) {
  if (op.name != "tt.descriptor_load" || op.results.size() != 1) return false;
  if (global_loads.count(op.id) != 0) return true;
  const auto& users = f.value(op.results[0]).users;
  if (users.empty()) return false;
  for (OpId u : users) {
    const Op& uo = f.op(u);
    if (uo.name != "ttg.convert_layout" || uo.results.size() != 1 ||
        m.encoding_kind(f.value(uo.results[0]).type) != "ttg.nvidia_mma")
      return false;
  }
  return true;
}

}  // namespace sched2cu::ddg
