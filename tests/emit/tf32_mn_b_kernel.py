# The source of tests/emit/tf32_mn_b_input.ttgir (dumped with tools/dump_ttgir.py): tl.dot of an
# f32 A [M, K] and a B loaded as [K, N], which Triton transposes through registers into the
# K-major shared layout tf32 wgmma needs. The emitter refuses it (GemmFamily test).
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[128, 32])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[32, 128])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[128, 128])
    acc = tl.zeros((128, 128), dtype=tl.float32)
    for k in range(0, K, 32):
        acc = tl.dot(a_desc.load([pid_m * 128, k]), b_desc.load([k, pid_n * 128]), acc)
    c_desc.store([pid_m * 128, pid_n * 128], acc)


DUMP = {"kernel": "mm_kernel",
        "signature": {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
        "constexprs": {}, "num_warps": 8, "num_stages": 3}
