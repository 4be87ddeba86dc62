# case8_multiphase_gemm: one kernel, three GEMMs in sequence per program: C1 = A1·B1 (f16),
# C2 = A2·B2 (f16), C3 = A3·B3 (bf16), f32 accumulate, all [M, K]·[K, N] row-major, one output
# tile of each per program (128x256 tiles on a 2-D grid over C, the same for all three).
# The three K loops are scheduled one after the other; their rings share one shared-memory
# pool. Plain sequential Triton; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def multiphase_kernel(a1_ptr, b1_ptr, c1_ptr, a2_ptr, b2_ptr, c2_ptr, a3_ptr, b3_ptr, c3_ptr,
                      M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a1 = tl.make_tensor_descriptor(a1_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b1 = tl.make_tensor_descriptor(b1_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c1 = tl.make_tensor_descriptor(c1_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    a2 = tl.make_tensor_descriptor(a2_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b2 = tl.make_tensor_descriptor(b2_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c2 = tl.make_tensor_descriptor(c2_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    a3 = tl.make_tensor_descriptor(a3_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b3 = tl.make_tensor_descriptor(b3_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c3 = tl.make_tensor_descriptor(c3_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc = tl.dot(a1.load([pid_m * BLOCK_M, k]), b1.load([k, pid_n * BLOCK_N]), acc)
    c1.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc = tl.dot(a2.load([pid_m * BLOCK_M, k]), b2.load([k, pid_n * BLOCK_N]), acc)
    c2.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc = tl.dot(a3.load([pid_m * BLOCK_M, k]), b3.load([k, pid_n * BLOCK_N]), acc)
    c3.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.bfloat16))


DUMP = {
    "kernel": "multiphase_kernel",
    "signature": {"a1_ptr": "*fp16", "b1_ptr": "*fp16", "c1_ptr": "*fp16",
                  "a2_ptr": "*fp16", "b2_ptr": "*fp16", "c2_ptr": "*fp16",
                  "a3_ptr": "*bf16", "b3_ptr": "*bf16", "c3_ptr": "*bf16",
                  "M": "i32", "N": "i32", "K": "i32"},
    "constexprs": {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    "num_warps": 8,
    "num_stages": 4,
}
