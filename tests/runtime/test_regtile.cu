// GPU test of the register-tile operations (runtime/sched2cu/regtile.cuh) in the wgmma
// accumulator layout: fill, elementwise arithmetic and math, row reductions and broadcasts,
// f16/bf16 conversion, and stores into 128B-swizzled shared memory — each against a CPU
// reference on a 128 x 64 tile (two m64 slabs).
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

constexpr int kM = 128, kN = 64;
constexpr int kPlanes = 16;

template <int M, int N>
__device__ void load(AccTile<M, N>& t, const float* g) {
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) t.v[s][i] = g[(64 * s + acc_row(i)) * N + acc_col(i)];
}
template <int M, int N>
__device__ void store(float* g, const AccTile<M, N>& t) {
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) g[(64 * s + acc_row(i)) * N + acc_col(i)] = t.v[s][i];
}
template <int M>
__device__ void store_row(float* g, const RowVec<M>& r, int N) {
  // Every lane of a quad holds the row value; write it across the row from each lane so a
  // disagreeing lane shows up as a wrong element.
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) g[(64 * s + acc_row(i)) * N + acc_col(i)] = r.v[s][(i % 4) / 2];
}

__global__ void regtile_kernel(const float* a_g, const float* b_g, float* out, int one) {
  __shared__ __align__(1024) uint8_t box[64 * 128];
  AccTile<kM, kN> a, b, d;
  load(a, a_g);
  load(b, b_g);
  float* o = out;
  const int P = kM * kN;
  acc_fill(d, 3.5f);
  store(o + 0 * P, d);
  acc_add(d, a, b);
  store(o + 1 * P, d);
  acc_sub(d, a, b);
  store(o + 2 * P, d);
  acc_mul(d, a, b);
  store(o + 3 * P, d);
  acc_max(d, a, b);
  store(o + 4 * P, d);
  acc_scale(d, a, 0.25f);
  store(o + 5 * P, d);
  acc_exp2(d, a);
  store(o + 6 * P, d);
  acc_map(d, a, [](float x) { return fabsf(x) + 1.f; });
  acc_log2(d, d);
  store(o + 7 * P, d);
  RowVec<kM> mx, sm;
  acc_row_max(mx, a);
  store_row(o + 8 * P, mx, kN);
  acc_row_sum(sm, a);
  store_row(o + 9 * P, sm, kN);
  acc_sub_row(d, a, mx);
  acc_mul_row(d, d, sm);
  store(o + 10 * P, d);
  // f16 / bf16 conversion, written back as floats
  PackedTile<kM, kN> ph, pb;
  acc_convert<__half>(ph, a);
  acc_convert<__nv_bfloat16>(pb, a);
  for (int s = 0; s < kM / 64; ++s)
    for (int j = 0; j < kN / 4; ++j) {
      const __half2 h = *reinterpret_cast<const __half2*>(&ph.p[s][j]);
      const __nv_bfloat162 q = *reinterpret_cast<const __nv_bfloat162*>(&pb.p[s][j]);
      const int r = 64 * s + acc_row(2 * j), c = acc_col(2 * j);
      o[11 * P + r * kN + c] = __low2float(h);
      o[11 * P + r * kN + c + 1] = __high2float(h);
      o[12 * P + r * kN + c] = __low2float(q);
      o[12 * P + r * kN + c + 1] = __high2float(q);
    }
  // swizzled store of each slab, read back through swizzle_offset
  for (int s = 0; s < kM / 64; ++s) {
    acc_store_box<__half, 128, 64>(box, a, s, 0, 0);
    __syncthreads();
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
      const int r = i / 64, c = i % 64;
      o[13 * P + (64 * s + r) * kN + c] =
          __half2float(*reinterpret_cast<const __half*>(box + swizzle_offset<128, 128>(r, 2 * c)));
    }
    __syncthreads();
  }
  // acc_zero_if with a run-time condition, both ways
  acc_scale(d, a, 1.f);
  acc_zero_if(d, one == 1);
  store(o + 14 * P, d);
  acc_scale(d, a, 1.f);
  acc_zero_if(d, one == 0);
  store(o + 15 * P, d);
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  const int P = kM * kN;
  std::vector<float> a(P), b(P);
  uint32_t seed = 5;
  for (int i = 0; i < P; ++i) {
    a[i] = 4.f * rt_test::urand(seed);
    b[i] = 4.f * rt_test::urand(seed);
  }
  float *da, *db, *dout;
  RT_CHECK(cudaMalloc(&da, P * 4));
  RT_CHECK(cudaMalloc(&db, P * 4));
  RT_CHECK(cudaMalloc(&dout, kPlanes * P * 4));
  RT_CHECK(cudaMemcpy(da, a.data(), P * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), P * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, kPlanes * P * 4));
  rt_test::launch_sync([&] { regtile_kernel<<<1, 128>>>(da, db, dout, 1); });
  std::vector<float> o(kPlanes * P);
  RT_CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<float> rmax(kM, -INFINITY), rsum(kM, 0.f);
  for (int r = 0; r < kM; ++r)
    for (int c = 0; c < kN; ++c) {
      rmax[r] = std::fmax(rmax[r], a[r * kN + c]);
      rsum[r] += a[r * kN + c];
    }
  const char* names[kPlanes] = {"acc_fill",
                                "acc_add",
                                "acc_sub",
                                "acc_mul",
                                "acc_max",
                                "acc_scale",
                                "acc_exp2",
                                "acc_log2",
                                "acc_row_max",
                                "acc_row_sum",
                                "acc_sub_row + acc_mul_row",
                                "acc_convert<f16>",
                                "acc_convert<bf16>",
                                "acc_store_box<f16, 128B>",
                                "acc_zero_if(true)",
                                "acc_zero_if(false)"};
  const double tol[kPlanes] = {0, 0, 0, 0, 0, 0, 2e-6, 2e-6, 0, 1e-6, 1e-5, 0, 0, 0, 0, 0};
  for (int p = 0; p < kPlanes; ++p) {
    std::vector<float> ref(P), got(o.begin() + p * P, o.begin() + (p + 1) * P);
    for (int i = 0; i < P; ++i) {
      const int r = i / kN;
      const float x = a[i], y = b[i];
      switch (p) {
        case 0:
          ref[i] = 3.5f;
          break;
        case 1:
          ref[i] = x + y;
          break;
        case 2:
          ref[i] = x - y;
          break;
        case 3:
          ref[i] = x * y;
          break;
        case 4:
          ref[i] = std::fmax(x, y);
          break;
        case 5:
          ref[i] = x * 0.25f;
          break;
        case 6:
          ref[i] = std::exp2(x);
          break;
        case 7:
          ref[i] = std::log2(std::fabs(x) + 1.f);
          break;
        case 8:
          ref[i] = rmax[r];
          break;
        case 9:
          ref[i] = rsum[r];
          break;
        case 10:
          ref[i] = (x - rmax[r]) * rsum[r];
          break;
        case 11:
        case 13:
          ref[i] = __half2float(__float2half_rn(x));
          break;
        case 12:
          ref[i] = __bfloat162float(__float2bfloat16_rn(x));
          break;
        case 14:
          ref[i] = 0.f;
          break;
        case 15:
          ref[i] = x;
          break;
      }
    }
    const double e = rt_test::rel_err(got, ref);
    char what[128];
    std::snprintf(what, sizeof what, "%s (rel err %.2e)", names[p], e);
    res.check(e <= tol[p], what);
  }
  RT_CHECK(cudaFree(da));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(dout));
  return res.exit_code();
}
