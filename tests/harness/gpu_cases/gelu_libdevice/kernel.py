# gelu_libdevice: an elementwise kernel calling libdevice as users write it (tl.extra.cuda.libdevice,
# tt.extern_elementwise): the tanh form of GELU, a pow and a fast exp, on bf16 inputs with 64-bit
# offsets (tl.program_id(0).to(tl.int64)); the grid, cdiv(n, BLOCK), comes from the store mask.
# A GPU test of the harness, not a corpus case; the parameter order is the launch ABI.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_libdevice_kernel(X, Y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    g = 0.5 * x * (1.0 + libdevice.tanh(inner))
    y = libdevice.pow(g, 2.0) + libdevice.fast_expf(-x * x)
    tl.store(Y + offs, y, mask=mask)


DUMP = {
    "kernel": "gelu_libdevice_kernel",
    "signature": {"X": "*bf16", "Y": "*fp32", "n": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 1,
}
