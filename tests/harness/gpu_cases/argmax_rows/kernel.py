# Harness test case argmax_rows: the maximum of every row and its first index (tl.max with
# return_indices, a two-operand tt.reduce along the columns of a [ROWS, BLOCK] tile), persistent
# over blocks of ROWS rows; rows of n_cols <= BLOCK f32 values, masked columns read as -inf.
import triton
import triton.language as tl


@triton.jit
def argmax_rows_kernel(X, V, I, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    for start in range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS):
        rows = start + tl.arange(0, ROWS)
        cols = tl.arange(0, BLOCK)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(X + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
        v, i = tl.max(x, axis=1, return_indices=True)
        tl.store(V + rows, v, mask=rows < n_rows)
        tl.store(I + rows, i, mask=rows < n_rows)


DUMP = {
    "kernel": "argmax_rows_kernel",
    "signature": {"X": "*fp32", "V": "*fp32", "I": "*i32", "n_rows": "i32", "n_cols": "i32"},
    "constexprs": {"ROWS": 4, "BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 2,
}
