#!/usr/bin/env python3
"""A stand-in vendor script for the harness's vendor-script tests (no GPU, no torch).

It speaks the protocol of examples/case3_FA/vendor_cudnn.py (docs/harness.md, "Vendor scripts")
and misbehaves on request: the behaviour is $SCHED2CU_FAKE_VENDOR (default "ok"). It echoes the
shapes it was given, so a wrong command line shows up as a missing shape. Outputs are "O" and
"M" like case3's spec; every timing is 2 ms.
"""

import json
import os
import sys
import time


def arg(name):
    argv = sys.argv[1:]
    return argv[argv.index(name) + 1] if name in argv else None


def main():
    mode = os.environ.get("SCHED2CU_FAKE_VENDOR", "ok")
    out = arg("--out")
    tol = float(arg("--tol"))

    def write(obj, text=None):
        with open(out, "w", encoding="utf-8") as f:
            f.write(text if text is not None else json.dumps(obj))

    shapes = []
    for i, label in enumerate(arg("--shapes").split(",")):
        dims = [int(d) for d in label.split("x")]
        rel_m = 0.5 if mode == "fail" and i == 1 else tol / 10
        shapes.append({
            "shape": dims, "label": label, "vendor_ok": rel_m <= tol,
            "outputs": [{"name": "O", "rel_vendor_vs_ref": tol / 10, "vendor_nan": 0},
                        {"name": "M", "rel_vendor_vs_ref": rel_m, "vendor_nan": 0}],
            "vendor": {"median_ms": 2.0, "min_ms": 1.5, "max_ms": 3.0, "count": 100,
                       "warmup": 25, "estimate_ms": 2.1}})
    good = {"vendor_name": "cuDNN", "torch": "0.0-fake", "cudnn": 1, "seed": int(arg("--seed")),
            "shapes": shapes}
    if mode == "missing_shape":
        good["shapes"] = shapes[:-1]
    if mode == "missing_output":
        shapes[0]["outputs"] = shapes[0]["outputs"][:1]
    if mode == "nan":
        shapes[0]["outputs"][0].update({"rel_vendor_vs_ref": None, "vendor_nan": 7})

    if mode == "no_torch":
        write({"unavailable": "no torch"})
        return 2
    if mode == "error":
        write({"error": "RuntimeError at 1x4x512: cuDNN\nsaid no"})
        return 1
    if mode == "hang":
        time.sleep(1000)
    if mode == "crash":
        return 3
    if mode == "truncated":
        write(None, json.dumps(good)[:30])
        return 0
    if mode == "exit_after_result":
        write(good)
        return 4
    write(good)
    return 0


if __name__ == "__main__":
    sys.exit(main())
