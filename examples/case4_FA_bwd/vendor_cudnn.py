#!/usr/bin/env python3
"""Vendor baseline of case4_FA_bwd: cuDNN's attention backward (dQ, dK, dV), called through PyTorch.

`sched2cu bench` runs this as its own child (bench_spec.cpp names it in vendor_script()), after
the case's measurement child and under the same GPU lock, and merges the result into the vendor
column; the protocol is in docs/harness.md ("Vendor scripts"). The C++ route to cuDNN's fused
attention (its backend API without cudnn-frontend) is impractical, hence Python.

For each BHxNxD shape (D = 64) it builds its own inputs as the spec distributes them: f16
[1, BH, N, 64] (one batch of BH heads, contiguous), Q pre-scaled (N(0,1)·0.125) with the
attention scale 1.0, so its gradients are the very DQ, DK, DV the kernels write; K, V, dO
N(0,1). It runs cuDNN's forward once, untimed (torch.ops.aten._scaled_dot_product_cudnn_attention
with the log-sum-exp), then checks the backward's three gradients against an f64 reference of
its own (from Q, K, V, dO alone, never from cuDNN's forward) with the harness's relative error,
and times the backward op alone, torch.ops.aten._scaled_dot_product_cudnn_attention_backward,
the op PyTorch's autograd runs for SDPA's cuDNN backend, the way src/bench/timing.cu times
kernels. The timed region holds that op's cuDNN work and nothing else: no forward, no autograd
engine, no layout fix-up (dO is laid out like the forward's output). That work includes
rowsum(dO ⊙ O), which the case's kernels get as their Di input (they in turn pay for the
zeroing of DQ). It writes one JSON
object to --out (stdout without it): {"unavailable": "no torch"} when torch cannot be imported,
{"error": "..."} on any failure (exit 1), else the figures (exit 0). It must never fall back to
another attention backend: the cuDNN ops are called directly, so they run cuDNN or raise, and
the script first checks that SDPA itself, restricted to SDPBackend.CUDNN_ATTENTION, takes that
same op for these inputs. Dependencies: torch and the standard library only.
"""

import argparse
import json
import math
import sys

HEAD_DIM = 64
Q_STD = 1.0 / math.sqrt(HEAD_DIM)  # the spec's pre-scaled query (bench_spec.cpp kQueryStd)
FLUSH_BYTES = 256 << 20  # timing.h: BenchOptions::flush_bytes
ESTIMATE_CALLS = 5  # BenchOptions::estimate_calls
MAX_REPEATS = 100000  # BenchOptions::max_repeats
OUTPUTS = ("DQ", "DK", "DV")  # the spec's output names, in its order


class ShapeError(Exception):
    """A failure at one shape, its message already naming the shape and the cause."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", required=True, help="comma-separated BHxNxD (D = 64), e.g. 1x256x64")
    p.add_argument("--tol", type=float, default=3e-2, help="relative-error tolerance")
    p.add_argument("--seed", type=int, default=0, help="the harness's --seed")
    p.add_argument("--warmup-ms", type=float, default=50.0)
    p.add_argument("--rep-ms", type=float, default=200.0)
    p.add_argument("--out", help="result file (default: stdout)")
    return p.parse_args(argv)


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = item.strip().split("x")
        if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
            raise ValueError(f"bad shape {item!r}: expected BHxNxD with positive integers")
        if int(dims[2]) != HEAD_DIM:
            raise ValueError(f"bad shape {item!r}: the head dim must be {HEAD_DIM}")
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def rel_error(a, b):
    """The harness's check (device_ops.h rel_error): max|a-b| / max(max|b|, 1e-9); None when any
    NaN is met. Returns (rel, NaN count in a)."""
    a, b = a.double(), b.double()
    nan_a = int(a.isnan().sum().item())
    if nan_a or bool(b.isnan().any().item()):
        return None, nan_a
    denom = max(b.abs().max().item(), 1e-9)
    return (a - b).abs().max().item() / denom, 0


def reference(torch, q, k, v, do):
    """dQ, dK, dV in f64, one head at a time, of attention with scale 1 (q is pre-scaled):
    P = softmax(Q·Kᵀ), O = P·V, Di = rowsum(dO ⊙ O), dV = Pᵀ·dO, dP = dO·Vᵀ,
    dS = P ⊙ (dP − Di), dQ = dS·K, dK = dSᵀ·Q. Its own forward: nothing of cuDNN's is used."""
    _, bh, n, _ = q.shape
    grads = [torch.empty((1, bh, n, HEAD_DIM), dtype=torch.float64, device=q.device)
             for _ in OUTPUTS]
    for h in range(bh):
        qh, kh, vh, doh = (t[0, h].double() for t in (q, k, v, do))
        s = qh @ kh.T
        p = torch.exp(s - s.amax(dim=1, keepdim=True))
        p /= p.sum(dim=1, keepdim=True)
        di = (doh * (p @ vh)).sum(dim=1, keepdim=True)
        ds = p * (doh @ vh.T - di)
        grads[0][0, h] = ds @ kh
        grads[1][0, h] = ds.T @ qh
        grads[2][0, h] = p.T @ doh
        del s, p, ds
    return grads


