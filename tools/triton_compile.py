#!/usr/bin/env python3
"""Compile a case's kernel.py with Triton to a cubin for cuda:90, as its DUMP block declares.

Usage: triton_compile.py KERNEL_PY [--hints H,H,...] [--max-shared BYTES] [--out RESULT.json]
                         [--cubin K.cubin]
       triton_compile.py KERNEL_PY --signature
       triton_compile.py --version

This is the compile half of the harness's Triton column (docs/harness.md, "The Triton column"):
`sched2cu bench` runs it in a child process, caches what it writes, and launches the cubin in
the measurement child beside the generated and hand-written kernels. DUMP is read exactly as
tools/dump_ttgir.py reads it (kernel, signature, constexprs, num_warps, num_stages), and the
kernel is compiled through Triton's whole pipeline with the same ASTSource and options, so the
Triton kernel starts from the TTGIR the generated one is scheduled from. No GPU is needed.

Specialization (--hints): Triton's JIT does not compile a kernel once; it compiles it for what
each call's arguments are. A pointer whose address and an integer whose value is a multiple of
16 is marked `tt.divisibility = 16` (what lets it vectorize pointer loads and pipeline them with
cp.async), and an integer equal to 1 becomes a constexpr. --hints gives one entry per DUMP
signature parameter, in order: `D` (divisible by 16), `1` (an integer equal to 1), or empty
(nothing known); the harness computes them from each shape's arguments exactly as the JIT does
(`BaseBackend.get_int_specialization` / `get_tensor_specialization`, ints of 1 first), so that
the Triton column times the kernel `kernel[grid](...)` would run. The result lists the hints and
the signature positions specialized away ("specialized"), which the launch then does not pass.

Resource refusal: sm_90a gives a block at most 227 KB (232448 B) of shared memory, and Triton
reports what its kernel asks for only once compiled (metadata.shared; Triton itself refuses at
launch time). A kernel asking for more than --max-shared, or a compile raising Triton's
OutOfResources, is compiled again with one pipeline stage fewer, down to 1; the result names the
stages it ran with and the ones refused.

Output (to --out, else stdout): one JSON object with the kernel's launch metadata (with
--signature only {"params": [{"name", "type"}, ...]}, DUMP's signature, nothing compiled),
{"unavailable": "no triton"} (exit 2) when Triton 3.6 cannot be imported, or {"error": "..."}
(exit 1). `--version` prints {"triton": VERSION} or the unavailable object without importing
Triton (the harness keys its cache on it). This tool must never write the user's Triton cache
(it compiles with a private temporary one), never write a partial cubin or result (both are
written to a temporary name and renamed), and never print anything else on stdout.
"""

import argparse
import contextlib
import importlib.metadata
import io
import json
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ next to the tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_ttgir  # noqa: E402  (DUMP is read one way, for the TTGIR dump and for this compile)

REQUIRED_TRITON = dump_ttgir.REQUIRED_TRITON
TARGET_ARCH = dump_ttgir.TARGET_ARCH
# cudaDevAttrMaxSharedMemoryPerBlockOptin of every sm_90 part (H100, H200): 227 KB.
SM90_MAX_SHARED = 232448


class Unavailable(Exception):
    """Triton (or the required version of it) is not installed: exit 2, {"unavailable": ...}."""


