#!/bin/bash
# One-call validation of sched2cu_bench, sched2cu_gemm_bench and the harness (the Triton column
# included) on the H200 (device
# machine), from the repository root: ./tests/harness/h200_validate.sh [BUILD_DIR]. Logs and
# JSON go to $OUT (the device tool's output dir) or /tmp/sched2cu-validate. It never changes the
# GPU's settings. If the copy of the tree has no git repository (the device copy may not), it
# makes a throwaway one so that `compare --rev HEAD` has a commit; it never commits otherwise.
B=${1:-build/release}
S=$B/bin/sched2cu
O=${OUT:-/tmp/sched2cu-validate}
mkdir -p "$O"
run() {
  echo "=== $*"
  "$@"
  echo "=== exit $?"
}
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
run "$B/tests/bench/sched2cu_bench_gpu_test"
run "$B/bin/sched2cu_gemm_bench" --shapes 256,512x384x640,2048 --json "$O/gemm_naive.json" \
  "$B/lib/sched2cu_test_naive_gemm.so"
if ! git rev-parse HEAD >/dev/null 2>&1; then
  git init -q && git add -A && git -c user.name=v -c user.email=v@v commit -qm base
fi
run "$S" list
run "$S" check --examples tests/harness/gpu_cases --cases vec_add --json "$O/check_vec_add.json"
run tests/harness/gpu_compare_hang_fault.sh "$S" tests/harness/gpu_cases
# A changed generated.cu: both sides measured, improvement column filled.
g=tests/harness/gpu_cases/vec_add/generated.cu
cp "$g" /tmp/sched2cu-validate-generated.cu.orig
echo '// touched by h200_validate.sh' >>"$g"
FORCE_COLOR=1 run "$S" compare --rev HEAD --examples tests/harness/gpu_cases --cases vec_add \
  --json "$O/compare_vec_add_changed.json"
cp /tmp/sched2cu-validate-generated.cu.orig "$g"
run "$S" check --cases case1_simple_gemm,case2_persistent_gemm --json "$O/check_gemm.json"
run "$S" bench --cases case1_simple_gemm,case2_persistent_gemm --json "$O/bench_gemm.json"
run "$S" compare --rev HEAD --cases case1_simple_gemm,case2_persistent_gemm \
  --json "$O/compare_gemm.json"
# GEMM + bias: hand-written (and generated where present) vs reference, then vs cuBLASLt.
run "$S" check --cases case5_addmm_bias --json "$O/check_addmm.json"
run "$S" bench --cases case5_addmm_bias --json "$O/bench_addmm.json"
# Attention forward: case3_FA's reference against a naive f32 kernel (fa_fwd_naive.cu as the
# hand-written kernel of a scratch copy of the case: check must say ok), then the case itself in
# bench (its vendor column is cuDNN through PyTorch: vendor_cudnn.py in its own child).
fa=${TMPDIR:-/tmp}/sched2cu-validate-fa
rm -rf "$fa" && mkdir -p "$fa/case3_FA"
cp examples/case3_FA/bench_spec.cpp examples/case3_FA/vendor_cudnn.py "$fa/case3_FA/"
cp tests/harness/fa_fwd_naive.cu "$fa/case3_FA/handwritten.cu"
run "$S" check --examples "$fa" --cases case3_FA --json "$O/check_fa_naive.json"
run "$S" bench --examples "$fa" --cases case3_FA --json "$O/bench_fa_naive.json"
run "$S" bench --cases case3_FA --json "$O/bench_fa.json"
# LayerNorm: the hand-written kernel (and the generated one where present) against the f64
# reference, check-only shapes included, then bench against PyTorch's layer_norm
# (vendor_layernorm.py) and the roofline copy columns.
run "$S" check --cases case6_layernorm --json "$O/check_layernorm.json"
run "$S" bench --cases case6_layernorm --json "$O/bench_layernorm.json"
# The Triton column (each case's kernel.py compiled by Triton, timed beside generated and
# hand-written): the GPU test on gpu_cases, every case in one bench run, and compare --triton.
run tests/harness/gpu_bench_triton.sh "$S" tests/harness/gpu_cases
run "$S" bench --json "$O/bench_all.json"
run "$S" compare --rev HEAD --triton --cases case6_layernorm --json "$O/compare_triton.json"
