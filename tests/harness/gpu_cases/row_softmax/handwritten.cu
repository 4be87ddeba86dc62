// Hand-written kernel of the row_softmax harness test case: one 256-thread block per row
// (grid-stride over rows), a max pass, a sum-of-exponentials pass and a writing pass over the
// row, block reductions through shared memory. A plain correctness baseline for the generated
// kernel, not a tuned one; same ABI (X, Y, n_rows, n_cols, stride).
#include <cuda_fp16.h>

#include "sched2cu/abi.h"

namespace {

constexpr int kThreads = 256;

template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < kThreads / 32; ++w) v = kMax ? fmaxf(v, scratch[w]) : v + scratch[w];
  __syncthreads();
  return v;
}

__global__ void __launch_bounds__(kThreads)
    row_softmax(const __half* x, __half* y, int rows, int cols, int stride) {
  __shared__ float scratch[kThreads / 32];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const __half* xr = x + static_cast<long long>(r) * stride;
    __half* yr = y + static_cast<long long>(r) * stride;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, __half2float(xr[j]));
    m = block_reduce<true>(m, scratch);
    float l = 0.f;
    for (int j = threadIdx.x; j < cols; j += kThreads) l += __expf(__half2float(xr[j]) - m);
    l = block_reduce<false>(l, scratch);
    for (int j = threadIdx.x; j < cols; j += kThreads)
      yr[j] = __float2half(__expf(__half2float(xr[j]) - m) / l);
  }
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }
extern "C" int sched2cu_launch(const sched2cu_arg* a, int nargs, cudaStream_t stream) {
  if (a == nullptr || nargs != 5 || a[2].i < 0 || a[3].i < 0 || a[4].i < a[3].i ||
      a[2].i > 2147483647LL || a[4].i > 2147483647LL)
    return cudaErrorInvalidValue;
  if (a[2].i == 0) return cudaSuccess;
  int sms = 0, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const long long grid = a[2].i < 8LL * sms ? a[2].i : 8LL * sms;
  row_softmax<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(
      static_cast<const __half*>(a[0].ptr), static_cast<__half*>(a[1].ptr),
      static_cast<int>(a[2].i), static_cast<int>(a[3].i), static_cast<int>(a[4].i));
  return cudaGetLastError();
}
