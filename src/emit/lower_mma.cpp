// ttng.warp_group_dot: one wgmma group per warpgroup (its 64-row slabs, K / k-step k-steps, one
// commit). Operand majors come from the shared layouts: A K-major unless transposed (`d.T` of a
// loaded [K][M] tile through ttg.memdesc_trans: MN-major, 16-bit types only); B K-major when its
// layout is transposed, as `k.T` gives, else MN-major. A from shared memory or
// from registers (the packed or f32 accumulator tile a ttg.dot_op view names). The accumulator
// starts from a zero constant or a folded zero init through scale-d, from a copy of its C operand,
// or in place. Waits and ring releases around it are the expander's.
#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {

namespace {

// "wgmma_ss<N, TA, TB, Major::K, MB>(" with A's major switched to Major::MN.
std::string mn_head(const std::string& ss_head) {
  const std::string k = "Major::K, ";
  const size_t at = ss_head.find(k);
  return ss_head.substr(0, at) + "Major::MN, " + ss_head.substr(at + k.size());
}

}  // namespace

void lower_mma(Lower& L, const ttgir::Op& o, Lowered& out) {
  Ctx& c = L.c;
  const int A = o.operands.at(0), B = o.operands.at(1), C = o.operands.at(2);
  const int D = o.results.at(0);
  const ttgir::Type& ta = c.type(A);
  const ttgir::Type& tb = c.type(B);
  const Val& va = L.val(A, o.id);
  const Val& vc = L.val(C, o.id);
  Val vd = L.from_type(D, o.id);
  if (vd.lay != Lay::Acc || vd.elem != "f32")
    c.fail(o.id, "the accumulator must be an f32 #nvidia_mma tile");
  const int64_t M = ta.shape.at(0), K = ta.shape.at(1), N = tb.shape.at(1);
  const std::string ea = ta.element_type().name, eb = tb.element_type().name;
  const int kstep = 32 / std::max(1, elem_bytes(ea));
  if (elem_bytes(ea) == 0 || K % kstep != 0)
    c.fail(o.id, "K = " + S(K) + " is not a multiple of the wgmma k-step " + S(kstep));
  if (N % 8 != 0) c.fail(o.id, "wgmma N must be a multiple of 8 up to 256");
  // Warpgroups split the rows (each its 64-row slabs) or, for a column-split accumulator, the
  // columns: each warpgroup all rows and N / parts columns of B.
  const bool col_split = vd.col_parts > 1;
  const int64_t rows_wg = col_split ? M : L.split_rows(static_cast<int>(M), o.id);
  if (vd.rows != rows_wg || static_cast<int64_t>(vd.cols) * vd.col_parts != N)
    c.fail(o.id, "accumulator shape differs from the MMA shape");
  const int64_t NW = vd.cols;  // the wgmma N of this warpgroup
  // f32 tiles are read as tf32 (Triton's default input_precision; the scheduler refused any
  // other); their wgmma type is the runtime's tf32 tag.
  const auto wgmma_elem = [&](const std::string& e) {
    return e == "f32" ? std::string("tf32") : cuda_elem(c, e, o.id);
  };
  const std::string TA = wgmma_elem(ea), TB = wgmma_elem(eb);
  if ((ea == "f32") != (eb == "f32")) c.fail(o.id, "a tf32 wgmma needs both operands f32");
  // 8-bit and tf32 wgmma read both shared-memory operands K-major only (no transpose bit).
  const bool kmajor_only = elem_bytes(ea) != 2;
  const std::string kind = ea == "f32" ? "tf32" : "8-bit";

  // B: K-major when the memdesc layout is transposed (the buffer is [N][K]), else MN-major.
  const sgraph::Buffer& bb = L.smem_of(B, o.id);
  const bool b_kmajor = L.val(B, o.id).smem_trans;
  if (kmajor_only && !b_kmajor)
    c.fail(o.id, kind + " wgmma needs a K-major B operand (its layout asks for MN-major: " +
                     "load B as [N, K] and use b.T)");
  const int swb = swizzle_of(c, tb, o.id);
  if (swb == 0) c.fail(o.id, "wgmma operands need a swizzled shared layout");
  Text slot_b = L.slot_addr(bb);
  if (col_split) {
    // This warpgroup's first column n0 = slice * NW of B: K-major ([N][K] rows of `swb` bytes
    // per K box) it starts n0 rows in; MN-major (boxes of swb / eb columns, each [K][swb]) it
    // starts in box n0 / (swb / eb), (n0 % (swb / eb)) elements in.
    const int eb_b = elem_bytes(eb);
    const Text n0 = "slice * " + S(NW);
    slot_b = b_kmajor ? "(" + slot_b + " + " + n0 + " * " + S(swb) + ")"
                      : "(" + slot_b + " + (" + n0 + ") / " + S(swb / eb_b) + " * " +
                            S(static_cast<long long>(bb.shape.at(0)) * swb) + " + (" + n0 + ") % " +
                            S(swb / eb_b) + " * " + S(eb_b) + ")";
  }
  const Text desc_b =
      b_kmajor ? "wgmma_desc_k<" + S(swb) + ", " + S(bb.shape.at(0)) + ">(" + slot_b + ", ks)"
               : "wgmma_desc_mn<" + S(swb) + ", " + S(bb.shape.at(0)) + ">(" + slot_b + ", ks)";
  const std::string major_b = b_kmajor ? "Major::K" : "Major::MN";
  // "wgmma_ss<N, TA, TB, Major::K, major_b>(" and the RS form's head.
  if (NW % 8 != 0 || NW > 256) c.fail(o.id, "wgmma N must be a multiple of 8 up to 256");
  std::string ss_head = "wgmma_ss<" + S(NW), rs_head = "wgmma_rs<" + S(NW);
  for (std::string* h : {&ss_head, &rs_head}) {
    *h += ", ";
    *h += TA;
    *h += ", ";
    *h += TB;
    *h += h == &ss_head ? ", Major::K, " : ", ";
    *h += major_b;
    *h += ">(";
  }

  // The accumulator's starting value.
  Text scale = "1";
  std::vector<Stmt> pre;
  if (vc.lay == Lay::Splat) {
    if (!vc.scalar.empty() && (vc.scalar == "0.0f" || vc.scalar == "0.000000e+00f")) {
      scale = "ks > 0";  // D = A·B on the first k-step
    } else {
      pre.push_back(code("acc_fill(" + R(D) + ", " +
                         (vc.scalar.empty() ? R(vc.scalar_value) : Text(vc.scalar)) + ");"));
    }
  } else if (vc.lay == Lay::Acc && !vc.packed && vc.elem == "f32") {
    if (vc.zero_iter >= 0)  // zero on iteration 0: folded into scale-d (docs/emitter.md)
      scale = fold_scale_ref(c.loop_index(c.f.value(vc.zero_iter).owner_op));
    if (vc.storage != D)
      pre.push_back(code(R(D) + " = " + R(vc.storage) + ";", "accumulate onto C"));
  } else {
    c.fail(o.id, "the C operand is not an f32 accumulator tile or a splat");
  }

  const int slabs = vd.rows / 64;
  std::vector<Stmt> body;
  body.push_back(code("wgmma_fence();"));
  const int ksteps = static_cast<int>(K / kstep);
  std::vector<Text> regs = {R(D)};
  std::vector<Access> mem = {L.slot_access(bb, Access::Engine::Mma, false)};
  if (va.lay == Lay::Smem) {
    const sgraph::Buffer& ba = L.smem_of(A, o.id);
    // A: K-major unless its memdesc is transposed (`d.T` of a loaded [K][M] tile: MN-major).
    const bool a_mn = va.smem_trans;
    if (kmajor_only && a_mn)
      c.fail(o.id, kind + " wgmma needs a K-major A operand (its layout asks for MN-major)");
    // An exchanged register tile's slot has no memdesc type: its swizzle is the exchange's.
    const int swa = va.swizzle > 0 ? va.swizzle : swizzle_of(c, ta, o.id);
    if (swa == 0) c.fail(o.id, "wgmma operands need a swizzled shared layout");
    const std::optional<RowSlabs> rows_a = row_slabs(ba.bytes, ba.shape.at(0), vd.rows, swa);
    if (ba.loop < 0 && L.split() && !col_split && !a_mn && rows_a) {
      // A resident, row-split K-major A: this warpgroup reads only its rows of each swizzle box
      // (what lets an epilogue staging overlay the other rows, overlay.cpp).
      for (long long box = 0; box < rows_a->boxes; ++box)
        mem.push_back(
            Lower::staging_access(ba, "slice * " + S(rows_a->slab) + " + " + S(box * rows_a->box),
                                  rows_a->slab, Access::Engine::Mma, false));
    } else {
      mem.push_back(L.slot_access(ba, Access::Engine::Mma, false));
    }
    const Text slot_a = L.slot_addr(ba);
    const std::string head = a_mn ? mn_head(ss_head) : ss_head;
    // MN-major: the M extent is split into boxes of `swa` bytes, each [K rows][swa]; a 64-row
    // slab must start on a box boundary.
    if (a_mn && (64 * elem_bytes(ea)) % swa != 0)
      c.fail(o.id, "an MN-major A slab of 64 rows does not start on a " + S(swa) + "-byte box");
    for (int s = 0; s < slabs; ++s) {
      // Rows of this slab: the warpgroup's slice of the A tile, then 64 * s.
      const Text row0 = L.split() && !col_split
                            ? "(slice * " + S(vd.rows) + " + " + S(64LL * s) + ")"
                            : Text(S(64LL * s));
      const Text desc_a = a_mn ? "wgmma_desc_mn<" + S(swa) + ", " + S(ba.shape.at(0)) + ">(" +
                                     slot_a + " + " + row0 + " / " + S(swa / elem_bytes(ea)) +
                                     " * " + S(1LL * ba.shape.at(0) * swa) + ", ks)"
                               : "wgmma_desc_k<" + S(swa) + ", " + S(ba.shape.at(0)) + ">(" +
                                     slot_a + " + " + row0 + " * " + S(swa) + ", ks)";
      body.push_back(code("#pragma unroll"));
      body.push_back(for_("int ks = 0", "ks < " + S(ksteps), "++ks",
                          {code(head + R(D) + ".v[" + S(s) + "], " + desc_a + ", " + desc_b + ", " +
                                scale + ");")}));
    }
  } else if (va.lay == Lay::DotA) {
    if (va.rows != vd.rows || va.cols != K) c.fail(o.id, "the register A operand's shape differs");
    if (ea == "f32")
      c.fail(o.id, "a tf32 A operand from registers is not implemented (only from shared memory)");
    const int P = va.storage;
    regs.push_back(R(P));
    for (int s = 0; s < slabs; ++s) {
      Text frag = va.packed ? "packed_to_a(a_, " + R(P) + ", " + S(s) + ", ks);"
                            : "acc_to_a<" + TA + ">(a_, " + R(P) + ", " + S(s) + ", ks);";
      if (!va.packed && va.elem != ea)
        c.fail(o.id, "the register A operand must be converted to " + ea + " first");
      body.push_back(code("#pragma unroll"));
      body.push_back(
          for_("int ks = 0", "ks < " + S(ksteps), "++ks",
               {code("uint32_t a_[4];"), code(frag),
                code(rs_head + R(D) + ".v[" + S(s) + "], a_, " + desc_b + ", " + scale + ");")}));
    }
  } else {
    c.fail(o.id, "the A operand is neither shared memory nor a register dot operand");
  }
  body.push_back(code("wgmma_commit();"));
  body.push_back(code("wgmma_fence_operand(" + R(D) + ");"));
  out.decls.push_back(decl(L.ctype(vd, o.id), D, {}, false, c.note(o.id)));
  out.body = pre;
  out.body.push_back(mma_issue(body, regs, c.note(o.id), mem));
  out.mma = true;
  out.mma_regs = regs;
  vd.storage = D;
  L.set(D, vd);
}

}  // namespace sched2cu::emit
