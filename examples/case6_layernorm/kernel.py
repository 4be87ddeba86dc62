# case6_layernorm: LayerNorm forward over rows of X[M, 512], f16 in/out, f32 math.
#   y = (x - mean) * rstd * w + b,  rstd = 1 / sqrt(var + eps),  var biased.
# Persistent: program pid handles row tiles pid, pid + num_programs, ...; each tile is BLOCK_M
# rows loaded and stored through tensor descriptors (TMA). w and b are loaded once.
# The parameter order is the launch ABI of the generated kernel (README.md); do not change it.
import triton
import triton.language as tl

@triton.jit
def layernorm_fwd_kernel(X, W, B, Y, M, eps, N: tl.constexpr, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    x_desc = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, N])
    y_desc = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, N])
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    b = tl.load(B + cols).to(tl.float32)
    num_tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(pid, num_tiles, num_programs):
        x = x_desc.load([tile * BLOCK_M, 0]).to(tl.float32)
        mean = tl.sum(x, axis=1) / N
        xc = x - mean[:, None]
        var = tl.sum(xc * xc, axis=1) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        y = xc * rstd[:, None] * w[None, :] + b[None, :]
        y_desc.store([tile * BLOCK_M, 0], y.to(tl.float16))


DUMP = {
    "kernel": "layernorm_fwd_kernel",
    "signature": {"X": "*fp16", "W": "*fp16", "B": "*fp16", "Y": "*fp16", "M": "i32",
                  "eps": "fp32"},
    "constexprs": {"N": 512, "BLOCK_M": 8},
    "num_warps": 4,
    "num_stages": 3,
}
