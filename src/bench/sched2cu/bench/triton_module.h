// A kernel compiled by Triton (its cubin and the launch facts of Triton's metadata), loaded with
// the CUDA driver API and launched the way Triton 3.6's own launcher does it
// (third_party/nvidia/backend/driver.py): kernel.py's non-constexpr parameters packed at their
// Triton types, then the global and the profile scratch pointers; 32 * num_warps threads;
// metadata.shared bytes of dynamic shared memory. Driver entry points come from
// cudaGetDriverEntryPointByVersion, so nothing here links libcuda. It never launches a kernel
// whose real parameter list (the sizes of the PTX .entry's parameters) differs from what it
// packs, and never allocates or frees device memory (the caller owns the scratch buffers).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <string>
#include <vector>

#include "sched2cu/abi.h"

namespace sched2cu::bench {

// How Triton's launcher encodes the tensor map of a tensor descriptor parameter (metadata
// "tensordesc_meta", make_tensordesc_arg of third_party/nvidia/backend/driver.py).
struct TensordescMeta {
  int swizzle = 0;    // CUtensorMapSwizzle
  int elem_size = 0;  // bytes
  int elem_type = 0;  // Triton's device-side data type code (mapped to CUtensorMapDataType)
  std::vector<long long> block_size;  // the box, dim 0 outermost
  bool fp4_padded = false;
};

// The rank of a tensor descriptor parameter type ("tensordesc<fp16[128, 64]>" -> 2), 0 for any
// other type. Throws sched2cu::Error for a malformed one.
int tensordesc_rank(const std::string& type);

// Where each signature parameter starts among the launch-ABI arguments (docs/abi.md): one
// argument each, but a tensor descriptor takes 1 + 2 * rank (its base pointer, extents and
// strides). The last element is the ABI's argument count.
std::vector<int> abi_positions(const std::vector<std::string>& types);

// A tensor map as Triton's launcher encodes it (fill_tma_descriptor): the arguments of
// cuTensorMapEncodeTiled, innermost dimension first.
struct TensorMapRequest {
  int data_type = 0;  // CUtensorMapDataType
  int rank = 0;
  void* base = nullptr;
  std::vector<unsigned long long> dims, strides;  // strides: bytes, rank - 1 of them
  std::vector<unsigned> box;
  int swizzle = 0;  // CUtensorMapSwizzle
  bool nan_fill = false;
};
// Encodes `r` into the 128 bytes at `out`; returns the CUresult (0 = success).
using TensorMapEncoder = int (*)(const TensorMapRequest& r, void* out);
// The driver's cuTensorMapEncodeTiled (interleave none, L2 promotion 128 B, element strides 1).
int encode_tensor_map(const TensorMapRequest& r, void* out);

// What the compile reported about the kernel (tools/triton_compile.py's result JSON).
struct TritonKernelInfo {
  std::string name;  // the cubin's kernel function
  int num_warps = 4;
  int num_ctas = 1;
  long long shared = 0;  // dynamic shared memory per block, bytes
  long long global_scratch_size = 0, global_scratch_align = 1;  // per program
  long long profile_scratch_size = 0, profile_scratch_align = 1;
  bool launch_cooperative_grid = false, launch_pdl = false;
  std::vector<std::string> param_types;  // kernel.py's signature, in order: "*fp16", "i32", ...
  // Signature positions compiled as the constexpr 1 (the JIT's specialization of an integer
  // argument equal to 1): not kernel parameters, so never packed.
  std::vector<int> specialized;
  std::vector<int> entry_param_bytes;      // the PTX .entry's parameter sizes, scratch included
  std::vector<TensordescMeta> tensordesc;  // per tensor descriptor parameter, in order
};

// Triton kernel parameters packed from launch-ABI arguments (pure but for the tensor maps of
// tensor descriptor parameters, which the driver encodes unless another encoder is given).
class TritonParams {
 public:
  // Packs args[i] at k.param_types[i], except the positions in k.specialized: a pointer type
  // ("*...") from .ptr, 8 bytes; i1, i8, i16, i32, i64 and u1 ... u64 from .i, range checked; fp16
  // and bf16 (the bit patterns Triton's launcher makes: fp16 rounded to nearest, bf16 truncated),
  // fp32 and fp64 from .f. Then two 8-byte slots for the scratch pointers (null until set_scratch).
  // A tensor descriptor parameter takes its base pointer, extents and strides from the ABI
  // (abi_positions) and is packed as Triton's launcher packs it: the 128-byte tensor map (made
  // by `encode` from k.tensordesc), then the extents as i32 and the strides as i64.
  // Throws sched2cu::Error on a count mismatch, an unknown type, a value out of range, a map the
  // encoder refuses, or sizes that differ from k.entry_param_bytes.
  TritonParams(const TritonKernelInfo& k, const sched2cu_arg* args, int nargs,
               TensorMapEncoder encode = encode_tensor_map);
  TritonParams(const TritonParams&) = delete;
  TritonParams& operator=(const TritonParams&) = delete;

  void set_scratch(void* global, void* profile);
  // The kernelParams array cuLaunchKernel takes (one pointer per parameter, into this object).
  void** pointers() { return ptrs_.data(); }
  size_t size() const { return sizes_.size(); }
  // Parameter i's bytes (for tests and error messages).
  std::vector<unsigned char> bytes(size_t i) const;

 private:
  std::vector<std::array<unsigned char, 8>> slots_;
  std::vector<size_t> sizes_;
  std::vector<void*> ptrs_;
  // Tensor maps (128 bytes, 64-byte aligned as CUtensorMap); slot i of a map parameter is
  // unused and its pointer points here.
  struct alignas(64) Map {
    unsigned char bytes[128];
  };
  std::vector<Map> maps_;
  std::vector<int> map_of_;  // per parameter: index into maps_, or -1
};

class TritonModule {
 public:
  // Loads the cubin file into the current context (the primary context the runtime made
  // current: call after any runtime call) and opts the kernel into k.shared bytes of dynamic
  // shared memory. Throws sched2cu::Error when the driver lacks an entry point, the file cannot
  // be read, the driver refuses the module, or the kernel asks for what this launcher does not
  // do (num_ctas != 1, a cooperative grid, programmatic dependent launch).
  TritonModule(const std::string& cubin_path, TritonKernelInfo k);
  ~TritonModule();
  TritonModule(const TritonModule&) = delete;
  TritonModule& operator=(const TritonModule&) = delete;

  // Launches grid (x, y, z) on `stream` without synchronizing. Returns the CUresult (0 =
  // success); error_name() names it.
  int launch(const std::array<unsigned, 3>& grid, TritonParams& params,
             cudaStream_t stream = nullptr) const;
  static std::string error_name(int cu_result);
  const TritonKernelInfo& info() const { return k_; }

 private:
  TritonKernelInfo k_;
  void* module_ = nullptr;    // CUmodule
  void* function_ = nullptr;  // CUfunction
};

}  // namespace sched2cu::bench
