# A kernel without loops that reads and writes its tile through tensor descriptors (a scaled copy):
# the load becomes a plain load into registers (nothing to pipeline, no producer warpgroup) and the
# store a TMA store. emit refused it ("a load before the loops needs a resident buffer and
# channel"; tests/emit/test_blocked.cpp). Its TTGIR is committed beside it as
# desc_scale_input.ttgir, dumped by tools/dump_ttgir.py.
import triton
import triton.language as tl


@triton.jit
def desc_scale_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = x_desc.load([pid * BM, 0])
    y_desc.store([pid * BM, 0], (x * 2.0).to(tl.float16))


DUMP = {"kernel": "desc_scale_kernel",
        "signature": {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
        "constexprs": {"BM": 32, "BN": 64}, "num_warps": 4, "num_stages": 1}
