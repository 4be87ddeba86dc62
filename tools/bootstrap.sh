#!/usr/bin/env bash
# The README's first command: install what is missing, build the tools (release preset), and run
# the main job on the corpus. With a Hopper GPU that is `sched2cu compare` (every case, against
# origin/main when it exists, else HEAD). Without one it proves what can be proven here: every
# committed fixture is reproducible (`sched2cu regen --check`) and every kernel compiles for
# sm_90a with no spills (tools/compile_check.sh, which compiles every bench_spec.cpp too); timing
# needs a GPU, and it says so.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target sched2cu
bin=build/release/bin/sched2cu

if "$bin" __gpu-probe >/dev/null 2>&1; then
  rev=origin/main
  git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || rev=HEAD
  exec "$bin" compare --rev "$rev"
fi

echo "bootstrap: no Hopper GPU here: checking fixtures and sm_90a compiles (timing needs a GPU)" >&2
"$bin" regen --check
bash tools/compile_check.sh --out "$PWD/build/release/kernel_compile"
echo "bootstrap: every fixture reproducible and every kernel compiles for sm_90a without spills;" \
  "run this on a Hopper machine to measure (sched2cu compare)" >&2
