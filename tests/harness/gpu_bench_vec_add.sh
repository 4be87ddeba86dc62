#!/bin/sh
# GPU test of `bench` on gpu_cases/vec_add: the table prints with exit 0, the check-only shape is
# counted in the shapes cell and never timed, and the roofline copy columns (copy, gen/copy,
# hw/copy) appear with figures. $1 = sched2cu binary, $2 = the gpu_cases dir. Exits 77
# (skipped) without a Hopper GPU.
bin="$1"; cases="$2"
probe=$("$bin" __gpu-probe 2>/dev/null) || { echo "SKIP: no Hopper GPU"; exit 77; }
case "$probe" in *'"major":9'*) ;; *) echo "SKIP: no Hopper GPU"; exit 77 ;; esac
out=$("$bin" bench --examples "$cases" --cases vec_add --rep-ms 50 --warmup-ms 10)
rc=$?
echo "$out"
fail=0
[ $rc -eq 0 ] || { echo "FAILED: bench exited $rc"; fail=1; }
echo "$out" | grep -E '│ copy +│ gen/copy +│ hw/copy +│$' >/dev/null ||
  { echo "FAILED: no roofline copy columns"; fail=1; }
echo "$out" | grep -E '^│ vec_add +│ 1048576, 67108864 \(\+1 check-only\) +│' >/dev/null ||
  { echo "FAILED: the shapes cell does not count the check-only shape"; fail=1; }
echo "$out" | grep -E '^│ vec_add .*│ [0-9]+ GB/s, [0-9]+ GB/s +│ [0-9]\.[0-9][0-9]x, [0-9]\.[0-9][0-9]x +│' \
  >/dev/null || { echo "FAILED: no copy figures and gen/copy ratios"; fail=1; }
echo "$out" | grep -E '^│ vec_add .*FAIL' >/dev/null && { echo "FAILED: vec_add failed a check"; fail=1; }
exit $fail
