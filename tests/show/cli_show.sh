#!/usr/bin/env bash
# `sched2cu show` on the command line, without a GPU or a browser: one graph to one page, several
# cases to a directory with an index, and bad input (a missing graph, a malformed one, a target
# claiming more than the target table, an unknown case) failing with a located message and
# writing nothing, not even over an existing page.
# Usage: cli_show.sh SCHED2CU SOURCE_DIR WORK_DIR
set -uo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail=0
check() {  # check DESCRIPTION COMMAND...: the command must succeed
  if ! "${@:2}"; then echo "FAIL: $1" >&2; fail=1; fi
}
nodes() { grep -o '<g class="node"' "$1" | wc -l; }

# One graph.
check "show case3" "$bin" show "$src/examples/case3_FA/schedule_graph.json" -o "$work/case3.html"
check "case3 has 26 node boxes" test "$(nodes "$work/case3.html")" -eq 26

# Several cases, one of them nested under a directory of specs would be expanded the same way.
check "show --cases" "$bin" show --root "$src" --cases case1_simple_gemm,case2_persistent_gemm \
  -d "$work/pages"
check "case1 page" test "$(nodes "$work/pages/case1_simple_gemm.html")" -eq 5
check "case2 page" test "$(nodes "$work/pages/case2_persistent_gemm.html")" -eq 21
check "index links both" grep -q 'href="case2_persistent_gemm.html"' "$work/pages/index.html"

# Bad input: a message naming the problem, exit 1, nothing written.
expect_error() {  # expect_error DESCRIPTION PATTERN COMMAND...
  local out rc
  out=$("${@:3}" 2>&1); rc=$?
  if [ "$rc" -ne 1 ]; then echo "FAIL: $1: exit $rc, expected 1" >&2; fail=1; fi
  if ! grep -qE -- "$2" <<<"$out"; then echo "FAIL: $1: no '$2' in: $out" >&2; fail=1; fi
}
expect_error "missing graph" "no_such.json" "$bin" show "$work/no_such.json" -o "$work/missing.html"
check "no page for a missing graph" test ! -e "$work/missing.html"
printf '{\n  "schema": "sched2cu.schedule_graph",\n  "version": 2,,\n}\n' > "$work/bad.json"
echo "previous page" > "$work/kept.html"
expect_error "malformed graph" "bad.json:3:[0-9]+: .*invalid JSON" \
  "$bin" show "$work/bad.json" -o "$work/kept.html"
check "an existing page is kept" grep -qx "previous page" "$work/kept.html"
expect_error "unknown case" "no_such_case: no such case directory" \
  "$bin" show --root "$src" --cases case1_simple_gemm,no_such_case -d "$work/none"
check "nothing written for an unknown case" test ! -e "$work/none"
sed 's/"smem_bytes": 232448/"smem_bytes": 437448/' "$src/examples/case1_simple_gemm/schedule_graph.json" \
  > "$work/greedy.json"
expect_error "a target claiming more than the table" "claims 437448 B of shared memory" \
  "$bin" show "$work/greedy.json" -o "$work/greedy.html"
check "no page for a greedy target" test ! -e "$work/greedy.html"
expect_error "both modes" "not both" "$bin" show "$work/bad.json" -o x.html -d "$work/none"
expect_error "-o onto the graph" "refusing to overwrite" \
  "$bin" show "$work/bad.json" -o "$work/bad.json"
check "nothing else written, no temporary left" test -z "$(ls -A "$work" | grep -v -e '^case3.html$' \
  -e '^pages$' -e '^bad.json$' -e '^kept.html$' -e '^greedy.json$')"
exit $fail
