#!/usr/bin/env bash
# The project's one test command (README, .ci/run): installs what is missing, builds with the
# `dev` preset, fuzzes the TTGIR parser and the schedule-graph reader with the emitter for a
# bounded time each (SCHED2CU_FUZZ_SECONDS, default 60), and runs every ctest test. GPU tests
# skip where no Hopper GPU is visible; the TTGIR re-dump test skips where Triton 3.6 is missing.
# It changes no committed file.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)"
# Bounded fuzzing first, so that ctest's summary is the last thing printed.
bash tests/ttgir/run_fuzz.sh "${SCHED2CU_FUZZ_SECONDS:-60}"
bash tests/sgraph/run_fuzz.sh "${SCHED2CU_FUZZ_SECONDS:-60}"
ctest --preset dev -j "$(nproc)"
