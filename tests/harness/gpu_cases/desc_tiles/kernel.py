# desc_tiles: a plain Triton kernel for the tests with no loop that moves 2-D tiles through tensor
# descriptors: each program loads a [32, 64] f32 tile of X, stores 2x as f16 into Y, and
# reduce-adds x + 1 into Z (`desc.atomic_add`, f32; the harness zeroes Z before each call). The
# loads are plain loads into registers (nothing to pipeline, no producer warpgroup); the store and
# the reduce-add go through shared memory and TMA. Partial tiles at the tensor's edges. The
# parameter order is the launch ABI; do not change it.
import triton
import triton.language as tl


@triton.jit
def desc_tiles_kernel(x_ptr, y_ptr, z_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    z_desc = tl.make_tensor_descriptor(z_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = x_desc.load([pid_m * BM, pid_n * BN])
    y_desc.store([pid_m * BM, pid_n * BN], (x * 2.0).to(tl.float16))
    z_desc.atomic_add([pid_m * BM, pid_n * BN], x + 1.0)


DUMP = {
    "kernel": "desc_tiles_kernel",
    "signature": {"x_ptr": "*fp32", "y_ptr": "*fp16", "z_ptr": "*fp32", "M": "i32", "N": "i32"},
    "constexprs": {"BM": 32, "BN": 64},
    "num_warps": 4,
    "num_stages": 1,
}
