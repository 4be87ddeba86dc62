// Stand-in "generated" kernel of the vec_add harness test case: one element per thread.
#include "sched2cu/abi.h"

namespace {
__global__ void add(const float* x, const float* y, float* z, long long n) {
  long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 4 || a[3].i <= 0) return cudaErrorInvalidValue;
  long long n = a[3].i;
  add<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
      static_cast<const float*>(a[0].ptr), static_cast<const float*>(a[1].ptr),
      static_cast<float*>(a[2].ptr), n);
  return cudaGetLastError();
}
