#!/bin/sh
# GPU test of bench's Triton column on gpu_cases/row_softmax (pointer loads, no scratch) and
# gpu_cases/gemm_bt_gelu (device-side tensor descriptors: global scratch): each row's triton
# cell holds a figure per timed shape, no FAIL and no error, and gen/triton holds ratios; then,
# with --python naming no interpreter, the triton cell reads "(no triton)" while the generated
# cell keeps its figures. $1 = sched2cu binary, $2 = the gpu_cases dir. Exits 77 (skipped)
# without a Hopper GPU, and fails (never skips) where python3 has no Triton 3.6: the GPU
# machine has it.
bin="$1"; cases="$2"
probe=$("$bin" __gpu-probe 2>/dev/null) || { echo "SKIP: no Hopper GPU"; exit 77; }
case "$probe" in *'"major":9'*) ;; *) echo "SKIP: no Hopper GPU"; exit 77 ;; esac
fail=0

# The cell of column $2 in the row of case $1 of the box table on stdin, trimmed.
cell() {
  awk -F'│' -v want_case="$1" -v want_col="$2" '
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    col == 0 { for (i = 2; i < NF; ++i) if (trim($i) == want_col) col = i; next }
    trim($2) == want_case { print trim($col); exit }'
}

out=$("$bin" bench --examples "$cases" --cases row_softmax,gemm_bt_gelu --rep-ms 50 --warmup-ms 10)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAILED: bench exited $rc"; fail=1; }
for c in row_softmax gemm_bt_gelu; do
  t=$(echo "$out" | cell "$c" triton)
  r=$(echo "$out" | cell "$c" gen/triton)
  echo "$t" | grep -Eq '^[0-9]+ (TFLOPS|GB/s)(, [0-9]+ (TFLOPS|GB/s))*( \(stages [0-9]+\))?$' ||
    { echo "FAILED: $c's triton cell is '$t', not figures without FAIL"; fail=1; }
  echo "$r" | grep -Eq '^[0-9]+\.[0-9][0-9]x(, [0-9]+\.[0-9][0-9]x)*$' ||
    { echo "FAILED: $c's gen/triton cell is '$r'"; fail=1; }
done

out=$("$bin" bench --examples "$cases" --cases row_softmax --rep-ms 20 --warmup-ms 5 \
      --python /nonexistent/python3)
echo "$out"
t=$(echo "$out" | cell row_softmax triton)
g=$(echo "$out" | cell row_softmax generated)
[ "$t" = "(no triton)" ] || { echo "FAILED: without python the triton cell is '$t'"; fail=1; }
echo "$g" | grep -Eq '^[0-9]+ GB/s' ||
  { echo "FAILED: without python the generated cell is '$g'"; fail=1; }
exit $fail
