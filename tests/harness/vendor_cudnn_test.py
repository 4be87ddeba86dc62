#!/usr/bin/env python3
"""CPU tests of examples/case3_FA/vendor_cudnn.py without torch: its do_bench must follow
src/bench/timing.cu call for call (untimed call, flushed estimate, unflushed warmup, a flush
before every timed call outside its events, median), and its failures must come out as the
protocol's JSON. A fake torch records what the script does with CUDA events, the flush buffer
and the timed function.
"""

import importlib.util
import json
import os
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the case directory
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "examples", "case3_FA", "vendor_cudnn.py")


def load_script():
    spec = importlib.util.spec_from_file_location("vendor_cudnn", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeCuda:
    """Events log their records; elapsed_time answers the estimate span first, then `timed_ms`
    in the order the script asks (which is the order of its timed calls)."""

    def __init__(self, log, estimate_total_ms, timed_ms):
        self.log, self.estimate_total_ms, self.timed_ms = log, estimate_total_ms, list(timed_ms)
        self.asked = 0
        cuda = self

        class Event:
            def __init__(self, enable_timing=False):
                assert enable_timing

            def record(self):
                cuda.log.append("record")

            def synchronize(self):
                cuda.log.append("event_sync")

            def elapsed_time(self, end):
                cuda.asked += 1
                if cuda.asked == 1:
                    return cuda.estimate_total_ms
                return cuda.timed_ms[cuda.asked - 2]

        self.Event = Event

    def synchronize(self):
        self.log.append("sync")


def fake_torch(log, estimate_total_ms, timed_ms, cuda_available=True):
    t = types.SimpleNamespace()
    t.cuda = FakeCuda(log, estimate_total_ms, timed_ms)
    t.cuda.is_available = lambda: cuda_available
    t.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(is_available=lambda: True))
    t.__version__ = "0.0-fake"
    return t


class Flush:
    def __init__(self, log):
        self.log = log

    def zero_(self):
        self.log.append("flush")


class DoBench(unittest.TestCase):
    def run_bench(self, estimate_total_ms, timed_ms, warmup_ms=50.0, rep_ms=200.0):
        log = []
        torch = fake_torch(log, estimate_total_ms, timed_ms)
        vc = load_script()
        res = vc.do_bench(torch, lambda: log.append("call"), Flush(log), warmup_ms, rep_ms)
        return vc, log, res

    def test_follows_timing_cu(self):
        # Estimate 2 ms per call: 25 warmup calls (50/2) and 100 timed calls (200/2).
        timed = [float(i % 7) + 1.0 for i in range(100)]
        _, log, res = self.run_bench(10.0, timed)
        want = ["call", "sync", "record"] + ["flush", "call"] * 5 + ["record", "event_sync"]
        want += ["call"] * 25 + ["flush", "record", "call", "record"] * 100 + ["sync"]
        self.assertEqual(log, want)
        s = sorted(timed)
        self.assertEqual(res, {"median_ms": 0.5 * (s[49] + s[50]), "min_ms": 1.0, "max_ms": 7.0,
                               "count": 100, "warmup": 25, "estimate_ms": 2.0})

    def test_odd_count_median_and_minimum_one_call(self):
        # A 600 ms call: warmup and repeat both clamp up to 1 (max(1, int(v))).
        _, log, res = self.run_bench(3000.0, [600.0])
        self.assertEqual(log.count("call"), 1 + 5 + 1 + 1)
        self.assertEqual((res["count"], res["warmup"], res["median_ms"]), (1, 1, 600.0))
        _, _, res = self.run_bench(5 * 40.0, [1.0, 9.0, 3.0], rep_ms=120.0)
        self.assertEqual((res["count"], res["median_ms"]), (3, 3.0))

    def test_zero_estimate_is_capped(self):
        vc = load_script()
        log = []
        torch = fake_torch(log, 0.0, [1.0] * vc.MAX_REPEATS)
        res = vc.do_bench(torch, lambda: None, Flush(log), 50.0, 200.0)
        self.assertEqual((res["warmup"], res["count"]), (vc.MAX_REPEATS, vc.MAX_REPEATS))


class Protocol(unittest.TestCase):
    def main_json(self, argv, torch_module):
        vc = load_script()
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            saved = sys.modules.get("torch")
            sys.modules["torch"] = torch_module
            try:
                rc = vc.main(argv + ["--out", out])
            finally:
                if saved is None:
                    del sys.modules["torch"]
                else:
                    sys.modules["torch"] = saved
            with open(out, encoding="utf-8") as f:
                return rc, json.load(f)

    def test_no_cuda_is_an_error(self):
        rc, res = self.main_json(["--shapes", "1x4x512"], fake_torch([], 0, [], False))
        self.assertEqual((rc, res), (1, {"error": "RuntimeError: torch sees no CUDA device"}))

    def test_bad_shape_is_an_error(self):
        rc, res = self.main_json(["--shapes", "1x4"], fake_torch([], 0, []))
        self.assertEqual(rc, 1)
        self.assertIn("bad shape '1x4'", res["error"])

    def test_missing_torch_is_unavailable(self):
        # None in sys.modules makes `import torch` raise ImportError.
        rc, res = self.main_json(["--shapes", "1x4x512"], None)
        self.assertEqual((rc, res), (2, {"unavailable": "no torch"}))


if __name__ == "__main__":
    unittest.main()
