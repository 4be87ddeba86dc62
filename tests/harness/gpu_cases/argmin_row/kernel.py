# Harness test case argmin_row: the first index of every row's minimum (tl.argmin of a 1-D row:
# a two-operand tt.reduce to scalars), persistent over rows; rows of n_cols <= BLOCK f32 values,
# masked columns read as +inf.
import triton
import triton.language as tl


@triton.jit
def argmin_row_kernel(X, I, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + row * n_cols + cols, mask=cols < n_cols, other=float("inf"))
        tl.store(I + row, tl.argmin(x, 0))


DUMP = {
    "kernel": "argmin_row_kernel",
    "signature": {"X": "*fp32", "I": "*i32", "n_rows": "i32", "n_cols": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 2,
}
