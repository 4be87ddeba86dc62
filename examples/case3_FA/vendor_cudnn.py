#!/usr/bin/env python3
"""Vendor baseline of case3_FA: cuDNN's fused attention forward, called through PyTorch.

`sched2cu bench` runs this as its own child (bench_spec.cpp names it in vendor_script()), after
the case's measurement child and under the same GPU lock, and merges the result into the vendor
column; the protocol is in docs/harness.md ("Vendor scripts"). The C++ route to cuDNN's fused
attention (its backend API without cudnn-frontend) is impractical, hence Python.

For each shape it builds its own inputs (bf16 N(0,1), seeded), runs
torch.ops.aten._scaled_dot_product_cudnn_attention, checks O and the base-2 log-sum-exp against
an f64 reference of the same math with the harness's relative error, and times the call the way
src/bench/timing.cu times kernels. It writes one JSON object to --out (stdout without it):
{"unavailable": "no torch"} when torch cannot be imported, {"error": "..."} on any failure
(exit 1), else the figures (exit 0). It must never fall back to another attention backend: the
cuDNN op is called directly, so it runs cuDNN or raises. Dependencies: torch and the standard
library only.
"""

import argparse
import json
import math
import sys

HEAD_DIM = 128
FLUSH_BYTES = 256 << 20  # timing.h: BenchOptions::flush_bytes
ESTIMATE_CALLS = 5  # BenchOptions::estimate_calls
MAX_REPEATS = 100000  # BenchOptions::max_repeats
LOG2E = 1.0 / math.log(2.0)


class ShapeError(Exception):
    """A failure at one shape, its message already naming the shape and the cause."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", required=True, help="comma-separated ZxHxN_CTX, e.g. 1x4x512,1x8x1024")
    p.add_argument("--tol", type=float, default=1e-2, help="relative-error tolerance")
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
            raise ValueError(f"bad shape {item!r}: expected ZxHxN_CTX with positive integers")
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


def reference(torch, q, k, v, sm_scale):
    """O and the base-2 LSE in f64, one head at a time, in the kernel's base-2 form (see
    kernel.py): x = s·qk_scale, m = max x, l = Σ exp2(x − m), O = (exp2(x − m) / l)·V,
    M = m + log2(l)."""
    z, h, n, _ = q.shape
    qk_scale = sm_scale * LOG2E
    o = torch.empty((z, h, n, HEAD_DIM), dtype=torch.float64, device=q.device)
    m = torch.empty((z, h, n), dtype=torch.float64, device=q.device)
    for zi in range(z):
        for hi in range(h):
            x = (q[zi, hi].double() @ k[zi, hi].double().T) * qk_scale
            mx = x.amax(dim=1)
            p = torch.exp2(x - mx[:, None])
            l = p.sum(dim=1)
            o[zi, hi] = (p / l[:, None]) @ v[zi, hi].double()
            m[zi, hi] = mx + torch.log2(l)
            del x, p
    return o, m


def do_bench(torch, fn, flush, warmup_ms, rep_ms):
    """src/bench/timing.cu do_bench: one untimed call; an estimate from ESTIMATE_CALLS calls each
    after the L2 flush; max(1, warmup/estimate) unflushed warmup calls; max(1, rep/estimate) timed
    calls, each after the flush (outside the events) and between CUDA events; median. All on the
    current stream, which is the legacy default stream here, as in the harness. The flush is
    zero_() on a 256 MiB buffer (a fill kernel where the harness uses cudaMemsetAsync, as
    triton.testing.do_bench does): both write every byte through the L2 outside the events."""
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


def randn_bf16(torch, shape, seed):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return torch.randn(shape, generator=g, device="cuda", dtype=torch.float32).to(torch.bfloat16)


def cudnn_attention(torch, q, k, v, sm_scale):
    """cuDNN only: this op has no fallback backend, it runs cuDNN or raises."""
    return torch.ops.aten._scaled_dot_product_cudnn_attention(
        q, k, v, None, True, 0.0, False, False, scale=sm_scale)


def unpack(torch, res, z, h, n):
    """(output, logsumexp, ...) as torch 2.11 returns it; checked, never assumed."""
    if not isinstance(res, (tuple, list)) or len(res) < 2:
        raise RuntimeError(f"cuDNN attention returned {type(res).__name__}, not a tuple")
    o, lse = res[0], res[1]
    if tuple(o.shape) != (z, h, n, HEAD_DIM) or o.dtype != torch.bfloat16:
        raise RuntimeError(f"cuDNN attention output is {o.dtype} {tuple(o.shape)}")
    if lse is None or lse.numel() != z * h * n or lse.dtype != torch.float32:
        raise RuntimeError("cuDNN attention returned no f32 logsumexp of one value per query row"
                           f" ({None if lse is None else (lse.dtype, tuple(lse.shape))})")
    return o, lse.reshape(z, h, n)  # [Z,H,N] or [Z,H,N,1] depending on the layout torch chose


def measure_shape(torch, index, shape, args, flush):
    z, h, n = shape
    label = f"{z}x{h}x{n}"
    base = args.seed * 1000003 + index  # measure.cpp's per-shape seed
    q, k, v = (randn_bf16(torch, (z, h, n, HEAD_DIM), base * 3 + t + 1) for t in range(3))
    sm_scale = 1.0 / math.sqrt(HEAD_DIM)
    o, lse = unpack(torch, cudnn_attention(torch, q, k, v, sm_scale), z, h, n)
    torch.cuda.synchronize()
    o_ref, m_ref = reference(torch, q, k, v, sm_scale)
    outputs, ok = [], True
    # LSE: cuDNN's is natural-log based; the kernels write log2 (M = lse / ln 2).
    for name, got, want in (("O", o, o_ref), ("M", lse.double() * LOG2E, m_ref)):
        rel, nan = rel_error(got, want)
        ok = ok and nan == 0 and rel is not None and rel <= args.tol
        outputs.append({"name": name, "tol": args.tol, "rel_vendor_vs_ref": rel, "vendor_nan": nan})
    del o, lse, o_ref, m_ref
    timing = do_bench(torch, lambda: cudnn_attention(torch, q, k, v, sm_scale), flush,
                      args.warmup_ms, args.rep_ms)
    print(f"  cuDNN {label}: {'correct' if ok else 'FAILS its check'}, "
          f"median {timing['median_ms']:.4f} ms", file=sys.stderr, flush=True)
    return {"shape": [z, h, n], "label": label, "vendor_ok": ok, "outputs": outputs,
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
            results.append(measure_shape(torch, i, shape, args, flush))
        except Exception as e:
            raise ShapeError(f"{type(e).__name__} at {'x'.join(map(str, shape))}: {e}") from e
        torch.cuda.empty_cache()  # the next shape's f64 reference needs the room
    return {"vendor_name": "cuDNN", "route": "torch.ops.aten._scaled_dot_product_cudnn_attention",
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
