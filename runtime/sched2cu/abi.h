// The launch ABI every generated.cu and handwritten.cu exports, and the harness calls through
// dlsym. Host-side only; version 1. Changing a signature here is a breaking change: bump
// SCHED2CU_ABI_VERSION and the harness check together. See docs/abi.md.
#pragma once

#include <cuda_runtime.h>

#define SCHED2CU_ABI_VERSION 1

extern "C" {

// One kernel argument, in the order of the Triton kernel's parameters in kernel.py (constexpr
// parameters excluded): pointers in .ptr, integers in .i, floating-point scalars in .f.
typedef union sched2cu_arg {
  void* ptr;
  long long i;
  double f;
} sched2cu_arg;

// Launches the kernel(s) on `stream` and returns without synchronizing. Returns cudaSuccess, or
// the first CUDA/driver error met (a wrong `nargs` or an unsupported shape is
// cudaErrorInvalidValue). Tensor maps are built on the host inside this call.
int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream);

// Returns SCHED2CU_ABI_VERSION of the header the module was compiled with.
int sched2cu_abi_version(void);
}

#ifdef __cplusplus
// Host arithmetic of the generated launchers (every product of a grid expression, sgraph::to_cxx,
// and of a tensor descriptor's shape or stride, emit's host_expr, goes through it): the ABI's
// integers are range-checked to their Triton types, but a product of three i32 arguments still
// overflows long long. An overflowing product saturates towards its sign, so that the launcher's
// extent check (cudaErrorInvalidValue) or the descriptor encode refuses it instead of launching a
// wrapped grid or map. Not part of the ABI: nothing calls it across a module.
static inline long long sched2cu_host_mul(long long a, long long b) {
  long long r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? (-0x7fffffffffffffffLL - 1) : 0x7fffffffffffffffLL;
  return r;
}
static inline long long sched2cu_host_min(long long a, long long b) { return a < b ? a : b; }
// The CTAs per program of a launcher whose kernel has a split loop (docs/emitter.md, "Split
// loops"): 2 when the programs alone leave half the SMs idle (programs * 2 <= num_sms), the
// loop's trip count is known (trip >= 0) and each CTA keeps at least
// max(min_share, kSplitMinShare) iterations; else 1 (max_split < 2 also gives 1).
// Why so little: with the first split_sum (one remote reduction per accumulator word per peer
// CTA) on an H100 (2026-12-06, sched2cu bench), 4-way splits ran 5.8x slower at 1024^3 (case1,
// case5: 4 iterations a CTA) and 0.84x the hand-written kernel at case5's 1024x1024x16384 (64 a
// CTA). With split_sum's remote loads (H100, 2026-12-07), 2-way splits ran case7's (4096, 1024,
// 1024) (32 iterations a CTA) at 315 TFLOPS against 251 unsplit, its (16384, 1024, 1024) (128)
// at 477 against 378 with the first sum, and case5's 1024x1024x16384 (128) at 371 against the
// hand-written 223. Under 32 (H100, 2026-12-07, case1 by sched2cu_gemm_bench, the rule at 8):
// 8 iterations a CTA ran 0.85x unsplit at 1024^3, 16 ran 1.04x at 1024x1024x2048 (noise-level).
static const long long kSplitMinShare = 32;
static inline unsigned sched2cu_host_split(long long programs, long long num_sms,
                                           unsigned max_split, long long trip,
                                           long long min_share) {
  const long long share = min_share > kSplitMinShare ? min_share : kSplitMinShare;
  if (max_split >= 2 && programs * 2 <= num_sms && trip >= share * 2) return 2;
  return 1;
}
#endif
