// cuBLAS wrappers: the f32 reference GEMM every GEMM-like spec checks against, the vendor
// baseline GEMM (f16/bf16 in, f32 accumulate, f16/bf16 out) and the vendor addmm (cuBLASLt,
// D = A·B + C out of place). All matrices are row-major; the wrappers do the column-major
// translation. Never enable TF32 here: the reference must be f32.
#pragma once

#include <cublas_v2.h>

#include <memory>
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

// The column-major problem cuBLAS solves for a row-major C[M,N] = A·B: C^T = B^T·A^T, so its
// first operand is B and its second is A. Each operand is stored column-major as rows x cols
// with leading dimension ld (= rows); `trans` is the op cuBLAS applies to it. The output is
// N x M with ld N. Pure arithmetic (no GPU).
struct ColMajorOperand {
  bool trans;
  long long rows, cols, ld;
};
struct ColMajorGemm {
  long long m, n, k;  // cuBLAS's m = N, n = M, k = K
  ColMajorOperand first, second;
  long long out_rows, out_cols, ld_out;
};
ColMajorGemm col_major_view(bool a_trans, bool b_trans, long long M, long long N, long long K);

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

  // Vendor addmm (cuBLASLt): out[M,N] = A·B + bias[M,N], both `out` and `bias` of `out_type`
  // (f16, bf16 or f32), f16/bf16 operands of one type, f32 compute and scale (alpha = beta = 1,
  // C = bias, D = out: out of place). The plan (descriptors and the heuristic's algorithm) is
  // made once per problem and pointer alignment, so timed calls do no host-side search.
  // Asynchronous on the legacy default stream; returns 0 or a cublasStatus_t (as int).
  int addmm(GemmOperand a, GemmOperand b, const void* bias, void* out, DType out_type, long long M,
            long long N, long long K);

  // A short description of the status code returned by gemm() or addmm().
  static std::string status_name(int status);

 private:
  struct LtState;
  cublasHandle_t h_ = nullptr;
  std::unique_ptr<LtState> lt_;
};

}  // namespace sched2cu::bench
