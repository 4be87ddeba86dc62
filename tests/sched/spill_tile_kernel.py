# The source of tests/sched/spill_tile_input.ttgir (tools/dump_ttgir.py): a plain GEMM with a 256x256
# f32 accumulator over 8 warps, 256 accumulator registers per consumer thread before anything
# else. `sched2cu schedule` writes its graph and warns that it will spill (tests/cli).
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, K, BK):
        acc = tl.dot(a_desc.load([pid_m * BM, kk]), b_desc.load([kk, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


DUMP = {"kernel": "k", "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
        "constexprs": {"BM": 256, "BN": 256, "BK": 64}, "num_warps": 8, "num_stages": 3}
