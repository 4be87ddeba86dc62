# row_softmax: a plain Triton row kernel for the tests (issue 9): pointer loads and stores with
# masks, no tensor descriptors, a runtime row length. Persistent: program p handles rows p,
# p + num_programs, ... of X[n_rows, n_cols] (row stride `stride` elements), each with one online
# pass for the max and the sum of exponentials over
# BLOCK-wide chunks (the last chunk partial when n_cols % BLOCK != 0), one pass writing
# y = exp(x - max) / sum as f16. The parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def row_softmax_kernel(X, Y, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x_row = X + row * stride
        y_row = Y + row * stride
        m_i = -float("inf")
        l_i = 0.0
        for start in range(0, n_cols, BLOCK):
            offs = start + cols
            x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m_i, tl.max(x, 0))
            l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(x - m_new), 0)
            m_i = m_new
        for start in range(0, n_cols, BLOCK):
            offs = start + cols
            mask = offs < n_cols
            x = tl.load(x_row + offs, mask=mask, other=-float("inf")).to(tl.float32)
            y = tl.exp(x - m_i) / l_i
            tl.store(y_row + offs, y.to(tl.float16), mask=mask)


DUMP = {
    "kernel": "row_softmax_kernel",
    "signature": {"X": "*fp16", "Y": "*fp16", "n_rows": "i32", "n_cols": "i32", "stride": "i32"},
    "constexprs": {"BLOCK": 1024},
    "num_warps": 4,
    "num_stages": 1,
}
