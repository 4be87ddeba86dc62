# attention_causal: case3_FA's attention forward (bf16, head dim 128, base-2 online softmax) with
# a causal mask, as a plain Triton kernel writes it: the key loop stops at the query tile's
# diagonal (its trip count depends on the program id) and every step masks the scores with
# tl.where(offs_m[:, None] >= offs_n[None, :], ...). The mask is an i1 tile of the accumulator
# layout, which the emitter evaluates per element inside the select (never in registers).
# Same launch ABI as case3_FA.
import triton
import triton.language as tl

@triton.jit
def attn_fwd_kernel(Q, K, V, O, M, sm_scale, Z, H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    rows = Z * H * N_CTX
    q_desc = tl.make_tensor_descriptor(Q, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(O, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    m_desc = tl.make_tensor_descriptor(M, shape=[Z * H * N_CTX], strides=[1], block_shape=[BLOCK_M])
    offset_y = off_hz * N_CTX
    q_row = offset_y + start_m * BLOCK_M
    # l_i starts at 1 as in the prior art; harmless because alpha = exp2(-inf) = 0 at step 0.
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.full([BLOCK_M], 1.0, dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e): exp(x) == exp2(x * log2(e))
    q = q_desc.load([q_row, 0])
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        k = k_desc.load([offset_y + start_n, 0])
        qk = tl.dot(q, k.T)
        offs_n = start_n + tl.arange(0, BLOCK_N)
        qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([offset_y + start_n, 0])
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_desc.store([q_row], m_i)
    o_desc.store([q_row, 0], acc.to(tl.bfloat16))


DUMP = {
    "kernel": "attn_fwd_kernel",
    "signature": {"Q": "*bf16", "K": "*bf16", "V": "*bf16", "O": "*bf16", "M": "*fp32",
                  "sm_scale": "fp32", "Z": "i32", "H": "i32", "N_CTX": "i32"},
    "constexprs": {"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 128},
    "num_warps": 8,
    "num_stages": 3,
}
