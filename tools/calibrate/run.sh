#!/usr/bin/env bash
# Builds and runs the sm_90a calibration micro-benchmarks and prints their JSON lines.
# Usage (on the H200, from the repository root):  tools/calibrate/run.sh [OUT.jsonl]
# Needs only nvcc and the CUDA driver; builds into a temporary directory. Exit 77 = no Hopper GPU.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-/dev/stdout}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a)
nvcc "${flags[@]}" -o "$tmp/tma_bench" "$here/tma_bench.cu" -lcuda 2>/dev/null ||
  nvcc "${flags[@]}" -o "$tmp/tma_bench" "$here/tma_bench.cu"
nvcc "${flags[@]}" -o "$tmp/wgmma_bench" "$here/wgmma_bench.cu" 2>&1 | grep -v C7519 || true
{
  "$tmp/tma_bench"
  "$tmp/wgmma_bench"
} > "$out"
