#!/usr/bin/env python3
"""CPU tests of examples/case4_FA_bwd/vendor_cudnn.py without torch: its do_bench must follow
src/bench/timing.cu call for call exactly as case3_FA's vendor_cudnn.py does (the shared fake
torch of vendor_cudnn_test.py records it), it parses BHxNx64 shapes strictly, it calls cuDNN's
backward op with the forward's results in the op's schema order, it refuses an SDPA route that is
not cuDNN's, and its failures come out as the protocol's JSON.
"""

import contextlib
import importlib.util
import json
import os
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the case directory
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
sys.path.insert(0, HERE)
from vendor_cudnn_test import Flush, fake_torch  # noqa: E402  (the shared fake torch)


def load(rel, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, rel))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bwd_script():
    return load(os.path.join("case4_FA_bwd", "vendor_cudnn.py"), "vendor_cudnn_bwd")


def main_with(torch_module, argv):
    """(exit status, JSON written) of main(argv) with `torch_module` importable as torch (None:
    `import torch` raises ImportError)."""
    mod = bwd_script()
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
    def test_constants_are_the_forward_scripts(self):
        vc = load(os.path.join("case3_FA", "vendor_cudnn.py"), "vendor_cudnn_fwd")
        vb = bwd_script()
        for name in ("FLUSH_BYTES", "ESTIMATE_CALLS", "MAX_REPEATS"):
            self.assertEqual(getattr(vb, name), getattr(vc, name), name)

    def test_do_bench_follows_timing_cu(self):
        # Estimate 4 ms per call: 12 warmup calls (int(50/4)) and 50 timed calls (200/4).
        log = []
        timed = [float(i % 3) + 1.0 for i in range(50)]
        res = bwd_script().do_bench(fake_torch(log, 20.0, timed), lambda: log.append("call"),
                                    Flush(log), 50.0, 200.0)
        want = ["call", "sync", "record"] + ["flush", "call"] * 5 + ["record", "event_sync"]
        want += ["call"] * 12 + ["flush", "record", "call", "record"] * 50 + ["sync"]
        self.assertEqual(log, want)
        s = sorted(timed)
        self.assertEqual(res, {"median_ms": 0.5 * (s[24] + s[25]), "min_ms": 1.0, "max_ms": 3.0,
                               "count": 50, "warmup": 12, "estimate_ms": 4.0})


class Shapes(unittest.TestCase):
    def test_spec_shapes_parse(self):
        vb = bwd_script()
        self.assertEqual(vb.parse_shapes("1x256x64, 64x2048x64"), [(1, 256, 64), (64, 2048, 64)])

    def test_bad_shapes(self):
        vb = bwd_script()
        for bad in ("1x256", "1x256x128", "0x256x64", "axbxc", "1x256x64x1"):
            with self.assertRaises(ValueError, msg=bad):
                vb.parse_shapes(bad)

    def test_spec_constants(self):
        vb = bwd_script()
        self.assertEqual((vb.HEAD_DIM, vb.Q_STD, vb.OUTPUTS), (64, 0.125, ("DQ", "DK", "DV")))


