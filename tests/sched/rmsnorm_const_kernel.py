# rmsnorm_const: the rmsnorm GPU test kernel with its row length a constexpr (4096), so that its
# two inner loops have constant trip counts (4): the stage-cap test input (stage_cap_test.cpp).
# Dumped by tools/dump_ttgir.py into rmsnorm_const_input.ttgir.
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(X, W, Y, n_rows, eps, N: tl.constexpr, BLOCK: tl.constexpr):
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
    "signature": {"X": "*fp16", "W": "*fp32", "Y": "*fp16", "n_rows": "i32",
                  "eps": "fp32"},
    "constexprs": {"N": 4096, "BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 2,
}
