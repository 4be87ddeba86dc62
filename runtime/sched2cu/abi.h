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
// loops"): the largest power of two s <= max_split with programs * s <= num_sms (the programs
// alone leave SMs idle) and, where the loop's trip count is known (trip >= 0), at least
// min_share iterations per CTA, so that every CTA's pipeline fills before the sum; else 1.
static inline unsigned sched2cu_host_split(long long programs, long long num_sms,
                                           unsigned max_split, long long trip,
                                           long long min_share) {
  for (unsigned s = max_split; s > 1; s /= 2)
    if (programs * s <= num_sms && (trip < 0 || trip >= min_share * s)) return s;
  return 1;
}
#endif
