// TMA (cp.async.bulk.tensor) device primitives: tiled loads completing on an mbarrier, stores
// and reduce-add stores from shared memory with bulk-group completion, and the async-proxy
// fence. Tensor maps are built on the host (tma_host.h) and passed as __grid_constant__
// CUtensorMap kernel parameters. Never build descriptors on the device here.
#pragma once

#include <cuda.h>  // CUtensorMap (type only; no libcuda symbol is referenced)

#include "sched2cu/common.cuh"

namespace sched2cu::rt {

// Prefetch a tensor map (kernel parameter) into the descriptor cache.
SCHED2CU_DEVICE void tma_prefetch_desc(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// 2D tiled load of one box at element coordinates (c0 innermost, c1) into shared memory at
// `dst`; completes `box bytes` of transactions on `bar`. One thread issues it.
SCHED2CU_DEVICE void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int32_t c0,
                                 int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// 1D tiled load of one box at element coordinate c0.
SCHED2CU_DEVICE void tma_load_1d(void* dst, const CUtensorMap* map, uint64_t* bar, int32_t c0) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3}], [%2];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0)
      : "memory");
}

SCHED2CU_DEVICE void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar, int32_t c0,
                                 int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// 2D tiled load multicast to every CTA of the cluster whose bit is set in `cta_mask`: the box
// lands at the same shared-memory offset as `dst` in each of them and completes its bytes on
// the mbarrier at the same offset as `bar` in each of them.
SCHED2CU_DEVICE void tma_load_2d_multicast(void* dst, const CUtensorMap* map, uint64_t* bar,
                                           int32_t c0, int32_t c1, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// Tiled store of one box from shared memory; part of the current bulk group (tma_commit).
// The writing threads must have executed fence_proxy_async() and synchronized before.
SCHED2CU_DEVICE void tma_store_2d(const CUtensorMap* map, const void* src, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_u32(src)), "r"(c0), "r"(c1)
               : "memory");
}

SCHED2CU_DEVICE void tma_store_1d(const CUtensorMap* map, const void* src, int32_t c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_u32(src)), "r"(c0)
               : "memory");
}

SCHED2CU_DEVICE void tma_store_3d(const CUtensorMap* map, const void* src, int32_t c0, int32_t c1,
                                  int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// Element-wise atomic add of a shared-memory box into global memory (f32/f16/bf16 maps).
SCHED2CU_DEVICE void tma_reduce_add_2d(const CUtensorMap* map, const void* src, int32_t c0,
                                       int32_t c1) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3}], [%1];" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1)
      : "memory");
}

SCHED2CU_DEVICE void tma_reduce_add_3d(const CUtensorMap* map, const void* src, int32_t c0,
                                       int32_t c1, int32_t c2) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3, %4}], [%1];" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// Closes the bulk group of stores/reductions issued so far by this thread.
SCHED2CU_DEVICE void tma_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most N of this thread's bulk groups are pending (writes visible in global).
template <int N>
SCHED2CU_DEVICE void tma_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// Waits until at most N of this thread's bulk groups still READ their shared-memory source
// (the source may then be overwritten; global writes may still be in flight).
template <int N>
SCHED2CU_DEVICE void tma_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// Orders this thread's prior generic-proxy shared-memory accesses (ordinary stores, stmatrix)
// before later async-proxy accesses (TMA store source reads, wgmma operand reads).
SCHED2CU_DEVICE void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Byte offset of element (row, col_byte) inside a box whose rows are `RowBytes` wide and
// swizzled with `Swizzle` bytes (128, 64, 32, or 0 = none), as TMA lays it out. Requires the
// box base to be aligned to 8 * Swizzle bytes (1024 for 128B).
template <int Swizzle, int RowBytes>
SCHED2CU_DEVICE uint32_t swizzle_offset(uint32_t row, uint32_t col_byte) {
  static_assert(Swizzle == 0 || Swizzle == 32 || Swizzle == 64 || Swizzle == 128,
                "swizzle is 0, 32, 64 or 128 bytes");
  const uint32_t off = row * RowBytes + col_byte;
  if constexpr (Swizzle == 0) {
    return off;
  } else {
    static_assert(RowBytes == Swizzle, "a swizzled TMA box row is exactly the swizzle span");
    // 16-byte chunk index bits [4, log2(Swizzle)) are XORed with the row-within-atom bits.
    constexpr uint32_t kMask = (Swizzle / 16) - 1;
    return off ^ (((off >> 7) & kMask) << 4);
  }
}

}  // namespace sched2cu::rt