def do_bench(torch, fn, flush, warmup_ms, rep_ms):
    """src/bench/timing.cu do_bench: one untimed call; an estimate from ESTIMATE_CALLS calls each
    after the L2 flush; max(1, warmup/estimate) unflushed warmup calls; max(1, rep/estimate) timed
    calls, each after the flush (outside the events) and between CUDA events; median. All on the
    current stream, which is the legacy default stream here, as in the harness. The flush is
    zero_() on a 256 MiB buffer (a fill kernel where the harness uses cudaMemsetAsync, as
    triton.testing.do_bench does): both write every byte through the L2 outside the events.
    Line for line case3_FA's vendor_cudnn.py do_bench."""
    fn()
    torch.cuda.synchronize()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(ESTIMATE_CALLS):
        flush.zero_()
        fn()
    e1.record()
    e1.synchronize()
    estimate = e0.elapsed_time(e1) / ESTIMATE_CALLS

    est = max(estimate, 1e-4)  # bench_iterations: a zero estimate must not divide by zero

    def clamp(x):
        return MAX_REPEATS if not x < MAX_REPEATS else max(1, int(x))

    warmup, repeat = clamp(warmup_ms / est), clamp(rep_ms / est)
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeat)]
    for i in range(repeat):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ms = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    n = len(ms)
    median = ms[n // 2] if n % 2 else 0.5 * (ms[n // 2 - 1] + ms[n // 2])
    return {"median_ms": median, "min_ms": ms[0], "max_ms": ms[-1], "count": n,
            "warmup": warmup, "estimate_ms": estimate}


def randn_f16(torch, shape, seed, std=1.0):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    x = torch.randn(shape, generator=g, device="cuda", dtype=torch.float32)
    return (x * std).to(torch.float16)


def cudnn_forward(torch, q, k, v):
    """cuDNN only (no fallback backend: it runs cuDNN or raises), with the log-sum-exp the
    backward needs. Returns (out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, philox_seed,
    philox_offset, debug_attn_mask), checked, never assumed."""
    res = torch.ops.aten._scaled_dot_product_cudnn_attention(
        q, k, v, None, True, 0.0, False, False, scale=1.0)
    if not isinstance(res, (tuple, list)) or len(res) < 8:
        raise RuntimeError(f"cuDNN attention returned {type(res).__name__}, not its 9-tuple")
    o, lse = res[0], res[1]
    if tuple(o.shape) != tuple(q.shape) or o.dtype != torch.float16:
        raise RuntimeError(f"cuDNN attention output is {o.dtype} {tuple(o.shape)}")
    if lse is None or lse.numel() != q.numel() // HEAD_DIM or lse.dtype != torch.float32:
        raise RuntimeError("cuDNN attention returned no f32 logsumexp of one value per query row"
                           f" ({None if lse is None else (lse.dtype, tuple(lse.shape))})")
    return res


def cudnn_backward(torch, do, q, k, v, fwd):
    """cuDNN only, as autograd's ScaledDotProductCudnnAttentionBackward0 calls it (scale 1.0, no
    bias, no dropout, non-causal); returns (dQ, dK, dV)."""
    return torch.ops.aten._scaled_dot_product_cudnn_attention_backward(
        do, q, k, v, fwd[0], fwd[1], fwd[6], fwd[7], None, fwd[2], fwd[3], fwd[4], fwd[5], 0.0,
        False, scale=1.0)


def check_sdpa_route(torch, q, k, v):
    """SDPA restricted to SDPBackend.CUDNN_ATTENTION must record the cuDNN op's backward for
    these inputs (it raises where cuDNN cannot take them): so the op timed here is the one a
    PyTorch user's SDPA backward runs with that backend."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    qs, ks, vs = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    # enable_grad: the shape runs under no_grad, where SDPA would record no backward at all.
    with torch.enable_grad(), sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        out = torch.nn.functional.scaled_dot_product_attention(qs, ks, vs, scale=1.0)
    node = type(out.grad_fn).__name__ if out.grad_fn is not None else "no grad_fn"
    if "Cudnn" not in node:
        raise RuntimeError(f"SDPA with SDPBackend.CUDNN_ATTENTION recorded {node}, not cuDNN's "
                           "backward")
    del qs, ks, vs, out


def measure_shape(torch, index, shape, args, flush):
    bh, n, _ = shape
    label = f"{bh}x{n}x{HEAD_DIM}"
    dims = (1, bh, n, HEAD_DIM)
    base = args.seed * 1000003 + index  # measure.cpp's per-shape seed
    q = randn_f16(torch, dims, base * 4 + 1, Q_STD)
    k, v, do_src = (randn_f16(torch, dims, base * 4 + t + 1) for t in (1, 2, 3))
    check_sdpa_route(torch, q, k, v)
    fwd = cudnn_forward(torch, q, k, v)
    # dO in the forward output's strides: the backward op would otherwise copy it into them
    # inside the timed region (empty_like keeps a dense tensor's strides).
    do = torch.empty_like(fwd[0])
    do.copy_(do_src)
    del do_src
    grads = cudnn_backward(torch, do, q, k, v, fwd)
    if not isinstance(grads, (tuple, list)) or len(grads) != 3:
        raise RuntimeError(f"cuDNN attention backward returned {type(grads).__name__}, not "
                           "(dQ, dK, dV)")
    for name, g in zip(OUTPUTS, grads):
        if tuple(g.shape) != dims or g.dtype != torch.float16:
            raise RuntimeError(f"cuDNN attention backward {name} is {g.dtype} {tuple(g.shape)}")
    torch.cuda.synchronize()
    refs = reference(torch, q, k, v, do)
    outputs, ok = [], True
    for name, got, want in zip(OUTPUTS, grads, refs):
        rel, nan = rel_error(got, want)
        ok = ok and nan == 0 and rel is not None and rel <= args.tol
        outputs.append({"name": name, "tol": args.tol, "rel_vendor_vs_ref": rel, "vendor_nan": nan})
    del grads, refs
    timing = do_bench(torch, lambda: cudnn_backward(torch, do, q, k, v, fwd), flush,
                      args.warmup_ms, args.rep_ms)
    print(f"  cuDNN backward {label}: {'correct' if ok else 'FAILS its check'}, "
          f"median {timing['median_ms']:.4f} ms", file=sys.stderr, flush=True)
    return {"shape": [bh, n, HEAD_DIM], "label": label, "vendor_ok": ok, "outputs": outputs,
            "vendor": timing}


def run(torch, args):
    shapes = parse_shapes(args.shapes)
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    if not torch.backends.cudnn.is_available():
        raise RuntimeError(f"torch {torch.__version__} has no usable cuDNN")
    # The reference is f64; keep any f32 matmul exact too.
    torch.backends.cuda.matmul.allow_tf32 = False
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    results = []
    for i, shape in enumerate(shapes):
        try:
            with torch.no_grad():  # the ops are called directly: no autograd graph anywhere
                results.append(measure_shape(torch, i, shape, args, flush))
        except Exception as e:
            raise ShapeError(f"{type(e).__name__} at {'x'.join(map(str, shape))}: {e}") from e
        torch.cuda.empty_cache()  # the next shape's f64 reference needs the room
    return {"vendor_name": "cuDNN",
            "route": "torch.ops.aten._scaled_dot_product_cudnn_attention_backward",
            "timed": "the backward op alone: forward untimed, dO in the output's layout",
            "layout": "[1, BH, N, 64] f16, Q pre-scaled, scale 1.0",
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(),
            "seed": args.seed, "tol": args.tol, "shapes": results}


def emit(result, out):
    text = json.dumps(result) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main(argv):
    args = parse_args(argv)
    try:
        import torch  # imported here so that a machine without it still gets an answer
    except ImportError:
        emit({"unavailable": "no torch"}, args.out)
        return 2
    except Exception as e:  # a broken install (missing CUDA libraries, ...) is an error
        emit({"error": f"cannot import torch: {type(e).__name__}: {e}"}, args.out)
        return 1
    try:
        result = run(torch, args)
    except Exception as e:
        # Any failure is this vendor's error cell, never a crash without a result.
        emit({"error": str(e) if isinstance(e, ShapeError) else f"{type(e).__name__}: {e}"},
             args.out)
        return 1
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
