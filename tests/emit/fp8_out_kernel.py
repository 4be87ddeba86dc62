# The source of tests/emit/fp8_out_input.ttgir (tools/dump_ttgir.py): a bf16 GEMM whose epilogue
# quantizes the accumulator to fp8 (acc.to(tl.float8e4nv)); the emitter converts the tile where
# it is stored, in 128-byte boxes of fp8 (test_gemm_family.cpp).
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, M, N, K, scale):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[128, 64])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[128, 64])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[128, 128])
    acc = tl.zeros((128, 128), dtype=tl.float32)
    for kk in range(0, K, 64):
        acc = tl.dot(a_desc.load([pid_m * 128, kk]), b_desc.load([pid_n * 128, kk]).T, acc)
    c_desc.store([pid_m * 128, pid_n * 128], (acc * scale).to(tl.float8e4nv))


DUMP = {"kernel": "k", "signature": {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp8e4nv", "M": "i32", "N": "i32", "K": "i32", "scale": "fp32"},
        "constexprs": {}, "num_warps": 8, "num_stages": 3}
