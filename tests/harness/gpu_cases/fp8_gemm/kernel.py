# fp8_gemm: D = bf16((A · Bᵀ) · (a_scale · b_scale)), the tensor-wise scaled fp8 GEMM (one f32
# scale each for A and B, applied after the loop): A [M, K] and B [N, K] e4m3 row-major (both
# operands K-major, the only form Hopper's 8-bit wgmma takes), f32 accumulation, bf16 out. One
# 128x256 output tile per program on a 2-D grid. A GPU test of the harness
# (tests/harness/CMakeLists.txt), not a corpus case; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def fp8_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, a_scale, b_scale,
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
    acc = acc * (a_scale * b_scale)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.bfloat16))


DUMP = {
    "kernel": "fp8_gemm_kernel",
    "signature": {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*bf16",
                  "M": "i32", "N": "i32", "K": "i32", "a_scale": "fp32", "b_scale": "fp32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128},
    "num_warps": 8,
    "num_stages": 4,
}
