# case7_wgrad_bias: the weight and bias gradients of a linear layer y = x·Wᵀ + b, from the
# output gradient dout[M, K_out] and the activation act[M, N_in] (both row-major f16):
#   dW[K_out, N_in] = f16(doutᵀ · act)   (f32 accumulate, contraction over M)
#   db[K_out]       = Σ_m f32(dout[m, :]) (f32)
# Persistent: program pid walks output tiles pid, pid + NUM_SMS, ... of the 128x128 tile grid
# of dW in a grouped order. db is reduced by the programs whose tile has pid_n == 0, from the
# same dout tiles the MMA reads. Plain sequential Triton; the parameter order is the launch ABI.
import triton
import triton.language as tl


@triton.jit
def wgrad_bias_kernel(dout_ptr, act_ptr, dw_ptr, db_ptr, M, K_OUT, N_IN,
                      BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr,
                      GROUP_K: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(0)
    num_pid_k = tl.cdiv(K_OUT, BLOCK_K)
    num_pid_n = tl.cdiv(N_IN, BLOCK_N)
    num_tiles = num_pid_k * num_pid_n
    dout_desc = tl.make_tensor_descriptor(dout_ptr, shape=[M, K_OUT], strides=[K_OUT, 1],
                                          block_shape=[BLOCK_M, BLOCK_K])
    act_desc = tl.make_tensor_descriptor(act_ptr, shape=[M, N_IN], strides=[N_IN, 1],
                                         block_shape=[BLOCK_M, BLOCK_N])
    dw_desc = tl.make_tensor_descriptor(dw_ptr, shape=[K_OUT, N_IN], strides=[N_IN, 1],
                                        block_shape=[BLOCK_K, BLOCK_N])
    num_in_group = GROUP_K * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_in_group
        first_k = group_id * GROUP_K
        group_size = min(num_pid_k - first_k, GROUP_K)
        pid_k = first_k + (tile_id % num_in_group) % group_size
        pid_n = (tile_id % num_in_group) // group_size
        acc = tl.zeros((BLOCK_K, BLOCK_N), dtype=tl.float32)
        db = tl.zeros((BLOCK_K,), dtype=tl.float32)
        for m in range(0, M, BLOCK_M):
            d = dout_desc.load([m, pid_k * BLOCK_K])
            a = act_desc.load([m, pid_n * BLOCK_N])
            acc = tl.dot(d.T, a, acc)
            db += tl.sum(d.to(tl.float32), axis=0)
        dw_desc.store([pid_k * BLOCK_K, pid_n * BLOCK_N], acc.to(tl.float16))
        offs = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        tl.store(db_ptr + offs, db, mask=(offs < K_OUT) & (pid_n == 0))


DUMP = {
    "kernel": "wgrad_bias_kernel",
    "signature": {"dout_ptr": "*fp16", "act_ptr": "*fp16", "dw_ptr": "*fp16", "db_ptr": "*fp32",
                  "M": "i32", "K_OUT": "i32", "N_IN": "i32"},
    "constexprs": {"BLOCK_K": 128, "BLOCK_N": 128, "BLOCK_M": 64, "GROUP_K": 8, "NUM_SMS": 132},
    "num_warps": 8,
    "num_stages": 4,
}
