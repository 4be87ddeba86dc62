# tl.clamp (tt.clampf) on a blocked tile, both NaN modes: propagate_nan NONE (the non-NaN operand
# wins, as PTX's max/min.f32) and ALL (a NaN operand wins). emit refused it: "unsupported op
# 'tt.clampf'" (tests/emit/test_blocked.cpp). Its TTGIR is committed beside it as
# clamp_input.ttgir, dumped by tools/dump_ttgir.py.
import triton
import triton.language as tl


@triton.jit
def clamp_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0.0)
    tl.store(Y + offs, tl.clamp(x, -1.0, 3.0), mask=m)
    tl.store(Z + offs, tl.clamp(x, -2.0, 2.0, propagate_nan=tl.PropagateNan.ALL), mask=m)


DUMP = {"kernel": "clamp_kernel", "signature": {"X": "*fp32", "Y": "*fp32", "Z": "*fp32", "n": "i32"},
        "constexprs": {"BLOCK": 1024}, "num_warps": 4, "num_stages": 1}
