// Device kernels behind device_ops.h: counter-based random fills, constant fills, conversion to
// f32 and the relative-error reduction. Must stay deterministic (no host RNG, no atomics whose
// order changes a result: the reductions use max and integer counts only).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>

#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/bench/device_ops.h"

namespace sched2cu::bench {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::e4m3:
    case DType::e5m2:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::f32:
      return "f32";
    case DType::e4m3:
      return "e4m3";
    case DType::e5m2:
      return "e5m2";
    case DType::i32:
      return "i32";
  }
  return "?";
}

DType parse_dtype(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(DType::i32); ++i) {
    if (s == dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  }
  throw Error("unknown dtype '" + s + "' (expected f16, bf16, f32, e4m3, e5m2 or i32)");
}

namespace {

__device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1]: never 0, so log() in Box-Muller stays finite.
__device__ inline float unit_uniform(uint64_t bits) {
  return (static_cast<float>(bits >> 40) + 1.0f) * (1.0f / 16777216.0f);
}

__device__ inline void store(void* p, DType t, size_t i, float v) {
  switch (t) {
    case DType::f16:
      static_cast<__half*>(p)[i] = __float2half_rn(v);
      break;
    case DType::bf16:
      static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
      break;
    case DType::f32:
      static_cast<float*>(p)[i] = v;
      break;
    case DType::e4m3:
      static_cast<__nv_fp8_e4m3*>(p)[i] = __nv_fp8_e4m3(v);
      break;
    case DType::e5m2:
      static_cast<__nv_fp8_e5m2*>(p)[i] = __nv_fp8_e5m2(v);
      break;
    case DType::i32:
      static_cast<int*>(p)[i] = static_cast<int>(rintf(v));
      break;
  }
}

__device__ inline float load(const void* p, DType t, size_t i) {
  switch (t) {
    case DType::f16:
      return __half2float(static_cast<const __half*>(p)[i]);
    case DType::bf16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::f32:
      return static_cast<const float*>(p)[i];
    case DType::e4m3:
      return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[i]);
    case DType::e5m2:
      return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(p)[i]);
    case DType::i32:
      return static_cast<float>(static_cast<const int*>(p)[i]);
  }
  return 0.f;
}

__global__ void fill_random_kernel(void* p, size_t n, DType t, uint64_t seed, float a, float b,
                                   bool normal) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint64_t h = splitmix64(seed * 0x2545F4914F6CDD1Dull + splitmix64(i));
    float v;
    if (normal) {
      float u1 = unit_uniform(h);
      float u2 = unit_uniform(splitmix64(h));
      v = a + b * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    } else {
      v = a + (b - a) * (unit_uniform(h) - 1.0f / 16777216.0f);
    }
    store(p, t, i, v);
  }
}

__global__ void fill_value_kernel(void* p, size_t n, DType t, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    store(p, t, i, v);
  }
}

__global__ void to_f32_kernel(const void* src, DType t, float* dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    dst[i] = load(src, t, i);
  }
}

__global__ void add_to_f32_kernel(float* dst, const void* src, DType t, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    dst[i] += load(src, t, i);
  }
}

struct RelAccum {
  unsigned int max_diff_bits;  // non-negative floats order like their bit patterns
  unsigned int max_ref_bits;
  unsigned long long nan_a;
  unsigned long long nan_b;
};

__global__ void rel_error_kernel(const void* a, DType ta, const void* b, DType tb, size_t n,
                                 RelAccum* out) {
  float md = 0.f, mr = 0.f;
  unsigned long long na = 0, nb = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float x = load(a, ta, i), y = load(b, tb, i);
    bool xn = isnan(x), yn = isnan(y);
    na += xn;
    nb += yn;
    if (!yn) mr = fmaxf(mr, fabsf(y));
    if (!xn && !yn) md = fmaxf(md, fabsf(x - y));  // inf-inf gives NaN: fmaxf drops it
    if (!xn && !yn && (isinf(x) || isinf(y)) && x != y) md = INFINITY;
  }
  for (int off = 16; off > 0; off /= 2) {
    md = fmaxf(md, __shfl_xor_sync(0xffffffffu, md, off));
    mr = fmaxf(mr, __shfl_xor_sync(0xffffffffu, mr, off));
    na += __shfl_xor_sync(0xffffffffu, na, off);
    nb += __shfl_xor_sync(0xffffffffu, nb, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&out->max_diff_bits, __float_as_uint(md));
    atomicMax(&out->max_ref_bits, __float_as_uint(mr));
    if (na) atomicAdd(&out->nan_a, na);
    if (nb) atomicAdd(&out->nan_b, nb);
  }
}

