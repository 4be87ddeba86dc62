// Turns CUDA runtime and cuBLAS status codes into sched2cu::Error with the failing call named.
// Used by every GPU-facing part of the bench library; it must never abort the process, because a
// measurement child reports the message as its result.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "sched2cu/common/diag.h"

namespace sched2cu::bench {

// Throws sched2cu::Error("<what>: <cudaErrorName>: <description>") unless `e` is cudaSuccess.
inline void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    throw Error(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }
}

// The name of a CUDA error code returned through the launch ABI (an int).
inline std::string cuda_error_name(int code) {
  return cudaGetErrorName(static_cast<cudaError_t>(code));
}

}  // namespace sched2cu::bench
