// A deliberately simple f16 GEMM (C = A·B, row-major, f32 accumulate) exporting the launch ABI
// with args (a, b, c, M, N, K [, six strides]). It exists to validate sched2cu_gemm_bench and the
// ABI loader on the GPU machine; it is not a performance reference and must stay obviously right.
#include <cuda_fp16.h>

#include "sched2cu/abi.h"

namespace {

constexpr int T = 16;

__global__ void naive_gemm(const __half* a, const __half* b, __half* c, long long M, long long N,
                           long long K, long long sam, long long sak, long long sbk, long long sbn,
                           long long scm, long long scn) {
  __shared__ float as[T][T], bs[T][T];
  long long row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.f;
  for (long long k0 = 0; k0 < K; k0 += T) {
    long long ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] =
        (row < M && ka < K) ? __half2float(a[row * sam + ka * sak]) : 0.f;
    bs[threadIdx.y][threadIdx.x] =
        (kb < K && col < N) ? __half2float(b[kb * sbk + col * sbn]) : 0.f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) c[row * scm + col * scn] = __float2half_rn(acc);
}

}  // namespace

extern "C" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }

extern "C" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) {
  if (nargs != 6 && nargs != 12) return cudaErrorInvalidValue;
  long long M = args[3].i, N = args[4].i, K = args[5].i;
  if (M <= 0 || N <= 0 || K <= 0) return cudaErrorInvalidValue;
  long long s[6] = {K, 1, N, 1, N, 1};
  if (nargs == 12) {
    for (int i = 0; i < 6; ++i) s[i] = args[6 + i].i;
  }
  dim3 grid(static_cast<unsigned>((N + T - 1) / T), static_cast<unsigned>((M + T - 1) / T));
  naive_gemm<<<grid, dim3(T, T), 0, stream>>>(
      static_cast<const __half*>(args[0].ptr), static_cast<const __half*>(args[1].ptr),
      static_cast<__half*>(args[2].ptr), M, N, K, s[0], s[1], s[2], s[3], s[4], s[5]);
  return cudaGetLastError();
}
