# col_atomic: a plain Triton kernel for the tests whose results are accumulated across programs
# with atomics (tt.atomic_rmw): per column j of X[n_rows, n_cols] (f16), S[j] = sum_i x[i, j]
# (tl.atomic_add, f32) and Q[j] = max(0, max_i int(64 * x[i, j])) (tl.atomic_max, i32), both
# outputs zeroed before each call. Persistent over rows, a runtime row length whose last chunk
# is partial. The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def col_atomic_kernel(X, S, Q, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        for start in range(0, n_cols, BLOCK):
            offs = start + cols
            mask = offs < n_cols
            x = tl.load(X + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
            tl.atomic_add(S + offs, x, mask=mask)
            tl.atomic_max(Q + offs, (x * 64.0).to(tl.int32), mask=mask)


DUMP = {
    "kernel": "col_atomic_kernel",
    "signature": {"X": "*fp16", "S": "*fp32", "Q": "*i32", "n_rows": "i32", "n_cols": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 1,
}
