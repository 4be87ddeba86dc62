#!/usr/bin/env python3
"""CPU tests of tools/triton_compile.py that need no Triton: the stage retry decision (which
configurations count as a refusal, where it stops, what it says when nothing fits), the PTX
parameter list it reports, the signature-order check, and the unavailable/error protocol. The
real compile of corpus kernels is tested from C++ (harness_triton_test.cpp) where Triton is
importable.
"""

import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
import dump_ttgir  # noqa: E402
import triton_compile as tc  # noqa: E402


class OutOfResources(Exception):
    """Stands in for triton.runtime.errors.OutOfResources."""


def compiler(shared_by_stages, raises=None):
    """A compile_at that records the stage counts asked for and answers (kernel, shared)."""
    asked = []

    def compile_at(stages):
        asked.append(stages)
        if raises and stages in raises:
            raise raises[stages]
        return f"kernel@{stages}", shared_by_stages[stages]

    return compile_at, asked


class Retry(unittest.TestCase):
    def test_fits_at_once_compiles_once(self):
        at, asked = compiler({4: 196640})
        self.assertEqual(tc.compile_with_retry(at, 4, 232448), ("kernel@4", 4, []))
        self.assertEqual(asked, [4])

    def test_too_much_shared_memory_drops_one_stage(self):
        # case2's DUMP config as Triton 3.6 compiles it: 262176 B at 4 stages, 213016 B at 3.
        at, asked = compiler({4: 262176, 3: 213016})
        kernel, stages, refused = tc.compile_with_retry(at, 4, 232448)
        self.assertEqual((kernel, stages), ("kernel@3", 3))
        self.assertEqual(refused, [{"num_stages": 4, "shared": 262176}])
        self.assertEqual(asked, [4, 3])

    def test_the_limit_itself_fits(self):
        at, _ = compiler({2: 232448})
        self.assertEqual(tc.compile_with_retry(at, 2, 232448)[1], 2)

    def test_out_of_resources_counts_as_a_refusal(self):
        at, asked = compiler({3: 1000}, raises={4: OutOfResources("out of resource:\n  tmem")})
        kernel, stages, refused = tc.compile_with_retry(at, 4, 232448, (OutOfResources,))
        self.assertEqual(stages, 3)
        self.assertEqual(refused, [{"num_stages": 4, "why": "out of resource: tmem"}])
        self.assertEqual(asked, [4, 3])

    def test_any_other_failure_is_not_retried(self):
        at, asked = compiler({}, raises={4: dump_ttgir.DumpError("compile failed")})
        with self.assertRaisesRegex(dump_ttgir.DumpError, "compile failed"):
            tc.compile_with_retry(at, 4, 232448, (OutOfResources,))
        self.assertEqual(asked, [4])

    def test_nothing_fits_names_every_refusal_and_stops_at_one_stage(self):
        at, asked = compiler({2: 300000, 1: 250000})
        with self.assertRaises(dump_ttgir.DumpError) as e:
            tc.compile_with_retry(at, 2, 232448)
        self.assertEqual(asked, [2, 1])
        self.assertEqual(str(e.exception),
                         "Triton's kernel does not fit in 232448 B of shared memory at any stage "
                         "count (num_stages 2: 300000 B of shared memory; num_stages 1: 250000 B "
                         "of shared memory)")

    def test_a_stage_count_below_one_is_an_error(self):
        at, asked = compiler({})
        with self.assertRaisesRegex(dump_ttgir.DumpError, "num_stages is 0"):
            tc.compile_with_retry(at, 0, 232448)
        self.assertEqual(asked, [])


class EntryParams(unittest.TestCase):
    PTX = """
.visible .entry attn(
\t.param .u64 .ptr .global .align 1 attn_param_0,
\t.param .f32 attn_param_1,
\t.param .u32 attn_param_2,
\t.param .align 64 .b8 attn_param_3[128],
\t.param .u8 attn_param_4,
\t.param .u64 .ptr .global .align 1 attn_param_5
)
.maxntid 256, 1, 1
{
"""

    def test_sizes_in_order(self):
        self.assertEqual(tc.entry_param_bytes(self.PTX, "attn"), [8, 4, 4, 128, 1, 8])

    def test_another_entry_is_not_taken(self):
        with self.assertRaisesRegex(dump_ttgir.DumpError, "no .entry gemm"):
            tc.entry_param_bytes(self.PTX, "gemm")


