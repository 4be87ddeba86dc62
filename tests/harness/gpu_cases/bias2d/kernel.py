# bias2d: a plain Triton 2-D elementwise kernel for the tests: one BLOCK_M x BLOCK_N tile per
# program on a 2-D grid (both axes from the store mask `(offs_m[:, None] < M) & (offs_n[None, :] <
# N)`), [BLOCK_M, 1] and [1, BLOCK_N] tensors broadcast into the tile, and a bias vector loaded
# in one layout and converted to the tile's column layout (recomputed there, sharing its offsets
# with the mask). No loop. The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def bias2d_kernel(X, B, Y, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(X + offs_m[:, None] * N + offs_n[None, :], mask=mask, other=0.0)
    b = tl.load(B + offs_n, mask=offs_n < N, other=0.0)
    y = x.to(tl.float32) + b[None, :]
    tl.store(Y + offs_m[:, None] * N + offs_n[None, :], y.to(tl.float16), mask=mask)


DUMP = {
    "kernel": "bias2d_kernel",
    "signature": {"X": "*fp16", "B": "*fp32", "Y": "*fp16", "M": "i32", "N": "i32"},
    "constexprs": {"BLOCK_M": 32, "BLOCK_N": 128},
    "num_warps": 4,
    "num_stages": 1,
}
