// Shared basics of the sched2cu device runtime (sm_90a): attribute macros, shared-memory address
// conversion and the integer helpers emitted scalar code calls. Every runtime header includes
// this; it must never contain kernel logic.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#define SCHED2CU_DEVICE __device__ __forceinline__

namespace sched2cu::rt {

// 32-bit shared-window address of a generic pointer into shared memory (what every PTX
// instruction with a .shared operand takes).
SCHED2CU_DEVICE uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Dynamic shared memory. The launcher asks for its byte count plus 1024 so that kernels can
// round the base up with smem_align<1024>() (swizzled TMA boxes need 1024-byte alignment and
// the runtime does not rely on the declared alignment being honoured).
extern __shared__ __align__(1024) uint8_t dyn_smem[];

// MLIR's arith.ceildivsi: the ceiling of a / b for either sign (C++ division truncates; the
// quotient goes one up where a remainder is left and the exact quotient is positive). Checked
// below at every compile of a kernel.
template <class T>
__host__ __device__ constexpr T ceil_div_signed(T a, T b) {
  return a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}
static_assert(ceil_div_signed(7, 2) == 4 && ceil_div_signed(8, 2) == 4 &&
              ceil_div_signed(-7, 2) == -3 && ceil_div_signed(7, -2) == -3 &&
              ceil_div_signed(-7, -2) == 4 && ceil_div_signed(-200, 132) == -1 &&
              ceil_div_signed(0, 5) == 0 && ceil_div_signed(-5, 132) == 0);

template <uint32_t Align>
SCHED2CU_DEVICE uint8_t* smem_align(uint8_t* p) {
  static_assert((Align & (Align - 1)) == 0, "alignment must be a power of two");
  const uint32_t a = smem_u32(p);
  return p + (((a + Align - 1) & ~(Align - 1)) - a);
}

}  // namespace sched2cu::rt
