#!/usr/bin/env python3
"""CPU tests of examples/case9_scaled_mm/blockwise/vendor_scaled_mm.py without torch: its timing
uses the same constants as vendor_cudnn.py and follows src/bench/timing.cu call for call (the
shared fake torch of vendor_cudnn_test.py records it), it parses MxNxK shapes strictly, tries the
scale_b layouts in a fixed order, and its failures come out as the protocol's JSON.
"""

import importlib.util
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the case directory
HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "..", "examples")
sys.path.insert(0, HERE)
from vendor_cudnn_test import Flush, fake_torch  # noqa: E402  (the shared fake torch)


def load(rel, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(CASE, rel))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scaled_mm():
    return load(os.path.join("case9_scaled_mm", "blockwise", "vendor_scaled_mm.py"), "vsm")


def main_with(torch_module, argv):
    """(exit status, JSON written) of main(argv) with `torch_module` importable as torch (None:
    `import torch` raises ImportError)."""
    mod = scaled_mm()
    saved = sys.modules.get("torch")
    sys.modules["torch"] = torch_module
    try:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            rc = mod.main(argv + ["--out", out])
            with open(out, encoding="utf-8") as f:
                return rc, json.load(f)
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved


class Timing(unittest.TestCase):
    def test_constants_are_the_cudnn_scripts(self):
        vc = load(os.path.join("case3_FA", "vendor_cudnn.py"), "vc")
        vs = scaled_mm()
        for name in ("FLUSH_BYTES", "ESTIMATE_CALLS", "MAX_REPEATS"):
            self.assertEqual(getattr(vs, name), getattr(vc, name), name)

    def test_do_bench_follows_timing_cu(self):
        # Estimate 1 ms per call: 50 warmup calls and 200 timed ones.
        log = []
        timed = [2.0] * 100 + [1.0] * 100
        res = scaled_mm().do_bench(fake_torch(log, 5.0, timed), lambda: log.append("call"),
                                   Flush(log), 50.0, 200.0)
        want = ["call", "sync", "record"] + ["flush", "call"] * 5 + ["record", "event_sync"]
        want += ["call"] * 50 + ["flush", "record", "call", "record"] * 200 + ["sync"]
        self.assertEqual(log, want)
        self.assertEqual(res["median_ms"], 1.5)
        self.assertEqual((res["count"], res["warmup"], res["estimate_ms"]), (200, 50, 1.0))


class Protocol(unittest.TestCase):
    def test_shapes(self):
        vs = scaled_mm()
        self.assertEqual(vs.parse_shapes("1024x1024x1024, 320x392x448"),
                         [(1024, 1024, 1024), (320, 392, 448)])
        for bad in ("1024x1024", "0x8x16", "axbxc"):
            with self.assertRaises(ValueError):
                vs.parse_shapes(bad)

    def test_bad_shape_and_no_cuda_are_errors(self):
        rc, res = main_with(fake_torch([], 0, []), ["--shapes", "64x64"])
        self.assertEqual(rc, 1)
        self.assertIn("bad shape '64x64'", res["error"])
        rc, res = main_with(fake_torch([], 0, [], False), ["--shapes", "64x64x128"])
        self.assertEqual((rc, res), (1, {"error": "RuntimeError: torch sees no CUDA device"}))

    def test_missing_torch_is_unavailable(self):
        self.assertEqual(main_with(None, ["--shapes", "64x64x128"]), (2, {"unavailable": "no torch"}))

    def test_scale_b_layouts_in_order(self):
        class T:  # records the transposes and copies a layout is made of
            def __init__(self, name):
                self.name = name

            def t(self):
                return T(self.name + ".t")

            def contiguous(self):
                return T(self.name + ".c")

        forms = scaled_mm().scale_b_forms(T("sb"))
        self.assertEqual([(n, f.name) for n, f in forms],
                         [("[N/128,K/128]", "sb"), ("[K/128,N/128] view", "sb.t"),
                          ("[K/128,N/128] contiguous", "sb.t.c")])


if __name__ == "__main__":
    unittest.main()