class CudnnOps(unittest.TestCase):
    def test_backward_passes_the_forwards_results_in_schema_order(self):
        # aten::_scaled_dot_product_cudnn_attention_backward(grad_out, query, key, value, out,
        # logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k,
        # dropout_p, is_causal, *, scale) from the forward's (out, logsumexp, cum_seq_q,
        # cum_seq_k, max_q, max_k, philox_seed, philox_offset, debug_attn_mask).
        calls = []

        def backward(*args, **kwargs):
            calls.append((args, kwargs))
            return ("dq", "dk", "dv")

        torch = types.SimpleNamespace(ops=types.SimpleNamespace(
            aten=types.SimpleNamespace(_scaled_dot_product_cudnn_attention_backward=backward)))
        fwd = ("out", "lse", "cum_q", "cum_k", "max_q", "max_k", "seed", "offset", "mask")
        res = bwd_script().cudnn_backward(torch, "do", "q", "k", "v", fwd)
        self.assertEqual(res, ("dq", "dk", "dv"))
        self.assertEqual(calls, [(("do", "q", "k", "v", "out", "lse", "seed", "offset", None,
                                   "cum_q", "cum_k", "max_q", "max_k", 0.0, False),
                                  {"scale": 1.0})])

    def test_sdpa_route_must_be_cudnn(self):
        vb = bwd_script()
        for node, ok in (("ScaledDotProductCudnnAttentionBackward0", True),
                         ("ScaledDotProductFlashAttentionBackward0", False),
                         (None, False)):
            torch, seen = fake_sdpa_torch(node)
            attention = types.ModuleType("torch.nn.attention")
            attention.SDPBackend = types.SimpleNamespace(CUDNN_ATTENTION="cudnn")

            def sdpa_kernel(backends, seen=seen):
                seen.append(("backends", backends))
                return contextlib.nullcontext()

            attention.sdpa_kernel = sdpa_kernel
            saved = {m: sys.modules.get(m) for m in ("torch", "torch.nn", "torch.nn.attention")}
            sys.modules.update({"torch": torch, "torch.nn": torch.nn,
                                "torch.nn.attention": attention})
            try:
                if ok:
                    vb.check_sdpa_route(torch, Tensor(), Tensor(), Tensor())
                else:
                    with self.assertRaisesRegex(RuntimeError, "not cuDNN's backward"):
                        vb.check_sdpa_route(torch, Tensor(), Tensor(), Tensor())
            finally:
                for m, mod in saved.items():
                    if mod is None:
                        del sys.modules[m]
                    else:
                        sys.modules[m] = mod
            # One backend only, so that SDPA raises instead of falling back; scale 1.0 (Q is
            # pre-scaled); leaves that require grad, so that a backward node is recorded.
            self.assertEqual(seen[0], ("backends", ["cudnn"]))
            self.assertEqual(seen[1], ("sdpa", (True, True, True), {"scale": 1.0}))


class Tensor:
    def __init__(self):
        self.requires_grad = False

    def detach(self):
        return Tensor()

    def clone(self):
        return Tensor()

    def requires_grad_(self, flag):
        self.requires_grad = flag
        return self


def fake_sdpa_torch(node_name):
    """A torch whose SDPA output's grad_fn is of class `node_name` (None: no grad_fn)."""
    seen = []

    def sdpa(q, k, v, **kwargs):
        seen.append(("sdpa", (q.requires_grad, k.requires_grad, v.requires_grad), kwargs))
        grad_fn = type(node_name, (), {})() if node_name else None
        return types.SimpleNamespace(grad_fn=grad_fn)

    torch = types.ModuleType("torch")
    torch.nn = types.ModuleType("torch.nn")
    torch.nn.functional = types.SimpleNamespace(scaled_dot_product_attention=sdpa)
    torch.enable_grad = contextlib.nullcontext
    return torch, seen


class Protocol(unittest.TestCase):
    def test_bad_shape_and_no_cuda_are_errors(self):
        rc, res = main_with(fake_torch([], 0, []), ["--shapes", "1x256x128"])
        self.assertEqual(rc, 1)
        self.assertIn("bad shape '1x256x128'", res["error"])
        rc, res = main_with(fake_torch([], 0, [], False), ["--shapes", "1x256x64"])
        self.assertEqual((rc, res), (1, {"error": "RuntimeError: torch sees no CUDA device"}))

    def test_no_cudnn_is_an_error(self):
        torch = fake_torch([], 0, [])
        torch.backends.cudnn.is_available = lambda: False
        rc, res = main_with(torch, ["--shapes", "1x256x64"])
        self.assertEqual(rc, 1)
        self.assertEqual(res, {"error": "RuntimeError: torch 0.0-fake has no usable cuDNN"})

    def test_missing_torch_is_unavailable(self):
        self.assertEqual(main_with(None, ["--shapes", "1x256x64"]),
                         (2, {"unavailable": "no torch"}))


if __name__ == "__main__":
    unittest.main()
