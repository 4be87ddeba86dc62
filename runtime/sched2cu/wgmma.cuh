// wgmma (warpgroup MMA) primitives for sm_90a: shared-memory matrix descriptors matching the
// TMA swizzles, mma_async for f16/bf16 (k16), fp8 e4m3/e5m2 (k32) and tf32 (k8) with f32
// accumulators,
// A from shared memory or registers, and the fence / commit / wait protocol. All four warps of
// a warpgroup must execute every function here together (.sync.aligned).
#pragma once

#include "sched2cu/common.cuh"

namespace sched2cu::rt {

// Which dimension of an operand tile is contiguous in shared memory: K-major (A row-major MxK,
// B stored NxK) or MN-major (A stored KxM, B row-major KxN). fp8 and tf32 support K-major only.
enum class Major : int { K = 0, MN = 1 };

// Raw descriptor: start address, leading/stride byte offsets, swizzle span in bytes (0, 32,
// 64, 128). Field layout per the PTX ISA "matrix descriptor" section (bits 0-13 addr>>4,
// 16-29 LBO>>4, 32-45 SBO>>4, 62-63 swizzle mode 1=128B 2=64B 3=32B).
SCHED2CU_DEVICE uint64_t wgmma_desc_raw(uint32_t smem_addr, uint32_t lbo, uint32_t sbo,
                                        int swizzle) {
  const uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
  return static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (mode << 62);
}

// The descriptor of the tile `bytes` (a multiple of 16) past the one `d` describes: the start
// address field holds bits 4..17 of the shared-memory address, and every shared address is below
// 2^18, so the field's sum never carries into the next one. One add per k-step on a descriptor
// built once per tile, where building each from its address took four operations per operand
// (a mask, a shift, an or and a move per k-step, most of a wgmma loop's uniform instructions).
SCHED2CU_DEVICE uint64_t wgmma_desc_step(uint64_t d, uint32_t bytes) { return d + (bytes >> 4); }

// Descriptor for k-step `ks` (16 f16/bf16, 32 fp8 or 8 tf32 elements = 32 bytes of K) of a K-major
// operand tile with `Rows` rows (M or N) as TMA writes it: the tile's K extent is split into
// boxes of `Swizzle` bytes (16 bytes when Swizzle == 0), each box [Rows][box bytes], boxes
// consecutive. The tile base must be 1024-byte aligned (8 * Swizzle for smaller swizzles).
template <int Swizzle, int Rows>
SCHED2CU_DEVICE uint64_t wgmma_desc_k(const void* tile, int ks) {
  static_assert(Rows % 8 == 0, "operand rows come in 8-row core matrices");
  const uint32_t base = smem_u32(tile);
  if constexpr (Swizzle == 0) {
    // Core matrices 8 rows x 16 B; a k-step spans two 16-byte boxes.
    return wgmma_desc_raw(base + static_cast<uint32_t>(2 * ks) * Rows * 16, Rows * 16, 128, 0);
  } else {
    const uint32_t kb = static_cast<uint32_t>(ks) * 32;
    return wgmma_desc_step(wgmma_desc_raw(base, 16, 8 * Swizzle, Swizzle),
                           (kb / Swizzle) * Rows * Swizzle + (kb % Swizzle));
  }
}

// Descriptor for k-step `ks` (16 elements of K, f16/bf16 only) of an MN-major operand tile with
// `KRows` rows of K, as TMA writes it: the MN extent split into boxes of `Swizzle` bytes (16
// when Swizzle == 0), each box [KRows][box bytes], boxes consecutive.
template <int Swizzle, int KRows>
SCHED2CU_DEVICE uint64_t wgmma_desc_mn(const void* tile, int ks) {
  static_assert(KRows % 16 == 0, "K rows come in k16 steps");
  const uint32_t base = smem_u32(tile);
  if constexpr (Swizzle == 0) {
    return wgmma_desc_raw(base + static_cast<uint32_t>(ks) * 16 * 16, 128, KRows * 16, 0);
  } else {
    return wgmma_desc_step(wgmma_desc_raw(base, KRows * Swizzle, 8 * Swizzle, Swizzle),
                           static_cast<uint32_t>(ks) * 16 * Swizzle);
  }
}

// Makes prior register/shared-memory writes visible to the next wgmma (before the first
// wgmma of a batch, and whenever accumulator or A registers were touched in between).
SCHED2CU_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// Closes the group of wgmma issued since the last commit.
SCHED2CU_DEVICE void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// Waits until at most N committed groups of this warpgroup are pending. Only after this may
// the accumulators of finished groups be read, or their shared-memory operands be released.
template <int N>
SCHED2CU_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Compiler-only barrier on accumulator registers, so that reads/writes of `d` are not moved
// across wgmma issue or wait (the asm statements do not name every register they use).
template <int K>
SCHED2CU_DEVICE void wgmma_fence_operand(float (&d)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int K>
SCHED2CU_DEVICE void wgmma_fence_operand(uint32_t (&d)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// The operand type of a tf32 wgmma: f32 values in shared memory (or registers), of which the
// tensor core reads the tf32 part (sign, exponent and the top 10 mantissa bits), as Triton's
// `tl.dot` of f32 tiles with its default input_precision "tf32" does on Hopper.
struct tf32 {};

template <int N, class TA, class TB>
struct WgmmaOp;  // specialized in wgmma_ops.inc

#include "sched2cu/wgmma_ops.inc"

// D[64xN] = A[64xK] * B[KxN] + (scale_d ? D : 0), A and B from shared-memory descriptors.
// K = 16 for f16/bf16, 32 for fp8, 8 for tf32. N in 8..256 step 8. d holds the accumulator fragment
// (see regtile.cuh for the layout).
template <int N, class TA, class TB, Major MA = Major::K, Major MB = Major::K>
SCHED2CU_DEVICE void wgmma_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                              int scale_d = 1) {
  WgmmaOp<N, TA, TB>::template ss<static_cast<int>(MA), static_cast<int>(MB)>(d, desc_a, desc_b,
                                                                              scale_d);
}

// Same with A from registers: a[4] holds this thread's A fragment (see regtile.cuh,
// acc_to_a_f16 / acc_to_a_fp8). A is always K-major in registers.
template <int N, class TA, class TB, Major MB = Major::K>
SCHED2CU_DEVICE void wgmma_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                              int scale_d = 1) {
  WgmmaOp<N, TA, TB>::template rs<static_cast<int>(MB)>(d, a, desc_b, scale_d);
}

}  // namespace sched2cu::rt
