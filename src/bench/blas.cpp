// cuBLAS and cuBLASLt GEMM wrappers (see blas.h). Row-major C = A·B is computed as column-major
// C^T = B^T · A^T, which is why B is passed first.
#include "sched2cu/bench/blas.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <array>
#include <map>

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

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

int gemm_ex(cublasHandle_t h, GemmOperand a, GemmOperand b, void* c, DType ct, long long M,
            long long N, long long K) {
  if (M <= 0 || N <= 0 || K <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  float alpha = 1.f, beta = 0.f;
  const ColMajorGemm g = col_major_view(a.trans, b.trans, M, N, K);
  return cublasGemmEx_64(h, op(g.first.trans), op(g.second.trans), g.m, g.n, g.k, &alpha, b.ptr,
                         cuda_type(b.dtype), g.first.ld, a.ptr, cuda_type(a.dtype), g.second.ld,
                         &beta, c, cuda_type(ct), g.ld_out, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT);
}

// Largest power of two (up to 256) dividing the address: the alignment cuBLASLt may assume.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t al = 256;
  while (al > 1 && v % al != 0) al /= 2;
  return al;
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check_cuda(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
};

}  // namespace

ColMajorGemm col_major_view(bool a_trans, bool b_trans, long long M, long long N, long long K) {
  ColMajorGemm g;
  g.m = N;
  g.n = M;
  g.k = K;
  // B [K,N] row-major is N x K column-major (op N); stored [N,K] it is K x N (op T).
  g.first = {b_trans, b_trans ? K : N, b_trans ? N : K, b_trans ? K : N};
  // A [M,K] row-major is K x M column-major (op N); stored [K,M] it is M x K (op T).
  g.second = {a_trans, a_trans ? M : K, a_trans ? K : M, a_trans ? M : K};
  g.out_rows = N;
  g.out_cols = M;
  g.ld_out = N;
  return g;
}

// One cuBLASLt handle, a workspace and the plans made so far (one per problem and alignment).
struct Blas::LtState {
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t first = nullptr, second = nullptr, c = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  static constexpr size_t kWorkspaceBytes = 32u << 20;
  cublasLtHandle_t h = nullptr;
  void* workspace = nullptr;
  std::map<std::array<long long, 11>, Plan> plans;

  ~LtState() {
    for (auto& kv : plans) destroy(kv.second);
    if (workspace) cudaFree(workspace);
    if (h) cublasLtDestroy(h);
  }
  static void destroy(Plan& p) {
    if (p.first) cublasLtMatrixLayoutDestroy(p.first);
    if (p.second) cublasLtMatrixLayoutDestroy(p.second);
    if (p.c) cublasLtMatrixLayoutDestroy(p.c);
    if (p.d) cublasLtMatrixLayoutDestroy(p.d);
    if (p.op) cublasLtMatmulDescDestroy(p.op);
  }
  // Builds the plan of a row-major addmm; returns a cublasStatus_t.
  int make(Plan& p, GemmOperand a, GemmOperand b, DType out_type, long long M, long long N,
           long long K, const uint32_t (&align)[4]) {
    const ColMajorGemm g = col_major_view(a.trans, b.trans, M, N, K);
    cublasStatus_t s;
    if ((s = cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F))) return s;
    const cublasOperation_t ta = op(g.first.trans), tb = op(g.second.trans);
    if ((s = cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta)))
      return s;
    if ((s = cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb)))
      return s;
    const auto layout = [](cublasLtMatrixLayout_t* l, DType t, long long r, long long c,
                           long long ld) {
      return cublasLtMatrixLayoutCreate(l, cuda_type(t), static_cast<uint64_t>(r),
                                        static_cast<uint64_t>(c), static_cast<int64_t>(ld));
    };
    if ((s = layout(&p.first, b.dtype, g.first.rows, g.first.cols, g.first.ld))) return s;
    if ((s = layout(&p.second, a.dtype, g.second.rows, g.second.cols, g.second.ld))) return s;
    if ((s = layout(&p.c, out_type, g.out_rows, g.out_cols, g.ld_out))) return s;
    if ((s = layout(&p.d, out_type, g.out_rows, g.out_cols, g.ld_out))) return s;
    cublasLtMatmulPreference_t pref = nullptr;
    if ((s = cublasLtMatmulPreferenceCreate(&pref))) return s;
    size_t ws = kWorkspaceBytes;
    s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws);
    const cublasLtMatmulPreferenceAttributes_t al_attr[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && s == CUBLAS_STATUS_SUCCESS; ++i)
      s = cublasLtMatmulPreferenceSetAttribute(pref, al_attr[i], &align[i], sizeof align[i]);
    cublasLtMatmulHeuristicResult_t res{};
    int found = 0;
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulAlgoGetHeuristic(h, p.op, p.first, p.second, p.c, p.d, pref, 1, &res,
                                         &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (s) return s;
    if (found == 0) return CUBLAS_STATUS_NOT_SUPPORTED;
    p.algo = res.algo;
    return CUBLAS_STATUS_SUCCESS;
  }
};

Blas::Blas() {
  check_blas(cublasCreate(&h_), "cublasCreate");
  check_blas(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

Blas::~Blas() {
  lt_.reset();
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

int Blas::addmm(GemmOperand a, GemmOperand b, const void* bias, void* out, DType out_type,
                long long M, long long N, long long K) {
  const auto f16ish = [](DType t) { return t == DType::f16 || t == DType::bf16; };
  if (M <= 0 || N <= 0 || K <= 0 || !f16ish(a.dtype) || a.dtype != b.dtype ||
      !(f16ish(out_type) || out_type == DType::f32))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!lt_) {
    auto st = std::make_unique<LtState>();
    if (cublasStatus_t s = cublasLtCreate(&st->h)) return s;
    if (cudaMalloc(&st->workspace, LtState::kWorkspaceBytes) != cudaSuccess)
      return CUBLAS_STATUS_ALLOC_FAILED;
    lt_ = std::move(st);
  }
  // cuBLASLt's operand A is our B (see col_major_view), its B is our A.
  const uint32_t align[4] = {alignment_of(b.ptr), alignment_of(a.ptr), alignment_of(bias),
                             alignment_of(out)};
  const std::array<long long, 11> key = {M,
                                         N,
                                         K,
                                         a.trans,
                                         b.trans,
                                         static_cast<int>(a.dtype),
                                         static_cast<int>(out_type),
                                         align[0],
                                         align[1],
                                         align[2],
                                         align[3]};
  auto it = lt_->plans.find(key);
  if (it == lt_->plans.end()) {
    LtState::Plan p;
    if (int s = lt_->make(p, a, b, out_type, M, N, K, align)) {
      LtState::destroy(p);
      return s;
    }
    it = lt_->plans.emplace(key, p).first;
  }
  const LtState::Plan& p = it->second;
  const float alpha = 1.f, beta = 1.f;
  return cublasLtMatmul(lt_->h, p.op, &alpha, b.ptr, p.first, a.ptr, p.second, &beta, bias, p.c,
                        out, p.d, &p.algo, lt_->workspace, LtState::kWorkspaceBytes, nullptr);
}

}  // namespace sched2cu::bench
