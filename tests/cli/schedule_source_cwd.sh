#!/usr/bin/env bash
# `sched2cu schedule` records the same input path (kernel.source and every IR location) wherever
# it is run from: inside the case directory as docs/adding_a_case.md shows it, from the
# repository root as `sched2cu regen` runs it, and from elsewhere with an absolute path. Each
# graph must equal the committed fixture byte for byte (regen --check called the one written
# inside the case directory stale: it recorded "pre_modulo.ttgir").
# Usage: schedule_source_cwd.sh SCHED2CU SOURCE_DIR SCRATCH_DIR
set -euo pipefail
bin=$1 src=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
case=examples/case1_simple_gemm
(cd "$src/$case" && "$bin" schedule pre_modulo.ttgir -o "$out/in_case_dir.json")
(cd "$src" && "$bin" schedule "$case/pre_modulo.ttgir" -o "$out/in_root.json")
(cd "$out" && "$bin" schedule "$src/$case/pre_modulo.ttgir" -o "$out/elsewhere.json")
(cd "$src/$case" && "$bin" schedule ../case1_simple_gemm/./pre_modulo.ttgir -o "$out/dotted.json")
status=0
for g in in_case_dir in_root elsewhere dotted; do
  if ! cmp -s "$src/$case/schedule_graph.json" "$out/$g.json"; then
    echo "FAIL: the graph scheduled $g differs from the committed $case/schedule_graph.json:" >&2
    diff "$src/$case/schedule_graph.json" "$out/$g.json" | head -8 >&2 || true
    status=1
  fi
done
# Outside any repository the recorded path is absolute (still independent of the cwd).
norepo=$(mktemp -d "${TMPDIR:-/tmp}/sched2cu-norepo-XXXXXX")
trap 'rm -rf "$norepo"' EXIT
cp "$src/$case/pre_modulo.ttgir" "$norepo/k.ttgir"
if ! git -C "$norepo" rev-parse --show-toplevel >/dev/null 2>&1; then
  (cd "$norepo" && "$bin" schedule k.ttgir -o "$norepo/a.json")
  (cd / && "$bin" schedule "$norepo/k.ttgir" -o "$norepo/b.json")
  real=$(cd "$norepo" && pwd -P)
  if ! grep -q "\"source\": \"$real/k.ttgir\"" "$norepo/a.json" ||
     ! cmp -s "$norepo/a.json" "$norepo/b.json"; then
    echo "FAIL: outside a repository the graph should record $real/k.ttgir from any cwd" >&2
    grep '"source"' "$norepo/a.json" "$norepo/b.json" >&2 || true
    status=1
  fi
else
  echo "note: $norepo is inside a git checkout; the no-repository case is not checked" >&2
fi
[ $status -eq 0 ] && echo "ok: one recorded source path from every working directory"
exit $status
