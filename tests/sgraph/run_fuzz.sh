#!/usr/bin/env bash
# Fuzzes the schedule-graph reader and the emitter (tests/sgraph/fuzz_graph.cpp, built by the
# standalone project tests/sgraph/fuzz/ into build/fuzz_graph) for SECONDS seconds, seeded with
# every committed schedule_graph.json (examples/, tests/emit/, tests/harness/gpu_cases/);
# tests/run_fuzzer.sh does the work and says where the findings go.
# Usage: tests/sgraph/run_fuzz.sh SECONDS [extra libFuzzer flags]
set -euo pipefail
secs=${1:?usage: run_fuzz.sh SECONDS [libFuzzer flags]}
shift
exec bash "$(dirname "$0")/../run_fuzzer.sh" graph tests/sgraph/fuzz "$secs" 262144 \
  "*schedule_graph.json" examples tests/emit tests/harness/gpu_cases -- "$@"
