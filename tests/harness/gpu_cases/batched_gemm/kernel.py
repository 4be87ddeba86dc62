# batched_gemm: C[z] = f16(A[z] · B[z]) for z < BATCH (f16 in, f32 accumulate), the batch on the
# third grid axis (tl.program_id(2)). Each batch's matrices are stacked along the rows of one
# 2-D tensor (A [BATCH*M, K], B [BATCH*K, N], C [BATCH*M, N]), so a batch is a row offset; a
# tile must not straddle two batches, so M is a multiple of BLOCK_M and K of BLOCK_K (the test's
# shapes are). A GPU test of the harness, not a corpus case; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def batched_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BATCH,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[BATCH * M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[BATCH * K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[BATCH * M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([z * M + pid_m * BLOCK_M, k])
        b = b_desc.load([z * K + k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([z * M + pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


DUMP = {
    "kernel": "batched_gemm_kernel",
    "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
                  "M": "i32", "N": "i32", "K": "i32", "BATCH": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 4,
}
