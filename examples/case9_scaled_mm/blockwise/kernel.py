# case9_scaled_mm/blockwise: the DeepSeek-V3 style blockwise-scaled fp8 GEMM
#   D = bf16( sum_g (A[:, g] · B[:, g]ᵀ) · scale_a[m, g] · scale_b[n / 128, g] )
# over K groups g of 128: A [M, K] and B [N, K] e4m3 row-major (both operands K-major, the only
# form Hopper's 8-bit wgmma takes), scale_a [K/128, M] f32 (M-major: the scales of one K group
# are contiguous, one per row: 1x128 blocks of A), scale_b [N/128, K/128] f32 row-major (128x128
# blocks of B), D [M, N] bf16. Each K group's partial product is promoted into the f32
# accumulator with its scales in registers, as the group finishes. Persistent: program pid walks
# tiles pid, pid + num_programs, ... of a grouped (GROUP_M tile-rows) order; the grid is the SM
# count read from the device at launch. The parameter order is the launch ABI (README.md).
import triton
import triton.language as tl


@triton.jit
def blockwise_fp8_kernel(a_ptr, b_ptr, d_ptr, sa_ptr, sb_ptr, M, N, K,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    num_groups = tl.cdiv(K, BLOCK_K)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    d_desc = tl.make_tensor_descriptor(d_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    num_in_group = GROUP_M * num_pid_n
    for tile in range(pid, num_tiles, num_programs):
        group_id = tile // num_in_group
        first_m = group_id * GROUP_M
        group_size = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % num_in_group) % group_size
        pid_n = (tile % num_in_group) // group_size
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        sb_row = sb_ptr + (pid_n * BLOCK_N // 128) * num_groups
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for g in range(0, num_groups):
            a = a_desc.load([pid_m * BLOCK_M, g * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, g * BLOCK_K])
            partial = tl.dot(a, b.T)
            sa = tl.load(sa_ptr + g * M + offs_m, mask=offs_m < M, other=0.0)
            sb = tl.load(sb_row + g)
            acc += partial * (sa[:, None] * sb)
        d_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.bfloat16))


DUMP = {
    "kernel": "blockwise_fp8_kernel",
    "signature": {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "d_ptr": "*bf16", "sa_ptr": "*fp32",
                  "sb_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8},
    "num_warps": 8,
    "num_stages": 4,
}
