// cuBLAS wrappers: the f32 reference GEMM every GEMM-like spec checks against, and the vendor
// baseline GEMM (f16/bf16 in, f32 accumulate, f16/bf16 out). All matrices are row-major; the
// wrappers do the column-major translation. Never enable TF32 here: the reference must be f32.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "sched2cu/bench/device_ops.h"

namespace sched2cu::bench {

// Operand of a row-major GEMM: `trans` means the buffer stores the transpose ([K,M] for A,
// [N,K] for B) contiguously.
struct GemmOperand {
  const void* ptr;
  DType dtype;
  bool trans = false;
};

class Blas {
 public:
  Blas();
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // c_f32[M,N] = A·B in f32 (operands of any DType; f16/bf16 go straight to cuBLAS with f32
  // compute, the others are converted to f32 first). Synchronizes.
  void gemm_ref_f32(GemmOperand a, GemmOperand b, float* c_f32, long long M, long long N,
                    long long K);

  // Vendor baseline: c[M,N] (f16, bf16 or f32) = A·B with f16/bf16 operands, f32 accumulate.
  // Asynchronous on the legacy default stream; returns 0 or a cublasStatus_t (as int).
  int gemm(GemmOperand a, GemmOperand b, void* c, DType c_type, long long M, long long N,
           long long K);

  // A short description of the status code returned by gemm().
  static std::string status_name(int status);

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace sched2cu::bench
