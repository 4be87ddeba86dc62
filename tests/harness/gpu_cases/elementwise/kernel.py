# elementwise: a plain Triton elementwise kernel for the tests, in the shape of Triton's vector-add
# tutorial: no loop, one BLOCK of elements per program, `offs = pid * BLOCK + tl.arange(0, BLOCK)`
# masked by `offs < n` (the grid, cdiv(n, BLOCK), comes from that mask), bf16 inputs, a SiLU gate
# computed in f32 and multiplied in bf16 (bf16 tensor math), and a leaky ReLU plus residual in
# f32. The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def elementwise_kernel(A, B, C, D, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0.0)
    b = tl.load(B + offs, mask=mask, other=0.0)
    af = a.to(tl.float32)
    gate = (af * tl.sigmoid(af)).to(tl.bfloat16)
    tl.store(C + offs, gate * b, mask=mask)
    d = tl.where(af > 0, af, 0.01 * af) + b.to(tl.float32)
    tl.store(D + offs, d, mask=mask)


DUMP = {
    "kernel": "elementwise_kernel",
    "signature": {"A": "*bf16", "B": "*bf16", "C": "*bf16", "D": "*fp32", "n": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 1,
}
