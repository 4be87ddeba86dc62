# gemm_residual: C = f16(gelu(f32(A · B) + f32(R)) * scale), the layer y = gelu(x·W + residual)
# with a full M x N f16 residual tile read through a tensor descriptor: A [M, K], B [K, N], R and
# C [M, N], all row-major f16. One 128x256 output tile per program on a 2-D grid; the residual is
# loaded before the K loop and read only by the epilogue, so the scheduler stages it through the
# C store's subtile slots (a staging fill at function scope, docs/scheduler.md). A GPU test of the
# harness, not a corpus case; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def gemm_residual_kernel(a_ptr, b_ptr, r_ptr, c_ptr, M, N, K, scale,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    r_desc = tl.make_tensor_descriptor(r_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    res = r_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    x = acc + res.to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)) * scale
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], y.to(tl.float16))


DUMP = {
    "kernel": "gemm_residual_kernel",
    "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "r_ptr": "*fp16", "c_ptr": "*fp16",
                  "M": "i32", "N": "i32", "K": "i32", "scale": "fp32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 4,
}
