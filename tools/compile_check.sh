#!/usr/bin/env bash
# Compile check for sm_90a without a GPU (what tools/bootstrap.sh and the ctest
# kernels_compile_sm90a run): every kernel (generated.cu, handwritten.cu) must compile with no
# ptxas spill, stack frame or wgmma serialization, and every bench_spec.cpp must compile as the
# harness compiles it. With --cases only those cases (names relative to examples/, as for
# sched2cu --cases): the check for one case you are adding.
#
#   bash tools/compile_check.sh [--cases a,b] [--examples DIR] [--out DIR]
#
# Objects go to --out (default build/compile_check); $SCHED2CU_NVCC overrides nvcc.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cases="" examples="" out="$root/build/compile_check"
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --cases) [ $# -ge 2 ] || usage; cases=$2; shift 2 ;;
    --cases=*) cases=${1#--cases=}; shift ;;
    --examples) [ $# -ge 2 ] || usage; examples=$(cd "$2" && pwd); shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "compile_check.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
nvcc=${SCHED2CU_NVCC:-$(command -v nvcc || true)}
if [ -z "$nvcc" ]; then
  echo "compile_check.sh: nvcc not found (put CUDA's bin on the PATH or set SCHED2CU_NVCC)" >&2
  exit 2
fi
start=$SECONDS
cmake -DNVCC="$nvcc" -DSRC="$root" -DOUT="$out" -DCASES="$cases" -DEXAMPLES="$examples" \
  -P "$root/tests/emit/compile_generated.cmake"
echo "compile_check.sh: ${cases:-every case}: every kernel and spec compiles for sm_90a" \
  "($((SECONDS - start)) s)" >&2
