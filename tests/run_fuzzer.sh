#!/usr/bin/env bash
# Builds one libFuzzer target with clang (libFuzzer + ASan + UBSan) from its standalone CMake
# project into build/fuzz_NAME and runs it for SECONDS seconds, seeded with every file named
# PATTERN under the given seed directories. Findings are written to build/fuzz_NAME/findings/;
# the exit status is non-zero when the fuzzer found something. The full libFuzzer log goes to
# build/fuzz_NAME/fuzz.log; on success only its last lines are printed, on a finding the report
# and a hex dump of each finding, so that a CI log alone is enough to reproduce it. Shared by
# tests/ttgir/run_fuzz.sh and tests/sgraph/run_fuzz.sh; it changes no committed file.
# Usage: tests/run_fuzzer.sh NAME PROJECT_DIR SECONDS MAX_LEN PATTERN SEED_DIR... [-- libFuzzer flags]
set -euo pipefail
name=${1:?usage: run_fuzzer.sh NAME PROJECT_DIR SECONDS MAX_LEN PATTERN SEED_DIR... [-- flags]}
project=$2 secs=$3 max_len=$4 pattern=$5
shift 5
seeds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do seeds+=("$1"); shift; done
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/fuzz_$name
cmake -S "$root/$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2
corpus=$build/corpus
mkdir -p "$corpus" "$build/findings"
i=0
while IFS= read -r f; do
  i=$((i + 1))
  cp "$f" "$corpus/seed_${i}.${pattern##*.}"
done < <(for d in "${seeds[@]}"; do find "$root/$d" -name "$pattern"; done | sort)
cd "$build/findings"
rm -f "$build"/findings/*
rc=0
"$build/fuzz_$name" "$corpus" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 "$@" >"$build/fuzz.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
  tail -n 3 "$build/fuzz.log"
  exit 0
fi
echo "run_fuzzer.sh: fuzz_$name exited with status $rc; its report:" >&2
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|DONE)' "$build/fuzz.log" | tail -n 80 >&2
for f in "$build"/findings/*; do
  [ -f "$f" ] || continue
  echo "run_fuzzer.sh: finding $f ($(wc -c <"$f") bytes), first 4 KiB:" >&2
  head -c 4096 "$f" | od -A d -c | head -n 120 >&2 || true  # od ends on SIGPIPE: fine here
done
exit "$rc"
