// GPU test of packed_store_smem (runtime/sched2cu/regtile.cuh): a warpgroup's 16-bit register
// tile written into shared memory as TMA would lay it out (the emitter's register exchange
// through shared memory, attention backward's dSᵀ). The stmatrix form must write, byte for
// byte, what the element-store form it replaced wrote (kept below as the reference), at every
// swizzle, for one and two boxes per row, two warpgroups at their row offsets, and a tile of
// two slabs; and every element must land exactly once (no element lost or doubled).
#include <set>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

namespace {

// The element-store form (commit b3e9607): two 4-byte stores per 8-column block and slab.
template <int Swizzle, int Rows, int M, int N>
__device__ void packed_store_smem_ref(void* tile, const PackedTile<M, N>& d, int row0) {
  constexpr int kBoxCols = Swizzle / 2;
  uint8_t* base = static_cast<uint8_t*>(tile);
  const int t = static_cast<int>(threadIdx.x % 128);
  const int r = 16 * (t / 32) + (t % 32) / 4;
  const int cq = 2 * (t % 4);
  for (int s = 0; s < M / 64; ++s)
    for (int blk = 0; blk < N / 8; ++blk) {
      uint8_t* b = base + (8 * blk / kBoxCols) * Rows * Swizzle;
      const uint32_t cb = static_cast<uint32_t>(((8 * blk) % kBoxCols + cq) * 2);
      const uint32_t row = static_cast<uint32_t>(row0 + 64 * s + r);
      *reinterpret_cast<uint32_t*>(b + swizzle_offset<Swizzle, Swizzle>(row, cb)) = d.p[s][2 * blk];
      *reinterpret_cast<uint32_t*>(b + swizzle_offset<Swizzle, Swizzle>(row + 8, cb)) =
          d.p[s][2 * blk + 1];
    }
}

// Each warpgroup fills its tile with element (row, col) = row * N + col + 1 (the accumulator's
// fragment: rows 16 (t / 32) + (t % 32) / 4 and + 8, columns 8 blk + 2 (t % 4) and + 1, the
// first in the low half), writes it at rows 64 (M / 64) wg on, by both forms, and copies both
// shared-memory images out.
template <int Swizzle, int M, int N>
__global__ void store_kernel(uint16_t* got, uint16_t* want) {
  constexpr int kRows = 2 * M;  // two warpgroups
  constexpr int kBytes = kRows * N * 2;
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* a = smem;
  uint8_t* b = smem + kBytes;
  const int wg = static_cast<int>(threadIdx.x / 128), t = static_cast<int>(threadIdx.x % 128);
  PackedTile<M, N> d;
  for (int s = 0; s < M / 64; ++s)
    for (int blk = 0; blk < N / 8; ++blk)
      for (int h = 0; h < 2; ++h) {
        const uint32_t row =
            static_cast<uint32_t>(M * wg + 64 * s + 16 * (t / 32) + (t % 32) / 4 + 8 * h);
        const uint32_t col = static_cast<uint32_t>(8 * blk + 2 * (t % 4));
        d.p[s][2 * blk + h] = (row * N + col + 1) | ((row * N + col + 2) << 16);
      }
  for (int i = static_cast<int>(threadIdx.x); i < 2 * kBytes; i += static_cast<int>(blockDim.x))
    smem[i] = 0;
  __syncthreads();
  packed_store_smem<Swizzle, kRows>(a, d, M * wg);
  packed_store_smem_ref<Swizzle, kRows>(b, d, M * wg);
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kBytes / 2; i += static_cast<int>(blockDim.x)) {
    got[i] = reinterpret_cast<const uint16_t*>(a)[i];
    want[i] = reinterpret_cast<const uint16_t*>(b)[i];
  }
}

template <int Swizzle, int M, int N>
void run(rt_test::Result& res, const char* what) {
  constexpr int kElems = 2 * M * N;
  uint16_t *dg, *dw;
  RT_CHECK(cudaMalloc(&dg, kElems * 2));
  RT_CHECK(cudaMalloc(&dw, kElems * 2));
  const int smem = 2 * kElems * 2;
  RT_CHECK(cudaFuncSetAttribute(store_kernel<Swizzle, M, N>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  rt_test::launch_sync([&] { store_kernel<Swizzle, M, N><<<1, 256, smem>>>(dg, dw); }, what);
  std::vector<uint16_t> got(kElems), want(kElems);
  RT_CHECK(cudaMemcpy(got.data(), dg, kElems * 2, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(want.data(), dw, kElems * 2, cudaMemcpyDeviceToHost));
  std::set<uint16_t> seen(got.begin(), got.end());
  const bool every_once = seen.size() == static_cast<size_t>(kElems) && seen.count(0) == 0;
  res.check(got == want && every_once, what);
  RT_CHECK(cudaFree(dg));
  RT_CHECK(cudaFree(dw));
}

}  // namespace

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  run<128, 64, 64>(res, "128-byte swizzle, one box per row (attention backward's dS exchange)");
  run<128, 64, 128>(res, "128-byte swizzle, two boxes per row");
  run<64, 64, 64>(res, "64-byte swizzle, two boxes per row");
  run<32, 64, 32>(res, "32-byte swizzle, two boxes per row");
  run<128, 128, 64>(res, "two slabs per warpgroup");
  return res.exit_code();
}
