#!/usr/bin/env bash
# Walks docs/adding_a_case.md's quickstart on a scratch case in a temporary copy of the
# repository (its tracked files, as a fresh clone holds them, made a git checkout of its own):
#   sched2cu new -> regen (the dump where Triton 3.6 is importable) -> list -> regen --check ->
#   the schedule line run inside the case directory -> regen --check -> the compile check of
#   that one case (where nvcc is installed).
# `check` needs a Hopper GPU and is not run here. Prints how long each step took.
# Usage: quickstart.sh SCHED2CU SOURCE_DIR [PYTHON]
set -euo pipefail
bin=$1 src=$2 python=${3:-python3}
name=case_quickstart
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sched2cu-quickstart-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
mkdir -p "$repo"
t0=$SECONDS
step() { echo; echo "== $* ($((SECONDS - t0)) s so far)"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "copy of the repository"
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$repo"
else
  (cd "$src" && tar --exclude=./build --exclude=./.cache -cf - .) | tar -xf - -C "$repo"
fi
[ -d "$repo/examples/case1_simple_gemm" ] && [ -d "$repo/runtime" ] || fail "incomplete copy"
if command -v git >/dev/null; then
  git -C "$repo" init -q
  git -C "$repo" add .
  git -C "$repo" -c user.name=quickstart -c user.email=q@example.invalid commit -q -m copy
fi
cd "$repo"

step "1. sched2cu new $name"
"$bin" new "$name"
for f in kernel.py bench_spec.cpp README.md; do
  [ -f "examples/$name/$f" ] || fail "the scaffold has no $f"
done
grep -q '^DUMP = {' "examples/$name/kernel.py" || fail "the scaffold's kernel.py has no DUMP block"
if "$bin" new "$name" 2>"$tmp/err"; then fail "new accepted an existing name"; fi
grep -q "already exists" "$tmp/err" || fail "new's refusal does not say why: $(cat "$tmp/err")"
if "$bin" new "a/b" 2>/dev/null; then fail "new accepted a name with a path separator"; fi

step "2. sched2cu regen --cases $name"
if "$python" -c "import triton, sys; sys.exit(0 if triton.__version__.startswith('3.6') else 1)" \
    2>/dev/null; then
  "$bin" regen --cases "$name" --python "$python"
else
  echo "SKIP (dump): Triton 3.6 is not importable by $python, so pre_modulo.ttgir cannot be" \
       "dumped here; scheduling case1_simple_gemm's committed TTGIR instead (same kernel.py)"
  cp examples/case1_simple_gemm/pre_modulo.ttgir "examples/$name/"
  "$bin" regen --cases "$name" --skip-ttgir
fi
for f in pre_modulo.ttgir schedule_graph.json generated.cu; do
  [ -f "examples/$name/$f" ] || fail "regen did not write $f"
done

step "3. sched2cu list --cases $name"
"$bin" list --cases "$name" | tee "$tmp/list"
grep -Eq "│ $name +│ yes +│ yes +│ yes +│ yes +│ - +│ yes +│ yes +│" "$tmp/list" ||
  fail "list does not show the scaffold with every file but handwritten.cu"

step "4. sched2cu regen --check --cases $name"
"$bin" regen --check --cases "$name" --python "$python"

step "the schedule line run inside the case directory, then regen --check again"
(cd "examples/$name" && "$bin" schedule pre_modulo.ttgir -o schedule_graph.json)
"$bin" regen --check --cases "$name" --python "$python"

step "5. bash tools/compile_check.sh --cases $name"
if [ -n "${SCHED2CU_NVCC:-}" ] || command -v nvcc >/dev/null; then
  c0=$SECONDS
  bash tools/compile_check.sh --cases "$name" --out "$tmp/compile"
  echo "compile check of $name: $((SECONDS - c0)) s"
else
  echo "SKIP (compile check): no nvcc here"
fi

step "6. sched2cu check --cases $name needs a Hopper GPU: not run here"
echo "ok: the quickstart on a scratch case took $((SECONDS - t0)) s"
