# transpose: a plain Triton 2-D transpose for the tests: a BM x BN tile loaded through masked
# pointers, tl.trans (order [1, 0]) and a layout conversion back to the store's layout (a pass
# through shared memory), stored masked at the mirrored offsets. A 2-D grid from the store mask.
# The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    om = pid_m * BM + tl.arange(0, BM)
    on = pid_n * BN + tl.arange(0, BN)
    x = tl.load(X + om[:, None] * N + on[None, :], mask=(om[:, None] < M) & (on[None, :] < N))
    tl.store(Y + on[:, None] * M + om[None, :], tl.trans(x),
             mask=(on[:, None] < N) & (om[None, :] < M))


DUMP = {
    "kernel": "transpose_kernel",
    "signature": {"X": "*fp16", "Y": "*fp16", "M": "i32", "N": "i32"},
    "constexprs": {"BM": 64, "BN": 64},
    "num_warps": 4,
    "num_stages": 1,
}
