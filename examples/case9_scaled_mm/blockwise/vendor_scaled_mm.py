#!/usr/bin/env python3
"""Vendor baseline of case9_scaled_mm/blockwise: PyTorch's blockwise torch._scaled_mm (cuBLASLt).

`sched2cu bench` runs this as its own child (bench_spec.cpp names it in vendor_script()), after
the case's measurement child and under the same GPU lock; the protocol is in docs/harness.md
("Vendor scripts"). For each MxNxK shape it builds its own inputs the way bench_spec.cpp
distributes them (A, B N(0,1) rounded to e4m3; scales U(0.25, 2); seeded), calls
torch._scaled_mm(A, Bᵀ) with the DeepSeek recipe (scale_a 1x128 blocks, [M, K/128] M-major;
scale_b 128x128 blocks), checks D against an f32 reference of the same math with the harness's
relative error, and times the call as src/bench/timing.cu times kernels. Beside it, the
tensor-wise fp8 GEMM of the same A and B (one scale each) is timed as the fp8 throughput ceiling
of this GPU: it is reported on stderr and as `tensorwise` in each shape's JSON, never as the
vendor figure. Output: one JSON object to --out, {"unavailable": ...} without torch,
{"error": ...} (exit 1) on any failure. Never falls back to another GEMM for the vendor figure.
"""

import argparse
import json
import sys

FLUSH_BYTES = 256 << 20  # timing.h: BenchOptions::flush_bytes
ESTIMATE_CALLS = 5  # BenchOptions::estimate_calls
MAX_REPEATS = 100000  # BenchOptions::max_repeats
GROUP = 128


class ShapeError(Exception):
    """A failure at one shape, its message already naming the shape and the cause."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", required=True, help="comma-separated MxNxK, e.g. 1024x1024x1024")
    p.add_argument("--tol", type=float, default=5e-2, help="relative-error tolerance")
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
            raise ValueError(f"bad shape {item!r}: expected MxNxK with positive integers")
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def rel_error(a, b):
    """device_ops.h rel_error: max|a-b| / max(max|b|, 1e-9); None when any NaN is met."""
    a, b = a.double(), b.double()
    nan_a = int(a.isnan().sum().item())
    if nan_a or bool(b.isnan().any().item()):
        return None, nan_a
    denom = max(b.abs().max().item(), 1e-9)
    return (a - b).abs().max().item() / denom, 0


def do_bench(torch, fn, flush, warmup_ms, rep_ms):
    """src/bench/timing.cu do_bench: one untimed call, an estimate from ESTIMATE_CALLS flushed
    calls, max(1, warmup/estimate) warmup calls, max(1, rep/estimate) timed calls each after the
    L2 flush (outside the events), median."""
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
    est = max(estimate, 1e-4)

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


def inputs(torch, shape, seed):
    m, n, k = shape
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    groups, nblocks = -(-k // GROUP), -(-n // GROUP)
    a = torch.randn((m, k), generator=g, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn((n, k), generator=g, device="cuda").to(torch.float8_e4m3fn)
    sa = torch.rand((groups, m), generator=g, device="cuda") * 1.75 + 0.25  # [K/128, M]
    sb = torch.rand((nblocks, groups), generator=g, device="cuda") * 1.75 + 0.25
    return a, b, sa, sb


def reference(torch, a, b, sa, sb):
    """(A ⊙ SA) · (B ⊙ SB)ᵀ in f32: a group's scale is a row factor of A times one of B."""
    k = a.shape[1]
    col_group = torch.arange(k, device="cuda") // GROUP
    sa_full = sa.t()[:, col_group]  # [M, K]
    sb_full = sb.repeat_interleave(GROUP, dim=0)[: b.shape[0]][:, col_group]  # [N, K]
    return (a.float() * sa_full) @ (b.float() * sb_full).t()


def scale_b_forms(sb):
    """The layouts cuBLASLt's 128x128 recipe may be asked for through torch._scaled_mm: the
    [N/128, K/128] row-major tensor and its transpose, as a view and contiguous."""
    return [("[N/128,K/128]", sb), ("[K/128,N/128] view", sb.t()),
            ("[K/128,N/128] contiguous", sb.t().contiguous())]


def blockwise_call(torch, a, b, sa, sb):
    # scale_a: [M, K/128] with stride (1, M), the M-major layout the 1x128 recipe asks for.
    return torch._scaled_mm(a, b.t(), scale_a=sa.t(), scale_b=sb, out_dtype=torch.bfloat16)


def measure_shape(torch, index, shape, args, flush):
    m, n, k = shape
    label = f"{m}x{n}x{k}"
    a, b, sa, sb = inputs(torch, shape, args.seed * 1000003 + index)
    want = reference(torch, a, b, sa, sb)
    chosen, errors, rel, nan = None, [], None, 0
    for name, form in scale_b_forms(sb):
        try:
            d = blockwise_call(torch, a, b, sa, form)
            torch.cuda.synchronize()
        except Exception as e:  # this layout is refused: try the next
            errors.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        rel, nan = rel_error(d, want)
        if nan == 0 and rel is not None and rel <= args.tol:
            chosen = (name, form)
            break
        errors.append(f"{name}: ran, relative error {rel} (NaN {nan})")
    if chosen is None:
        raise RuntimeError("no scale_b layout gave a correct blockwise _scaled_mm: " +
                           "; ".join(errors))
    form = chosen[1]
    timing = do_bench(torch, lambda: blockwise_call(torch, a, b, sa, form), flush,
                      args.warmup_ms, args.rep_ms)
    one = torch.ones((), device="cuda")
    tensorwise = do_bench(
        torch, lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16),
        flush, args.warmup_ms, args.rep_ms)
    tflops = lambda t: 2.0 * m * n * k / (t["median_ms"] * 1e-3) / 1e12
    print(f"  _scaled_mm {label}: blockwise (scale_b {chosen[0]}) correct, "
          f"{tflops(timing):.0f} TFLOPS; tensor-wise fp8 ceiling {tflops(tensorwise):.0f} TFLOPS",
          file=sys.stderr, flush=True)
    return {"shape": [m, n, k], "label": label, "vendor_ok": True, "scale_b_layout": chosen[0],
            "outputs": [{"name": "d", "tol": args.tol, "rel_vendor_vs_ref": rel,
                         "vendor_nan": nan}],
            "vendor": timing, "tensorwise": tensorwise,
            "tensorwise_tflops": tflops(tensorwise)}


def run(torch, args):
    shapes = parse_shapes(args.shapes)
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False  # the reference is an exact f32 GEMM
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    results = []
    for i, shape in enumerate(shapes):
        try:
            results.append(measure_shape(torch, i, shape, args, flush))
        except Exception as e:
            raise ShapeError(f"{type(e).__name__} at {'x'.join(map(str, shape))}: {e}") from e
        torch.cuda.empty_cache()
    return {"vendor_name": "torch._scaled_mm blockwise", "route": "torch._scaled_mm (cuBLASLt)",
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(), "seed": args.seed, "tol": args.tol,
            "shapes": results}


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
        import torch  # here, so that a machine without it still gets an answer
    except ImportError:
        emit({"unavailable": "no torch"}, args.out)
        return 2
    except Exception as e:
        emit({"error": f"cannot import torch: {type(e).__name__}: {e}"}, args.out)
        return 1
    try:
        result = run(torch, args)
    except Exception as e:
        emit({"error": str(e) if isinstance(e, ShapeError) else f"{type(e).__name__}: {e}"},
             args.out)
        return 1
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
