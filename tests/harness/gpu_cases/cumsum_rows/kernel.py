# Harness test case cumsum_rows: the running sum of every row (tl.cumsum of a 1-D row: tt.scan),
# persistent over rows; rows of n_cols <= BLOCK f32 values, masked columns read as 0.
import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(X, Y, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + row * n_cols + cols, mask=cols < n_cols, other=0.)
        tl.store(Y + row * n_cols + cols, tl.cumsum(x, 0), mask=cols < n_cols)


DUMP = {
    "kernel": "cumsum_rows_kernel",
    "signature": {"X": "*fp32", "Y": "*fp32", "n_rows": "i32", "n_cols": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 2,
}
