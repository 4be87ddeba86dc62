#!/usr/bin/env python3
"""Re-dump every example's kernel.py with tools/dump_ttgir.py and compare the result with the
committed pre_modulo.ttgir byte for byte; likewise the standalone test fixtures dumped from a
committed source (tests/ttgir/lift/NAME.py -> NAME.ttgir, tests/emit/ and tests/sched/
NAME_kernel.py -> NAME_input.ttgir). Exit 77 (skipped) where Triton 3.6.0 is not importable;
exit 1 naming every stale fixture. Must never rewrite a committed file."""
import os
import subprocess
import sys
import tempfile

REQUIRED = "3.6.0"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    probe = subprocess.run([sys.executable, "-c", "import triton; print(triton.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("skip: triton is not importable")
        return 77
    if probe.stdout.strip() != REQUIRED:
        print(f"skip: triton {probe.stdout.strip()} found, {REQUIRED} required")
        return 77
    tool = os.path.join(root, "tools", "dump_ttgir.py")
    pairs = []  # (source .py, committed .ttgir)
    for dirpath, _, files in os.walk(os.path.join(root, "examples")):
        if "kernel.py" in files and "pre_modulo.ttgir" in files:
            pairs.append((os.path.join(dirpath, "kernel.py"),
                          os.path.join(dirpath, "pre_modulo.ttgir")))
    if not pairs:
        print("error: no examples with kernel.py and pre_modulo.ttgir")
        return 1
    for sub, py_suffix, ttgir_suffix in (("tests/ttgir/lift", ".py", ".ttgir"),
                                         ("tests/emit", "_kernel.py", "_input.ttgir"),
                                         ("tests/sched", "_kernel.py", "_input.ttgir")):
        d = os.path.join(root, sub)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.endswith(py_suffix):
                ttgir = os.path.join(d, f[:-len(py_suffix)] + ttgir_suffix)
                if not os.path.isfile(ttgir):
                    print(f"error: {sub}/{f} has no {os.path.basename(ttgir)}")
                    return 1
                pairs.append((os.path.join(d, f), ttgir))
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        for py, ttgir in sorted(pairs):
            out = os.path.join(tmp, "out.ttgir")
            r = subprocess.run([sys.executable, tool, py, "-o", out], capture_output=True,
                               text=True)
            rel = os.path.relpath(ttgir, root)
            if r.returncode != 0:
                stale.append(f"{rel}: dump failed: {r.stderr.strip()}")
                continue
            with open(out, "rb") as a, open(ttgir, "rb") as b:
                if a.read() != b.read():
                    stale.append(f"{rel} differs from a fresh dump of {os.path.basename(py)}")
                else:
                    print(f"ok: {rel}")
    for s in stale:
        print(f"error: {s}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
