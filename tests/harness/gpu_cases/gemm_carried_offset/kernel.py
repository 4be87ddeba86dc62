# gemm_carried_offset: C = A · B (f16) with the K offset carried by the loop (`offs_k += BLOCK_K`),
# as many users write it instead of deriving it from the induction variable. The offset is the
# producer's (it addresses the TMA loads), the accumulator the consumer's; the offset's final value
# is never read. A GPU test of the harness, not a corpus case; the parameter order is the launch
# ABI.
import triton
import triton.language as tl


@triton.jit
def gemm_carried_offset_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    offs_k = 0
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, offs_k])
        b = b_desc.load([offs_k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
        offs_k += BLOCK_K
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


DUMP = {
    "kernel": "gemm_carried_offset_kernel",
    "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
                  "M": "i32", "N": "i32", "K": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 3,
}
