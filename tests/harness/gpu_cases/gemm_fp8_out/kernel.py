# gemm_fp8_out: C = fp8(scale · A · Bᵀ), a bf16 GEMM whose epilogue quantizes to fp8 e4m3 (what an
# fp8 inference pipeline feeds the next layer): A [M, K] and B [N, K] row-major bf16, C [M, N]
# e4m3, one 128x128 output tile per program on a 2-D grid. A GPU test of the harness, not a corpus
# case; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def gemm_fp8_out_kernel(a_ptr, b_ptr, c_ptr, M, N, K, scale,
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
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], (acc * scale).to(tl.float8e4nv))


DUMP = {
    "kernel": "gemm_fp8_out_kernel",
    "signature": {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp8e4nv",
                  "M": "i32", "N": "i32", "K": "i32", "scale": "fp32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 4,
}
