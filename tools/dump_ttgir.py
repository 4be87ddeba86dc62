#!/usr/bin/env python3
"""Dump a Triton kernel's TTGIR exactly as it is just before TritonGPUAssignLatencies.

Usage: dump_ttgir.py KERNEL_PY -o OUT.ttgir

The kernel file declares what the compile needs in a module-level dict ``DUMP``:

    DUMP = {
        "kernel": "gemm_kernel",                      # name of the @triton.jit function
        "signature": {"a_ptr": "*fp16", "M": "i32"},  # every non-constexpr parameter
        "constexprs": {"BLOCK_M": 128},               # every constexpr parameter
        "num_warps": 8,
        "num_stages": 3,                              # optional, default 3
    }

It compiles for target cuda:90 with Triton 3.6 (no GPU needed), stops the `make_ttgir` pass
pipeline where `add_assign_latencies` would be added, runs the passes added so far, and writes
the module text. Source locations are made relative: the kernel's own directory becomes the
base (``kernel.py:12:4``) and Triton's files become ``triton/...`` (relative to the directory
holding the triton package), so the output is byte-for-byte reproducible on any machine.

This tool must never leave Triton patched beyond its own process, never write the Triton cache
of the user (it compiles with a private temporary cache), and never print partial output: any
failure is one line on stderr and exit status 1.
"""

import argparse
import contextlib
import importlib.util
import io
import os
import re
import sys
import tempfile

REQUIRED_TRITON = "3.6.0"
TARGET_ARCH = 90


class DumpError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""


class _StopBeforeAssignLatencies(Exception):
    """Raised from the patched add_assign_latencies; carries the pass manager built so far."""

    def __init__(self, pm):
        super().__init__("stop before TritonGPUAssignLatencies")
        self.pm = pm


def import_triton():
    try:
        import triton  # noqa: F401
    except Exception as e:  # ImportError, or a broken install raising anything
        raise DumpError(f"cannot import triton ({type(e).__name__}: {e}); "
                        f"install triton=={REQUIRED_TRITON}")
    if triton.__version__ != REQUIRED_TRITON:
        raise DumpError(f"triton {triton.__version__} found, {REQUIRED_TRITON} required "
                        "(the dump point and TTGIR syntax are version-specific)")
    return triton


def load_kernel_module(path):
    spec = importlib.util.spec_from_file_location("sched2cu_dump_kernel", path)
    if spec is None or spec.loader is None:
        raise DumpError(f"{path}: cannot load as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise DumpError(f"{path}: importing failed: {type(e).__name__}: {e}")
    return module


def dump_spec(module, path):
    spec = getattr(module, "DUMP", None)
    if not isinstance(spec, dict):
        raise DumpError(f"{path}: no module-level dict DUMP (kernel, signature, constexprs, "
                        "num_warps)")
    for key in ("kernel", "signature", "constexprs", "num_warps"):
        if key not in spec:
            raise DumpError(f"{path}: DUMP lacks '{key}'")
    fn = getattr(module, spec["kernel"], None)
    if fn is None:
        raise DumpError(f"{path}: DUMP names kernel '{spec['kernel']}', which is not defined")
    return spec, fn


def _relativize_locations(text, kernel_dir, triton_parent):
    """Rewrite every file location "PATH":L:C (alone in loc(...) or nested in callsite/fused)
    so that no absolute path of this machine remains."""

    def rel(match):
        p = match.group(1)
        ap = os.path.realpath(p) if os.path.isabs(p) else None
        if ap is not None:
            for base in (kernel_dir, triton_parent):
                if ap.startswith(base + os.sep):
                    p = os.path.relpath(ap, base)
                    break
            else:
                raise DumpError(f"location outside the kernel directory and triton: {p}")
        return f'"{p}":{match.group(2)}'

    return re.sub(r'"([^"\n]*)":(\d+:\d+)', rel, text)


def dump(kernel_path):
    kernel_path = os.path.realpath(kernel_path)
    if not os.path.isfile(kernel_path):
        raise DumpError(f"{kernel_path}: no such file")
    triton = import_triton()
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton._C.libtriton import passes
    import triton.backends.nvidia.compiler as nvc

    module = load_kernel_module(kernel_path)
    spec, fn = dump_spec(module, kernel_path)

    captured = {}
    orig_add = passes.ttgpuir.add_assign_latencies
    orig_make = nvc.CUDABackend.__dict__["make_ttgir"]

    def patched_add(pm, *args, **kwargs):
        raise _StopBeforeAssignLatencies(pm)

    def wrapped_make(mod, metadata, opt, capability):
        try:
            return orig_make.__func__(mod, metadata, opt, capability)
        except _StopBeforeAssignLatencies as stop:
            stop.pm.run(mod, "make_ttgir")
            captured["ir"] = mod.str()
            raise

    passes.ttgpuir.add_assign_latencies = patched_add
    nvc.CUDABackend.make_ttgir = staticmethod(wrapped_make)
    try:
        src = ASTSource(fn, dict(spec["signature"]), constexprs=dict(spec["constexprs"]))
        options = {"num_warps": spec["num_warps"], "num_stages": spec.get("num_stages", 3)}
        with tempfile.TemporaryDirectory(prefix="sched2cu-triton-cache-") as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            # Triton prints MLIR diagnostics on stderr; keep them to report the first line.
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    triton.compile(src, target=GPUTarget("cuda", TARGET_ARCH, 32),
                                   options=options)
            except _StopBeforeAssignLatencies:
                pass
            except Exception as e:
                if "ir" not in captured:
                    # Triton's CompilationError spans lines ("at 12:34:", source, cause);
                    # keep the position and the cause on one line.
                    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
                    detail = " ".join(dict.fromkeys([lines[0], lines[-1]])) if lines else ""
                    raise DumpError(f"{kernel_path}: compile failed: {type(e).__name__}: "
                                    f"{detail}")
    finally:
        passes.ttgpuir.add_assign_latencies = orig_add
        nvc.CUDABackend.make_ttgir = orig_make

    if "ir" not in captured:
        raise DumpError(f"{kernel_path}: the pipeline never reached TritonGPUAssignLatencies "
                        f"(is the target capability {TARGET_ARCH}?)")
    triton_parent = os.path.dirname(os.path.dirname(os.path.realpath(triton.__file__)))
    text = _relativize_locations(captured["ir"], os.path.dirname(kernel_path), triton_parent)
    return text if text.endswith("\n") else text + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernel", help="kernel.py declaring DUMP")
    ap.add_argument("-o", "--output", required=True, help="output .ttgir path ('-' for stdout)")
    args = ap.parse_args(argv)
    try:
        text = dump(args.kernel)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            tmp = args.output + ".tmp"
            with open(tmp, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            os.replace(tmp, args.output)
    except DumpError as e:
        print(f"dump_ttgir: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"dump_ttgir: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
