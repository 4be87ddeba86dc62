# case5_addmm_bias: C = f16(f32(A @ B) + f32(bias)) (f16 in/out, f32 accumulate), bias a full
# M x N f16 matrix; persistent like case2: each program walks tiles pid, pid + NUM_SMS, ... of a
# grouped (GROUP_M tile-rows) order of 128x256 tiles, so the grid is NUM_SMS programs (one per
# H200 SM). Plain sequential Triton; the parameter order (a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K)
# is the launch ABI of the generated kernel (docs/abi.md) and must not change. The bias tile is
# read only by the epilogue's add, so the scheduler stages its TMA load box by box in the C
# store's own staging slots (no registers, no extra buffer). tools/dump_ttgir.py reads DUMP.
import triton
import triton.language as tl

@triton.jit
def addmm_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    bias_desc = tl.make_tensor_descriptor(bias_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_in_group = GROUP_M * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_in_group
        first_m = group_id * GROUP_M
        group_size = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile_id % num_in_group) % group_size
        pid_n = (tile_id % num_in_group) // group_size
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([pid_m * BLOCK_M, k])
            b = b_desc.load([k, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        bias = bias_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
        acc = acc + bias.to(tl.float32)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


DUMP = {
    "kernel": "addmm_kernel",
    "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp16", "c_ptr": "*fp16",
                  "M": "i32", "N": "i32", "K": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 16, "NUM_SMS": 132},
    "num_warps": 8,
    "num_stages": 4,
}
