# case4_FA_bwd: attention backward (dQ, dK, dV), f16, head dim 64, non-causal.
# Q, K, V, dO are [BH*N_CTX, 64] row-major 2D views, Q already scaled by 1/sqrt(64).
# M is the forward's base-2 log-sum-exp of Q·Kᵀ·log2(e) and Di = rowsum(dO ⊙ O), both f32
# [BH*N_CTX]. One program owns BLOCK_N rows of K and V of one (batch·head) and loops over the
# Q tiles of that head:
#   qkT = K·Qᵀ, pT = exp2(qkT·log2e − M), dV += pT·dO, dpT = V·dOᵀ, dsT = pT ⊙ (dpT − Di),
#   dK += dsT·Q, dQ += dsTᵀ·K (accumulated across programs by the descriptor's reduce-add into
#   the f32 dQ, which must be zero before the launch).
# Plain sequential Triton; the parameter order is the launch ABI of the generated kernel.
# N_CTX must be a multiple of BLOCK_N (128).
import triton
import triton.language as tl


@triton.jit
def attn_bwd_kernel(Q, K, V, DO, M, Di, DQ, DK, DV, BH, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0)
    bh = tl.program_id(1)
    rows = BH * N_CTX
    q_desc = tl.make_tensor_descriptor(Q, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    do_desc = tl.make_tensor_descriptor(DO, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                        block_shape=[BLOCK_M, HEAD_DIM])
    dq_desc = tl.make_tensor_descriptor(DQ, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                        block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    dk_desc = tl.make_tensor_descriptor(DK, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                        block_shape=[BLOCK_N, HEAD_DIM])
    dv_desc = tl.make_tensor_descriptor(DV, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                        block_shape=[BLOCK_N, HEAD_DIM])
    off = bh * N_CTX
    kv_row = off + pid_n * BLOCK_N
    k = k_desc.load([kv_row, 0])
    v = v_desc.load([kv_row, 0])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        q = q_desc.load([off + start_m, 0])
        do = do_desc.load([off + start_m, 0])
        m = tl.load(M + off + offs_m)
        qkT = tl.dot(k, q.T)
        pT = tl.math.exp2(qkT * 1.44269504 - m[None, :])
        dv = tl.dot(pT.to(tl.float16), do, dv)
        di = tl.load(Di + off + offs_m)
        dpT = tl.dot(v, do.T)
        dsT = (pT * (dpT - di[None, :])).to(tl.float16)
        dk = tl.dot(dsT, q, dk)
        dq = tl.dot(tl.trans(dsT), k)
        dq_desc.atomic_add([off + start_m, 0], dq)
    dk_desc.store([kv_row, 0], dk.to(tl.float16))
    dv_desc.store([kv_row, 0], dv.to(tl.float16))


DUMP = {
    "kernel": "attn_bwd_kernel",
    "signature": {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "DO": "*fp16", "M": "*fp32",
                  "Di": "*fp32", "DQ": "*fp32", "DK": "*fp16", "DV": "*fp16",
                  "BH": "i32", "N_CTX": "i32"},
    "constexprs": {"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 128},
    "num_warps": 8,
    "num_stages": 2,
}