class SignatureOrder(unittest.TestCase):
    def spec(self, names):
        return {"signature": {n: "i32" for n in names}, "constexprs": {"BLOCK": 64}}

    def test_the_kernels_order_passes(self):
        fn = types.SimpleNamespace(arg_names=["a", "M", "BLOCK", "N"])
        tc._check_signature_order(fn, self.spec(["a", "M", "N"]), "k.py")

    def test_another_order_is_an_error(self):
        fn = types.SimpleNamespace(arg_names=["a", "M", "BLOCK", "N"])
        with self.assertRaisesRegex(dump_ttgir.DumpError, "not the kernel's non-constexpr"):
            tc._check_signature_order(fn, self.spec(["a", "N", "M"]), "k.py")


class Hints(unittest.TestCase):
    SIG = {"a_ptr": "*fp16", "M": "i32", "K": "i64", "scale": "fp32", "flag": "i1"}

    def test_one_entry_per_parameter_or_none(self):
        self.assertEqual(tc.parse_hints("", self.SIG), [""] * 5)
        self.assertEqual(tc.parse_hints("D,1,D,,", self.SIG), ["D", "1", "D", "", ""])
        with self.assertRaisesRegex(dump_ttgir.DumpError, "4 entries for the 5 parameters"):
            tc.parse_hints("D,1,D,", self.SIG)

    def test_only_what_the_jit_specializes(self):
        with self.assertRaisesRegex(dump_ttgir.DumpError, "a_ptr is \\*fp16; only integers"):
            tc.parse_hints("1,,,,", self.SIG)
        with self.assertRaisesRegex(dump_ttgir.DumpError, "scale is fp32; only pointers"):
            tc.parse_hints(",,,D,", self.SIG)
        with self.assertRaisesRegex(dump_ttgir.DumpError, "flag is i1; only integers"):
            tc.parse_hints(",,,,1", self.SIG)
        with self.assertRaisesRegex(dump_ttgir.DumpError, "'X' for M is not D, 1 or empty"):
            tc.parse_hints(",X,,,", self.SIG)

    def test_ones_become_constexprs_and_divisibility_is_keyed_by_position(self):
        fn = types.SimpleNamespace(arg_names=["a_ptr", "M", "K", "scale", "flag", "BLOCK"])
        sig, consts, attrs = tc.specialize(fn, self.SIG, {"BLOCK": 64}, ["D", "1", "D", "", ""])
        self.assertEqual(list(sig), ["a_ptr", "K", "scale", "flag"])
        self.assertEqual(consts, {"BLOCK": 64, "M": 1})
        self.assertEqual(attrs, {(0,): [["tt.divisibility", 16]], (2,): [["tt.divisibility", 16]]})


class Protocol(unittest.TestCase):
    def run_tool(self, *args, python_flags=()):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            p = subprocess.run([sys.executable, *python_flags,
                                os.path.join(TOOLS, "triton_compile.py"), *args, "--out", out],
                               capture_output=True, text=True)
            with open(out) as f:
                return p.returncode, json.load(f), p.stdout

    def test_no_triton_is_unavailable(self):
        # -S: no site-packages, so the interpreter really has no Triton.
        rc, res, stdout = self.run_tool("--version", python_flags=("-S",))
        self.assertEqual((rc, res, stdout), (2, {"unavailable": "no triton"}, ""))

    def test_missing_kernel_is_an_error(self):
        rc, res, _ = self.run_tool("/no/such/kernel.py", python_flags=("-S",))
        self.assertEqual(rc, 1)
        self.assertEqual(res, {"error": "/no/such/kernel.py: no such file"})


if __name__ == "__main__":
    unittest.main()