constexpr int kThreads = 256;

unsigned grid_for(size_t n) {
  size_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 4096) blocks = 4096;
  return blocks == 0 ? 1u : static_cast<unsigned>(blocks);
}

}  // namespace

void fill_normal(void* p, size_t n, DType t, uint64_t seed, float mean, float stddev) {
  if (n == 0) return;
  fill_random_kernel<<<grid_for(n), kThreads>>>(p, n, t, seed, mean, stddev, true);
  check_cuda(cudaGetLastError(), "fill_normal launch");
  check_cuda(cudaDeviceSynchronize(), "fill_normal");
}

void fill_uniform(void* p, size_t n, DType t, uint64_t seed, float lo, float hi) {
  if (n == 0) return;
  fill_random_kernel<<<grid_for(n), kThreads>>>(p, n, t, seed, lo, hi, false);
  check_cuda(cudaGetLastError(), "fill_uniform launch");
  check_cuda(cudaDeviceSynchronize(), "fill_uniform");
}

void fill_value(void* p, size_t n, DType t, double value) {
  if (n == 0) return;
  fill_value_kernel<<<grid_for(n), kThreads>>>(p, n, t, static_cast<float>(value));
  check_cuda(cudaGetLastError(), "fill_value launch");
  check_cuda(cudaDeviceSynchronize(), "fill_value");
}

void convert_to_f32(const void* src, DType t, float* dst, size_t n) {
  if (n == 0) return;
  to_f32_kernel<<<grid_for(n), kThreads>>>(src, t, dst, n);
  check_cuda(cudaGetLastError(), "convert_to_f32 launch");
  check_cuda(cudaDeviceSynchronize(), "convert_to_f32");
}

void add_to_f32(float* dst, const void* src, DType t, size_t n) {
  if (n == 0) return;
  add_to_f32_kernel<<<grid_for(n), kThreads>>>(dst, src, t, n);
  check_cuda(cudaGetLastError(), "add_to_f32 launch");
  check_cuda(cudaDeviceSynchronize(), "add_to_f32");
}

RelError rel_error(const void* a, DType ta, const void* b, DType tb, size_t n) {
  RelAccum* acc = nullptr;
  check_cuda(cudaMalloc(&acc, sizeof(RelAccum)), "rel_error cudaMalloc");
  RelAccum h{};
  try {
    check_cuda(cudaMemset(acc, 0, sizeof(RelAccum)), "rel_error memset");
    if (n > 0) {
      rel_error_kernel<<<grid_for(n), kThreads>>>(a, ta, b, tb, n, acc);
      check_cuda(cudaGetLastError(), "rel_error launch");
    }
    check_cuda(cudaMemcpy(&h, acc, sizeof(h), cudaMemcpyDeviceToHost), "rel_error readback");
  } catch (...) {
    cudaFree(acc);
    throw;
  }
  cudaFree(acc);
  RelError r;
  float md, mr;
  std::memcpy(&md, &h.max_diff_bits, 4);
  std::memcpy(&mr, &h.max_ref_bits, 4);
  r.max_abs_diff = md;
  r.max_abs_ref = mr;
  r.nan_a = static_cast<long long>(h.nan_a);
  r.nan_b = static_cast<long long>(h.nan_b);
  r.rel = (r.nan_a || r.nan_b) ? std::nan("") : md / std::fmax(mr, 1e-9);
  return r;
}

double read_element(const void* p, DType t, size_t index) {
  float* d = nullptr;
  check_cuda(cudaMalloc(&d, sizeof(float)), "read_element cudaMalloc");
  to_f32_kernel<<<1, 1>>>(static_cast<const char*>(p) + index * dtype_size(t), t, d, 1);
  float v = 0;
  cudaError_t e = cudaMemcpy(&v, d, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  check_cuda(e, "read_element");
  return v;
}

}  // namespace sched2cu::bench
