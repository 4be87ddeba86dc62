# A blocked tile (loaded through pointers) reduce-added into an f16 tensor by
# `desc.atomic_add` (tt.descriptor_reduce add): the emitter's blocked-tile store path issued a
# plain TMA store for it (tests/emit/test_blocked.cpp). Its TTGIR is committed beside it as
# desc_reduce_input.ttgir, dumped by tools/dump_ttgir.py.
import triton
import triton.language as tl


@triton.jit
def dred_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=rows[:, None] < M, other=0.0)
    y_desc.atomic_add([pid * BM, 0], (x * 2.0).to(tl.float16))


DUMP = {"kernel": "dred_kernel", "signature": {"x_ptr": "*fp32", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
        "constexprs": {"BM": 32, "BN": 64}, "num_warps": 4, "num_stages": 1}
