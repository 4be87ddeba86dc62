# Triton's fused-softmax tutorial kernel (02-fused-softmax.py) as users copy it: persistent over
# rows (tl.range from the program id by tl.num_programs, num_stages 4), one BLOCK_SIZE-wide masked
# f32 row per iteration, BLOCK_SIZE 1024 and 8 warps as the tutorial picks them for 1000 columns.
# Its 9-stage row loop keeps plain loads in flight that the producer-kernel register estimate
# leaves out: 4 CTAs per SM, and ptxas spills 36 B at the consumer's 48 registers; schedule says
# so (tests/sched/load_path_test.cpp).
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


DUMP = {
    "kernel": "softmax_kernel",
    "signature": {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
                  "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
    "constexprs": {"BLOCK_SIZE": 1024, "num_stages": 4},
    "num_warps": 8,
    "num_stages": 4,
}
