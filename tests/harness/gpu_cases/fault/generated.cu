// A deliberately faulting "generated" kernel: writes far outside its output (an illegal
// address). Validates that a sticky CUDA fault costs one cell, not the run.
#include "sched2cu/abi.h"

namespace {
__global__ void wild(float* z) { z[(1ll << 40) + threadIdx.x] = 1.f; }
}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 4) return cudaErrorInvalidValue;
  wild<<<1, 32, 0, stream>>>(static_cast<float*>(a[2].ptr));
  return cudaGetLastError();
}
