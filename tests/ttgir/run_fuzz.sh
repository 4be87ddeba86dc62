#!/usr/bin/env bash
# Builds the TTGIR parser fuzz target with clang (libFuzzer + ASan + UBSan) in
# build/fuzz_ttgir and runs it for SECONDS seconds, seeded with every committed .ttgir under
# examples/. Findings are written to build/fuzz_ttgir/findings/; exit status is non-zero when
# the fuzzer found a crash. Seeds also include tests/ttgir/inputs/*.ttgir. Usage: tests/ttgir/run_fuzz.sh SECONDS [extra libFuzzer flags]
set -euo pipefail
secs=${1:?usage: run_fuzz.sh SECONDS [libFuzzer flags]}
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz_ttgir
cmake -S "$root/tests/ttgir/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2
corpus=$build/corpus
mkdir -p "$corpus" "$build/findings"
i=0
while IFS= read -r f; do i=$((i + 1)); cp "$f" "$corpus/seed_${i}.ttgir"; done < <(find "$root/examples" "$root/tests/ttgir/inputs" -name "*.ttgir" | sort)
cd "$build/findings"
"$build/fuzz_ttgir" "$corpus" -max_total_time="$secs" -max_len=65536 -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 "$@"
