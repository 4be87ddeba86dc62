# gemm_masked_epilogue: C = f16(leaky_relu(f32(A · Bᵀ) + f32(bias))) with both selects a plain
# Triton epilogue writes: tl.where(x > 0, x, 0.01 * x) (an f32 compare on the accumulator tile)
# and tl.where((offs_m[:, None] < M) & (offs_n[None, :] < N), y, 0.0) (row and column bounds
# compared as [N, 1] and [1, M] i1 tiles, broadcast and combined). Neither mask takes registers:
# the emitter evaluates each per element in its select. gemm_bt_gelu's operands otherwise; a GPU
# test of the harness (tests/harness/CMakeLists.txt), not a corpus case.
import triton
import triton.language as tl


@triton.jit
def gemm_masked_epilogue_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([pid_n * BLOCK_N, k])
        acc = tl.dot(a, b.T, acc)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    x = acc + bias[None, :].to(tl.float32)
    y = tl.where(x > 0, x, 0.01 * x)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    y = tl.where((offs_m[:, None] < M) & (offs_n[None, :] < N), y, 0.0)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], y.to(tl.float16))


DUMP = {
    "kernel": "gemm_masked_epilogue_kernel",
    "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp16", "c_ptr": "*fp16",
                  "M": "i32", "N": "i32", "K": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 4,
}
