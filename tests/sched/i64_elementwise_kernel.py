# The source of tests/sched/i64_elementwise_input.ttgir (tools/dump_ttgir.py): the vector-add
# tutorial with its offsets in 64 bits (tl.program_id(0).to(tl.int64)), whose grid schedule derives
# from the store mask through the sign extensions (loop_free_test.cpp).
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


DUMP = {"kernel": "add_kernel", "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        "constexprs": {"BLOCK": 1024}, "num_warps": 4}
