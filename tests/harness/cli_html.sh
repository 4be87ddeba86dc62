#!/usr/bin/env bash
# compare --html and bench --html from the command line without a GPU: with no case to measure
# (a name that is no case directory) both still print their table and write it as an HTML page
# (compare exits 0; bench exits 1 for the name that is no case, after writing the page), and an
# --html path that cannot be written is an error naming it (exit 1), not a silent success.
# Usage: cli_html.sh SCHED2CU SOURCE_DIR EXAMPLES_DIR WORK_DIR
set -uo pipefail
bin=$1 src=$2 examples=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail=0
none='<td>(no such case dir)</td>'
"$bin" compare --rev HEAD --root "$src" --examples "$examples" --cases no_such_case \
  --html "$work/compare.html" >/dev/null || { echo "FAIL: compare --html exited $?" >&2; fail=1; }
grep -qF "<tr><td>no_such_case</td>$none$none<td>-</td></tr>" "$work/compare.html" ||
  { echo "FAIL: compare page row" >&2; fail=1; }
"$bin" bench --root "$src" --examples "$examples" --cases no_such_case \
  --html "$work/bench.html" >/dev/null 2>"$work/bench.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "no such case dir under .*: no_such_case" "$work/bench.err" ||
  { echo "FAIL: bench --html with no case exited $rc" >&2; fail=1; }
grep -qF "<tr><td>no_such_case</td><td>-</td>$none$none$none$none<td>-</td>" "$work/bench.html" ||
  { echo "FAIL: bench page row" >&2; fail=1; }
if "$bin" bench --root "$src" --examples "$examples" --cases no_such_case \
  --html "$work/no_dir/bench.html" >/dev/null 2>"$work/no_dir.err" ||
  ! grep -q "no_dir/bench.html" "$work/no_dir.err"; then
  echo "FAIL: bench --html into a missing directory succeeded or did not name it" >&2; fail=1
fi
exit $fail
