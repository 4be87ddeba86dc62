#!/usr/bin/env python3
"""Vendor baseline of case6_layernorm: torch.nn.functional.layer_norm on f16, in PyTorch.

`sched2cu bench` runs this as its own child (bench_spec.cpp names it in vendor_script()), after
the case's measurement child and under the same GPU lock, and merges the result into the vendor
column; the protocol is in docs/harness.md ("Vendor scripts") and is the one of
examples/case3_FA/vendor_cudnn.py. PyTorch's LayerNorm is what a user of this case would call
instead of the kernel; it has no C++ library route the harness links (it lives in libtorch).

For each shape MxN (the spec's timed shapes; N = 512) it builds its own inputs like the spec
(f16 X ~ N(1, 2), W ~ N(1, 0.5), B ~ N(0, 0.5), seeded from --seed and the shape index), runs
torch.nn.functional.layer_norm(X, (N,), W, B, eps=1e-5), checks Y against an f64 reference of
the same math (biased variance, rstd = 1/sqrt(var + eps) with eps rounded to f32 as the kernels
take it) with the harness's relative error, and times the call the way src/bench/timing.cu times
kernels. It writes one JSON object to --out (stdout without it): {"unavailable": "no torch"}
when torch cannot be imported, {"error": "..."} on any failure (exit 1), else the figures
(exit 0). It must never change the math (no fused residual, no other dtype, no autocast), so
that its figure is PyTorch's LayerNorm on the same bytes. Dependencies: torch and the standard
library only.
"""

import argparse
import json
import struct
import sys

EPS = 1e-5  # bench_spec.cpp kEps
EPS_F32 = struct.unpack("f", struct.pack("f", EPS))[0]  # what the kernels receive
FLUSH_BYTES = 256 << 20  # timing.h: BenchOptions::flush_bytes
ESTIMATE_CALLS = 5  # BenchOptions::estimate_calls
MAX_REPEATS = 100000  # BenchOptions::max_repeats


class ShapeError(Exception):
    """A failure at one shape, its message already naming the shape and the cause."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", required=True, help="comma-separated MxN, e.g. 16384x512,65536x512")
    p.add_argument("--tol", type=float, default=2e-3, help="relative-error tolerance")
    p.add_argument("--seed", type=int, default=0, help="the harness's --seed")
    p.add_argument("--warmup-ms", type=float, default=50.0)
    p.add_argument("--rep-ms", type=float, default=200.0)
    p.add_argument("--out", help="result file (default: stdout)")
    return p.parse_args(argv)


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = item.strip().split("x")
        if len(dims) != 2 or not all(d.isdigit() and int(d) > 0 for d in dims):
            raise ValueError(f"bad shape {item!r}: expected MxN with positive integers")
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


def reference(torch, x, w, b):
    """Y in f64 from the f16 inputs: mean, biased variance of the centred row,
    rstd = 1/sqrt(var + eps), y = (x - mean)·rstd·w + b."""
    xd = x.double()
    mean = xd.mean(dim=1, keepdim=True)
    xc = xd - mean
    var = (xc * xc).mean(dim=1, keepdim=True)
    return xc * (1.0 / torch.sqrt(var + EPS_F32)) * w.double() + b.double()


def do_bench(torch, fn, flush, warmup_ms, rep_ms):
    """src/bench/timing.cu do_bench: one untimed call; an estimate from ESTIMATE_CALLS calls each
    after the L2 flush; max(1, warmup/estimate) unflushed warmup calls; max(1, rep/estimate) timed
    calls, each after the flush (outside the events) and between CUDA events; median. All on the
    current stream, which is the legacy default stream here, as in the harness. The flush is
    zero_() on a 256 MiB buffer (a fill kernel where the harness uses cudaMemsetAsync, as
    triton.testing.do_bench does): both write every byte through the L2 outside the events.
    The same function as examples/case3_FA/vendor_cudnn.py's (tests/harness checks both)."""
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


def randn_f16(torch, shape, seed, mean, std):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    x = torch.randn(shape, generator=g, device="cuda", dtype=torch.float32)
    return (x * std + mean).to(torch.float16)


def layer_norm(torch, x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)


def measure_shape(torch, index, shape, args, flush):
    m, n = shape
    label = f"{m}x{n}"
    base = args.seed * 1000003 + index  # measure.cpp's per-shape seed
    x = randn_f16(torch, (m, n), base * 3 + 1, 1.0, 2.0)
    w = randn_f16(torch, (n,), base * 3 + 2, 1.0, 0.5)
    b = randn_f16(torch, (n,), base * 3 + 3, 0.0, 0.5)
    y = layer_norm(torch, x, w, b)
    torch.cuda.synchronize()
    if tuple(y.shape) != (m, n) or y.dtype != torch.float16:
        raise RuntimeError(f"layer_norm returned {y.dtype} {tuple(y.shape)}, not f16 ({m}, {n})")
    y_ref = reference(torch, x, w, b)
    rel, nan = rel_error(y, y_ref)
    ok = nan == 0 and rel is not None and rel <= args.tol
    outputs = [{"name": "Y", "tol": args.tol, "rel_vendor_vs_ref": rel, "vendor_nan": nan}]
    del y, y_ref
    timing = do_bench(torch, lambda: layer_norm(torch, x, w, b), flush, args.warmup_ms,
                      args.rep_ms)
    print(f"  PyTorch layer_norm {label}: {'correct' if ok else 'FAILS its check'}, "
          f"median {timing['median_ms']:.4f} ms", file=sys.stderr, flush=True)
    return {"shape": [m, n], "label": label, "vendor_ok": ok, "outputs": outputs,
            "vendor": timing}


def run(torch, args):
    shapes = parse_shapes(args.shapes)
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    results = []
    for i, shape in enumerate(shapes):
        try:
            results.append(measure_shape(torch, i, shape, args, flush))
        except Exception as e:
            raise ShapeError(f"{type(e).__name__} at {'x'.join(map(str, shape))}: {e}") from e
        torch.cuda.empty_cache()  # the next shape's f64 reference needs the room
    return {"vendor_name": "PyTorch", "route": "torch.nn.functional.layer_norm",
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(), "seed": args.seed, "tol": args.tol,
            "eps": EPS, "shapes": results}


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
