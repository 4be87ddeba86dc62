#!/usr/bin/env bash
# Builds the TTGIR parser fuzz target with clang (libFuzzer + ASan + UBSan) in
# build/fuzz_ttgir and runs it for SECONDS seconds, seeded with every committed .ttgir under
# examples/. Findings are written to build/fuzz_ttgir/findings/; exit status is non-zero when
# the fuzzer found a crash. Seeds also include tests/ttgir/inputs/*.ttgir. The full libFuzzer log
# goes to build/fuzz_ttgir/fuzz.log; on success only its last lines are printed, on a finding the
# report and a hex dump of each finding, so that a CI log alone is enough to reproduce it.
# Usage: tests/ttgir/run_fuzz.sh SECONDS [extra libFuzzer flags]
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
rm -f "$build"/findings/*
rc=0
"$build/fuzz_ttgir" "$corpus" -max_total_time="$secs" -max_len=65536 -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 "$@" >"$build/fuzz.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
  tail -n 3 "$build/fuzz.log"
  exit 0
fi
echo "run_fuzz.sh: the fuzzer exited with status $rc; its report:" >&2
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|DONE)' "$build/fuzz.log" | tail -n 80 >&2
for f in "$build"/findings/*; do
  [ -f "$f" ] || continue
  echo "run_fuzz.sh: finding $f ($(wc -c <"$f") bytes), first 4 KiB:" >&2
  head -c 4096 "$f" | od -A d -c | head -n 120 >&2
done
exit "$rc"
