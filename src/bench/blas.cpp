// cuBLAS GEMM wrappers (see blas.h). Row-major C = A·B is computed as column-major
// C^T = B^T · A^T, which is why B is passed first.
#include "sched2cu/bench/blas.h"

#include <cuda_runtime.h>

#include "sched2cu/bench/cuda_check.h"

namespace sched2cu::bench {

namespace {

cudaDataType cuda_type(DType t) {
  switch (t) {
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::f32:
      return CUDA_R_32F;
    case DType::e4m3:
      return CUDA_R_8F_E4M3;
    case DType::e5m2:
      return CUDA_R_8F_E5M2;
    case DType::i32:
      return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

void check_blas(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(what + ": " + Blas::status_name(s));
}

int gemm_ex(cublasHandle_t h, GemmOperand a, GemmOperand b, void* c, DType ct, long long M,
            long long N, long long K) {
  if (M <= 0 || N <= 0 || K <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  float alpha = 1.f, beta = 0.f;
  cublasOperation_t opb = b.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opa = a.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  long long ldb = b.trans ? K : N;
  long long lda = a.trans ? M : K;
  return cublasGemmEx_64(h, opb, opa, N, M, K, &alpha, b.ptr, cuda_type(b.dtype), ldb, a.ptr,
                         cuda_type(a.dtype), lda, &beta, c, cuda_type(ct), N, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check_cuda(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
};

}  // namespace

Blas::Blas() {
  check_blas(cublasCreate(&h_), "cublasCreate");
  check_blas(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

Blas::~Blas() {
  if (h_) cublasDestroy(h_);
}

std::string Blas::status_name(int status) {
  return std::string(cublasGetStatusName(static_cast<cublasStatus_t>(status))) + " (" +
         cublasGetStatusString(static_cast<cublasStatus_t>(status)) + ")";
}

void Blas::gemm_ref_f32(GemmOperand a, GemmOperand b, float* c_f32, long long M, long long N,
                        long long K) {
  auto direct = [](DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32; };
  // cuBLAS needs both operands of one type; anything else goes through f32 copies.
  if (!(direct(a.dtype) && a.dtype == b.dtype)) {
    DeviceBuffer a32(size_t(M) * K * 4), b32(size_t(K) * N * 4);
    convert_to_f32(a.ptr, a.dtype, static_cast<float*>(a32.p), size_t(M) * K);
    convert_to_f32(b.ptr, b.dtype, static_cast<float*>(b32.p), size_t(K) * N);
    check_blas(static_cast<cublasStatus_t>(gemm_ex(h_, {a32.p, DType::f32, a.trans},
                                                   {b32.p, DType::f32, b.trans}, c_f32, DType::f32,
                                                   M, N, K)),
               "reference GEMM (f32)");
    check_cuda(cudaDeviceSynchronize(), "reference GEMM");
    return;
  }
  check_blas(static_cast<cublasStatus_t>(gemm_ex(h_, a, b, c_f32, DType::f32, M, N, K)),
             "reference GEMM");
  check_cuda(cudaDeviceSynchronize(), "reference GEMM");
}

int Blas::gemm(GemmOperand a, GemmOperand b, void* c, DType c_type, long long M, long long N,
               long long K) {
  return gemm_ex(h_, a, b, c, c_type, M, N, K);
}

}  // namespace sched2cu::bench
