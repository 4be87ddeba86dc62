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
