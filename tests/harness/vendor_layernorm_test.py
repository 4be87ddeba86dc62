#!/usr/bin/env python3
"""CPU tests of examples/case6_layernorm/vendor_layernorm.py without torch: its do_bench must
follow src/bench/timing.cu call for call exactly as vendor_cudnn.py's does (the same fake torch,
from vendor_cudnn_test.py, records what it does with CUDA events, the flush buffer and the timed
function), and its failures must come out as the protocol's JSON.
"""

import importlib.util
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the case directory
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "examples", "case6_layernorm", "vendor_layernorm.py")
sys.path.insert(0, HERE)
from vendor_cudnn_test import Flush, fake_torch  # noqa: E402  (the shared fake torch)


def load_script():
    spec = importlib.util.spec_from_file_location("vendor_layernorm", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class DoBench(unittest.TestCase):
    def test_follows_timing_cu(self):
        # Estimate 0.5 ms per call: 100 warmup calls (50/0.5) and 400 timed calls (200/0.5).
        log = []
        timed = [float(i % 5) + 1.0 for i in range(400)]
        torch = fake_torch(log, 2.5, timed)
        vl = load_script()
        res = vl.do_bench(torch, lambda: log.append("call"), Flush(log), 50.0, 200.0)
        want = ["call", "sync", "record"] + ["flush", "call"] * 5 + ["record", "event_sync"]
        want += ["call"] * 100 + ["flush", "record", "call", "record"] * 400 + ["sync"]
        self.assertEqual(log, want)
        s = sorted(timed)
        self.assertEqual(res, {"median_ms": 0.5 * (s[199] + s[200]), "min_ms": 1.0,
                               "max_ms": 5.0, "count": 400, "warmup": 100, "estimate_ms": 0.5})

    def test_same_constants_as_the_cudnn_script(self):
        spec = importlib.util.spec_from_file_location(
            "vendor_cudnn", os.path.join(HERE, "..", "..", "examples", "case3_FA",
                                         "vendor_cudnn.py"))
        vc = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(vc)
        vl = load_script()
        for name in ("FLUSH_BYTES", "ESTIMATE_CALLS", "MAX_REPEATS"):
            self.assertEqual(getattr(vl, name), getattr(vc, name), name)

    def test_eps_is_the_kernels_f32_eps(self):
        vl = load_script()
        self.assertEqual(vl.EPS, 1e-5)
        self.assertNotEqual(vl.EPS_F32, 1e-5)  # 1e-5 is not an f32 value
        self.assertAlmostEqual(vl.EPS_F32, 1e-5, delta=1e-12)


class Protocol(unittest.TestCase):
    def main_json(self, argv, torch_module):
        vl = load_script()
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            saved = sys.modules.get("torch")
            sys.modules["torch"] = torch_module
            try:
                rc = vl.main(argv + ["--out", out])
            finally:
                if saved is None:
                    del sys.modules["torch"]
                else:
                    sys.modules["torch"] = saved
            with open(out, encoding="utf-8") as f:
                return rc, json.load(f)

    def test_no_cuda_is_an_error(self):
        rc, res = self.main_json(["--shapes", "16384x512"], fake_torch([], 0, [], False))
        self.assertEqual((rc, res), (1, {"error": "RuntimeError: torch sees no CUDA device"}))

    def test_bad_shape_is_an_error(self):
        for bad in ("1x4x512", "512", "0x512"):
            rc, res = self.main_json(["--shapes", bad], fake_torch([], 0, []))
            self.assertEqual(rc, 1, bad)
            self.assertIn(f"bad shape '{bad}'", res["error"])

    def test_missing_torch_is_unavailable(self):
        # None in sys.modules makes `import torch` raise ImportError.
        rc, res = self.main_json(["--shapes", "16384x512"], None)
        self.assertEqual((rc, res), (2, {"unavailable": "no torch"}))

    def test_shapes_parse(self):
        vl = load_script()
        self.assertEqual(vl.parse_shapes("16384x512, 5x512"), [(16384, 512), (5, 512)])


if __name__ == "__main__":
    unittest.main()
