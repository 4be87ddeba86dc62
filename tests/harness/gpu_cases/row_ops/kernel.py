# row_ops: a plain Triton row kernel for the tests (issue 9) exercising the blocked world's
# lowerings on the GPU against a CPU reference: masked pointer loads with a non-zero `other`,
# selects, comparisons, math functions (sqrt, rsqrt, exp, log, erf, abs), sum, min and a custom
# combine reduction, tl.num_programs, a runtime row length whose last chunk is partial, a masked
# tile store and a scalar store per row. Persistent over rows. BLOCK is 256 (two elements per
# thread, no 16-byte runs): at 1024 the row loop is scheduled 6 stages deep and the consumer
# spills 2 KB (issue 9's stage depth). The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def _max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def row_ops_kernel(X, G, Y, S, n_rows, n_cols, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        lo = float("inf")
        big = 0.0
        ss = 0.0
        for start in range(0, n_cols, BLOCK):
            offs = start + cols
            mask = offs < n_cols
            x = tl.load(X + row * n_cols + offs, mask=mask, other=1.0).to(tl.float32)
            g = tl.load(G + offs, mask=mask, other=0.0).to(tl.float32)
            lo = tl.minimum(lo, tl.min(tl.where(mask, x, float("inf")), 0))
            big = tl.maximum(big, tl.reduce(tl.where(mask, x, 0.0), 0, _max_abs))
            ss += tl.sum(tl.where(mask, x * x, 0.0), 0)
            pos = x > 0.0
            y = tl.where(pos, tl.sqrt(x), -tl.log(1.0 + tl.exp(x))) * g + tl.erf(x)
            tl.store(Y + row * n_cols + offs, y.to(tl.float16), mask=mask)
        r = tl.rsqrt(ss / n_cols + eps)
        tl.store(S + row, (lo + big) * r)


DUMP = {
    "kernel": "row_ops_kernel",
    "signature": {"X": "*fp16", "G": "*fp16", "Y": "*fp16", "S": "*fp32", "n_rows": "i32",
                  "n_cols": "i32", "eps": "fp32"},
    "constexprs": {"BLOCK": 256},
    "num_warps": 4,
    "num_stages": 1,
}
