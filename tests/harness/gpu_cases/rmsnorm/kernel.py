# rmsnorm: a plain Triton RMSNorm forward for the tests, two passes over each row as users write
# it when a row is longer than one block: a loop of squared sums, the row's 1 / rms computed
# between the loops from that reduction (scalar math on a consumer-only value), then a loop that
# scales and stores. Persistent over rows (tl.num_programs), f16 in and out, f32 weight, a runtime
# row length whose last block is partial. The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(X, W, Y, n_rows, N, eps, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x_row = X + row * N
        y_row = Y + row * N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
            acc += x * x
        rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            mask = cols < N
            w = tl.load(W + cols, mask=mask, other=0.0)
            x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_row + cols, (x * rstd * w).to(tl.float16), mask=mask)


DUMP = {
    "kernel": "rmsnorm_kernel",
    "signature": {"X": "*fp16", "W": "*fp32", "Y": "*fp16", "n_rows": "i32", "N": "i32",
                  "eps": "fp32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 2,
}
