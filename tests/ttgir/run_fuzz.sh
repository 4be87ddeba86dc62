#!/usr/bin/env bash
# Fuzzes the TTGIR parser and the pointer-tile lifting (tests/ttgir/fuzz_ttgir.cpp, built by the
# standalone project tests/ttgir/fuzz/ into build/fuzz_ttgir) for SECONDS seconds, seeded with
# every committed .ttgir under examples/, tests/ttgir/inputs/, tests/ttgir/lift/ and
# tests/harness/gpu_cases/ (tests/run_fuzzer.sh does the work and says where the findings go).
# Usage: tests/ttgir/run_fuzz.sh SECONDS [extra libFuzzer flags]
set -euo pipefail
secs=${1:?usage: run_fuzz.sh SECONDS [libFuzzer flags]}
shift
exec bash "$(dirname "$0")/../run_fuzzer.sh" ttgir tests/ttgir/fuzz "$secs" 65536 "*.ttgir" \
  examples tests/ttgir/inputs tests/ttgir/lift tests/harness/gpu_cases -- "$@"
