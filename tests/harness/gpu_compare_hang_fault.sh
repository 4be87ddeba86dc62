#!/bin/sh
# GPU test of compare's robustness: on gpu_cases, the hanging kernel and the faulting kernel
# must each cost exactly their own cell (timeout / illegal-address error), vec_add must still be
# measured, and compare must exit 0. $1 = sched2cu binary, $2 = the gpu_cases dir.
# Exits 77 (skipped) without a Hopper GPU.
bin="$1"; cases="$2"
probe=$("$bin" __gpu-probe 2>/dev/null) || { echo "SKIP: no Hopper GPU"; exit 77; }
case "$probe" in *'"major":9'*) ;; *) echo "SKIP: no Hopper GPU"; exit 77 ;; esac
out=$("$bin" compare --rev HEAD --examples "$cases" --cases hang,fault,vec_add --timeout 60 \
      --rep-ms 50 --warmup-ms 10)
rc=$?
echo "$out"
fail=0
[ $rc -eq 0 ] || { echo "FAILED: compare exited $rc"; fail=1; }
echo "$out" | grep -E '^│ hang .*\(error: measurement timed out' >/dev/null ||
  { echo "FAILED: no timeout cell for hang"; fail=1; }
echo "$out" | grep -E '^│ fault .*\(error: .*(IllegalAddress|illegal)' >/dev/null ||
  { echo "FAILED: no illegal-address cell for fault"; fail=1; }
echo "$out" | grep -E '^│ vec_add .*[0-9]\.[0-9][0-9]x' >/dev/null ||
  { echo "FAILED: vec_add was not measured"; fail=1; }
exit $fail
