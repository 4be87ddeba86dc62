// "Hand-written" kernel of the vec_add harness test case: grid-stride, four elements per step.
#include "sched2cu/abi.h"

namespace {
__global__ void add4(const float4* x, const float4* y, float4* z, long long n4) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n4; i += 256ll * gridDim.x) {
    float4 a = x[i], b = y[i];
    z[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (nargs != 4 || a[3].i <= 0 || a[3].i % 4 != 0) return cudaErrorInvalidValue;
  int sms = 0, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  add4<<<sms * 8, 256, 0, stream>>>(static_cast<const float4*>(a[0].ptr),
                                    static_cast<const float4*>(a[1].ptr),
                                    static_cast<float4*>(a[2].ptr), a[3].i / 4);
  return cudaGetLastError();
}
