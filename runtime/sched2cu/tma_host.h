// Host-side TMA descriptor construction: cuTensorMapEncodeTiled reached through
// cudaGetDriverEntryPointByVersion, so no module links libcuda. Header-only, host code only;
// it must never launch anything or allocate device memory.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace sched2cu::rt {

enum class TmaSwizzle : int { none = 0, b32 = 32, b64 = 64, b128 = 128 };

// Cached driver entry point; nullptr when the driver does not provide it.
inline PFN_cuTensorMapEncodeTiled_v12000 tma_encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

inline CUtensorMapSwizzle tma_swizzle_enum(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::b32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case TmaSwizzle::b64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case TmaSwizzle::b128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

// Encodes a tiled tensor map of rank 1..5. dims[0] is the innermost (contiguous) dimension;
// strides_bytes[i] is the byte stride of dimension i+1 (rank-1 entries, multiples of 16);
// box[i] elements per box in dimension i (box[0] * elem_bytes <= swizzle span when swizzled).
// Out-of-bounds box elements read as zero and are not written by stores. Returns
// cudaErrorInvalidValue when the driver rejects the map or lacks the entry point.
inline cudaError_t tma_make_map(CUtensorMap* map, CUtensorMapDataType dtype, int rank, void* base,
                                const uint64_t* dims, const uint64_t* strides_bytes,
                                const uint32_t* box, TmaSwizzle swizzle,
                                CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  // What cuTensorMapEncodeTiled requires of a non-interleaved map, checked here so that a
  // launcher refusing a shape (a row stride that is no multiple of 16 bytes) returns
  // cudaErrorInvalidValue without a failing driver call, which compute-sanitizer reports as an
  // error: rank 1..5, a 16-byte aligned base, extents in [1, 2^32], strides multiples of 16
  // below 2^40, box extents in [1, 256].
  if (rank < 1 || rank > 5 || base == nullptr || reinterpret_cast<uintptr_t>(base) % 16 != 0)
    return cudaErrorInvalidValue;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (uint64_t{1} << 32) || box[i] == 0 || box[i] > 256)
      return cudaErrorInvalidValue;
    if (i + 1 < rank && (strides_bytes[i] % 16 != 0 || strides_bytes[i] >= (uint64_t{1} << 40)))
      return cudaErrorInvalidValue;
  }
  auto fn = tma_encode_fn();
  if (fn == nullptr) return cudaErrorInvalidValue;
  cuuint64_t gdim[5];
  cuuint64_t gstride[5];
  cuuint32_t bdim[5];
  cuuint32_t estride[5];
  for (int i = 0; i < rank; ++i) {
    gdim[i] = dims[i];
    bdim[i] = box[i];
    estride[i] = 1;
    if (i + 1 < rank) gstride[i] = strides_bytes[i];
  }
  CUresult r = fn(map, dtype, static_cast<cuuint32_t>(rank), base, gdim, gstride, bdim, estride,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, tma_swizzle_enum(swizzle), l2,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// Row-major 2D matrix [rows][cols] with leading dimension `ld` elements; box of box_rows x
// box_cols (box_cols contiguous).
inline cudaError_t tma_make_map_2d(CUtensorMap* map, CUtensorMapDataType dtype, int elem_bytes,
                                   void* base, uint64_t rows, uint64_t cols, uint64_t ld,
                                   uint32_t box_rows, uint32_t box_cols, TmaSwizzle swizzle) {
  const uint64_t dims[2] = {cols, rows};
  const uint64_t strides[1] = {ld * static_cast<uint64_t>(elem_bytes)};
  const uint32_t box[2] = {box_cols, box_rows};
  return tma_make_map(map, dtype, 2, base, dims, strides, box, swizzle);
}

}  // namespace sched2cu::rt