def triton_version():
    """The installed Triton's version, from its package metadata (no import: it takes a second),
    or raises Unavailable."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        raise Unavailable("no triton")


def compile_with_retry(compile_at, first_stages, max_shared, resource_errors=()):
    """Compiles at `first_stages` pipeline stages, then one fewer while Triton's kernel does not
    fit: its shared memory exceeds `max_shared`, or the compile raised one of `resource_errors`.
    `compile_at(stages)` returns (kernel, shared bytes). Returns (kernel, stages, refused), where
    `refused` lists every configuration that did not fit, in order; raises DumpError when none
    fits, naming them. Any other exception propagates at once: only a lack of resources is worth
    another stage count."""
    if first_stages < 1:
        raise dump_ttgir.DumpError(f"DUMP's num_stages is {first_stages}; it must be at least 1")
    refused = []
    for stages in range(first_stages, 0, -1):
        try:
            kernel, shared = compile_at(stages)
        except resource_errors as e:
            refused.append({"num_stages": stages, "why": " ".join(str(e).split())})
            continue
        if shared <= max_shared:
            return kernel, stages, refused
        refused.append({"num_stages": stages, "shared": shared})
    said = "; ".join(
        f"num_stages {r['num_stages']}: " +
        (f"{r['shared']} B of shared memory" if "shared" in r else r["why"]) for r in refused)
    raise dump_ttgir.DumpError(
        f"Triton's kernel does not fit in {max_shared} B of shared memory at any stage count "
        f"({said})")


def entry_param_bytes(ptx, name):
    """Byte size of every parameter of the PTX `.entry NAME(...)`, in order: the real parameter
    list of the compiled kernel (Triton 3.6 appends its global and profile scratch pointers)."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)", ptx)
    if not m:
        raise dump_ttgir.DumpError(f"the PTX Triton produced has no .entry {name}")
    sizes = []
    for decl in filter(None, (d.strip() for d in m.group(1).split(","))):
        p = re.match(r"\.param\s+(?:\.align\s+\d+\s+)?\.[a-z]+(\d+)\b[^\[]*(?:\[(\d+)\])?", decl)
        if not p:
            raise dump_ttgir.DumpError(f"cannot read the PTX parameter '{decl}' of {name}")
        sizes.append(int(p.group(1)) // 8 * (int(p.group(2)) if p.group(2) else 1))
    return sizes


def _check_signature_order(fn, spec, path):
    """The launch ABI passes kernel.py's non-constexpr parameters in declaration order; DUMP's
    signature must name exactly those, in that order, or the arguments would land wrongly."""
    declared = [a for a in fn.arg_names if a not in spec["constexprs"]]
    if list(spec["signature"]) != declared:
        raise dump_ttgir.DumpError(
            f"{path}: DUMP's signature {list(spec['signature'])} is not the kernel's "
            f"non-constexpr parameters in order {declared}")


def parse_hints(text, signature):
    """--hints for `signature` (DUMP's, name -> type, in order): one entry per parameter, `D`,
    `1` or empty. Returns the list; raises DumpError for a count mismatch, an unknown entry, or
    `1` for a parameter that is not an integer (the JIT specializes only integers to 1) or `D`
    for a float (the JIT marks only pointers and integers)."""
    names = list(signature)
    hints = text.split(",") if text else [""] * len(names)
    if len(hints) != len(names):
        raise dump_ttgir.DumpError(f"--hints has {len(hints)} entries for the {len(names)} "
                                   f"parameters of DUMP's signature {names}")
    for name, h in zip(names, hints):
        ty = signature[name]
        is_int = re.fullmatch(r"[iu](8|16|32|64)", ty) is not None
        if h not in ("", "D", "1"):
            raise dump_ttgir.DumpError(f"--hints: '{h}' for {name} is not D, 1 or empty")
        if h == "1" and not is_int:
            raise dump_ttgir.DumpError(f"--hints: {name} is {ty}; only integers specialize to 1")
        if h == "D" and not (is_int or ty.startswith("*")):
            raise dump_ttgir.DumpError(f"--hints: {name} is {ty}; only pointers and integers "
                                       "are marked divisible")
    return hints


def specialize(fn, signature, constexprs, hints):
    """(signature, constexprs, attrs) for ASTSource with `hints` applied: a `1` parameter moved
    to the constexprs, a `D` one given tt.divisibility 16 (attrs keyed by its position in the
    kernel's parameter list, as the JIT keys them)."""
    sig, consts, attrs = dict(signature), dict(constexprs), {}
    for name, h in zip(list(signature), hints):
        if h == "1":
            del sig[name]
            consts[name] = 1
        elif h == "D":
            attrs[(fn.arg_names.index(name),)] = [["tt.divisibility", 16]]
    return sig, consts, attrs


def _write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _load_kernel(kernel_path):
    """(absolute path, Triton version, DUMP, kernel) of `kernel_path`, its signature checked
    against the kernel's parameters; raises DumpError / Unavailable."""
    kernel_path = os.path.realpath(kernel_path)
    if not os.path.isfile(kernel_path):
        raise dump_ttgir.DumpError(f"{kernel_path}: no such file")
    version = triton_version()
    if version != REQUIRED_TRITON:
        raise Unavailable(f"no triton {REQUIRED_TRITON} ({version} found)")
    module = dump_ttgir.load_kernel_module(kernel_path)
    spec, fn = dump_ttgir.dump_spec(module, kernel_path)
    _check_signature_order(fn, spec, kernel_path)
    return kernel_path, version, spec, fn


def read_signature(kernel_path):
    """{"params": [...]}: DUMP's signature of `kernel_path`; raises DumpError / Unavailable."""
    _, _, spec, _ = _load_kernel(kernel_path)
    return {"params": [{"name": n, "type": t} for n, t in spec["signature"].items()]}


def compile_kernel(kernel_path, max_shared, hints_text=""):
    """Returns (result dict, cubin bytes) for `kernel_path` specialized by `hints_text` (see
    --hints), or raises DumpError / Unavailable."""
    kernel_path, version, spec, fn = _load_kernel(kernel_path)
    triton = dump_ttgir.import_triton()
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.errors import OutOfResources

    hints = parse_hints(hints_text, spec["signature"])
    signature, constexprs, attrs = specialize(fn, spec["signature"], spec["constexprs"], hints)
    first_stages = spec.get("num_stages", 3)

    with tempfile.TemporaryDirectory(prefix="sched2cu-triton-cache-") as cache:
        os.environ["TRITON_CACHE_DIR"] = cache

        def compile_at(stages):
            src = ASTSource(fn, dict(signature), constexprs=dict(constexprs), attrs=dict(attrs))
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    k = triton.compile(src, target=GPUTarget("cuda", TARGET_ARCH, 32),
                                       options={"num_warps": spec["num_warps"],
                                                "num_stages": stages})
            except OutOfResources:
                raise
            except Exception as e:
                # Triton's CompilationError spans lines ("at 12:34:", source, cause).
                lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
                detail = " ".join(dict.fromkeys([lines[0], lines[-1]])) if lines else ""
                raise dump_ttgir.DumpError(f"{kernel_path}: compile failed at num_stages "
                                           f"{stages}: {type(e).__name__}: {detail}")
            return k, k.metadata.shared

        kernel, stages, refused = compile_with_retry(compile_at, first_stages, max_shared,
                                                     (OutOfResources,))
    md = kernel.metadata
    cubin = kernel.asm["cubin"]
    result = {
        "kernel": md.name,
        "triton": version,
        "target": f"cuda:{TARGET_ARCH}",
        "num_warps": md.num_warps,
        "num_ctas": md.num_ctas,
        "num_stages": stages,
        "dump_num_stages": first_stages,
        "refused": refused,
        "shared": md.shared,
        "max_shared": max_shared,
        "global_scratch_size": md.global_scratch_size,
        "global_scratch_align": md.global_scratch_align,
        "profile_scratch_size": md.profile_scratch_size,
        "profile_scratch_align": md.profile_scratch_align,
        "launch_cooperative_grid": bool(md.launch_cooperative_grid),
        "launch_pdl": bool(md.launch_pdl),
        "params": [{"name": n, "type": t} for n, t in spec["signature"].items()],
        "hints": hints,
        "specialized": [i for i, h in enumerate(hints) if h == "1"],
        "entry_param_bytes": entry_param_bytes(kernel.asm["ptx"], md.name),
        # Per tensor descriptor parameter, how Triton's launcher encodes its tensor map
        # (make_tensordesc_arg in third_party/nvidia/backend/driver.py); empty without any.
        "tensordesc_meta": [{k: (list(v) if isinstance(v, (list, tuple)) else v)
                             for k, v in dict(m).items()}
                            for m in (getattr(md, "tensordesc_meta", None) or [])],
        "cubin_bytes": len(cubin),
    }
    return result, cubin


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernel", nargs="?", help="kernel.py declaring DUMP")
    ap.add_argument("--hints", default="",
                    help="per signature parameter: D (divisible by 16), 1, or empty; "
                         "comma-separated (default: nothing known)")
    ap.add_argument("--max-shared", type=int, default=SM90_MAX_SHARED,
                    help="shared memory a block may have, in bytes (default: sm_90's 232448)")
    ap.add_argument("--out", help="write the result JSON here (default: stdout)")
    ap.add_argument("--cubin", help="write the compiled cubin here")
    ap.add_argument("--signature", action="store_true",
                    help="print DUMP's signature (the launch ABI) as JSON, compiling nothing")
    ap.add_argument("--version", action="store_true",
                    help="print the installed Triton's version as JSON and exit")
    args = ap.parse_args(argv)
    code, cubin = 0, None
    try:
        if args.version:
            result = {"triton": triton_version()}
        elif not args.kernel:
            raise dump_ttgir.DumpError("no kernel.py given")
        elif args.signature:
            result = read_signature(args.kernel)
        else:
            result, cubin = compile_kernel(args.kernel, args.max_shared, args.hints)
    except Unavailable as e:
        result, code = {"unavailable": str(e)}, 2
    except (dump_ttgir.DumpError, OSError) as e:
        result, code = {"error": str(e)}, 1
    text = json.dumps(result, indent=1) + "\n"
    try:
        if cubin is not None and args.cubin:
            _write_atomic(args.cubin, cubin)
        if args.out:
            _write_atomic(args.out, text.encode())
        else:
            sys.stdout.write(text)
    except OSError as e:
        print(f"triton_compile: error: {e}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
