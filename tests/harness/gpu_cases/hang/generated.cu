// A deliberately hanging "generated" kernel: spins until an element of y equals 12345.0, which
// never happens. Validates the harness's per-measurement timeout (the cell must read
// "(error: measurement timed out after N s ...)" and the run must go on).
#include "sched2cu/abi.h"

namespace {
__global__ void spin(const float* y, float* z) {
  volatile const float* v = y;
  while (v[0] != 12345.0f) {
  }
  z[0] = 0.f;
}
}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 4) return cudaErrorInvalidValue;
  spin<<<1, 1, 0, stream>>>(static_cast<const float*>(a[1].ptr), static_cast<float*>(a[2].ptr));
  return cudaGetLastError();
}
