// GPU test of runtime/sched2cu/regtile_map.cuh and of the 1-D TMA copies of tma.cuh.
//
// regtile_map.cuh: tile_map over every operand adapter (tile, row_bcast, col_bcast, splat,
// widen<f16>, widen<bf16>), row_map, col_map (+ col_fill), tile_map_packed to f16 and bf16,
// acc_row_reduce with a max and a sum combiner, and row_store_smem — each result plane against a
// CPU reference, on a 128 x 64 tile (two m64 slabs, 16 values per row per thread: a power-of-two
// tree) and on a 64 x 24 tile (6 values per row per thread: tree_combine's widths 6 -> 3 -> 2 -> 1
// leave an odd element over). Row and column vectors are loaded and stored here through the
// documented layouts (RowVec element (s, h): row 64 s + 16 w + l / 4 + 8 h; ColVec element k:
// column 8 (k / 2) + 2 (l % 4) + k % 2), written out independently of the header's adapters, so
// an adapter that reads the wrong element shows up as a wrong plane.
//
// tile_gen with mrow_val / mcol_val (blocked.cuh): a causal mask over one warpgroup's 64 x 128
// tile, row and column indices made by brange in the accumulator's row and column layouts (the
// types the emitter declares), every element checked against its own row and column.
//
// tma.cuh: tma_load_1d / tma_store_1d round trip of one box of a 1-D f32 tensor through shared
// memory (mbarrier completion on the load, bulk-group wait on the store), inside the tensor and
// over its end (zero fill on load, clipping on store), and row_store_smem feeding tma_store_1d
// (the way a kernel writes one value per row, e.g. a log-sum-exp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"
#include "sched2cu/tma_host.h"

using namespace sched2cu::rt;

constexpr int kPlanes = 13;
constexpr int kTail = 4;  // extra shared floats after row_store_smem's M: must stay untouched

// ---- documented layouts, spelled out independently of regtile_map.cuh's adapters -----------

__device__ int rv_row(int s, int h) {
  const int t = static_cast<int>(threadIdx.x % 128);
  return 64 * s + 16 * (t / 32) + (t % 32) / 4 + 8 * h;
}
__device__ int cv_col(int k) {
  const int l = static_cast<int>(threadIdx.x % 32);
  return 8 * (k / 2) + 2 * (l % 4) + k % 2;
}

template <int M, int N>
__device__ void load_tile(AccTile<M, N>& t, const float* g) {
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) t.v[s][i] = g[(64 * s + acc_row(i)) * N + acc_col(i)];
}
template <int M, int N>
__device__ void store_tile(float* g, const AccTile<M, N>& t) {
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) g[(64 * s + acc_row(i)) * N + acc_col(i)] = t.v[s][i];
}
template <int M>
__device__ void load_row(RowVec<M>& r, const float* g) {
  for (int s = 0; s < M / 64; ++s)
    for (int h = 0; h < 2; ++h) r.v[s][h] = g[rv_row(s, h)];
}
template <int N>
__device__ void load_col(ColVec<N>& c, const float* g) {
  for (int k = 0; k < N / 4; ++k) c.v[k] = g[cv_col(k)];
}
// Row vector as a full plane: each thread writes only its own tile elements, so every element
// is written by exactly one lane and a lane of the quad that disagrees shows up.
template <int M>
__device__ void store_row_plane(float* g, const RowVec<M>& r, int N) {
  for (int s = 0; s < M / 64; ++s)
    for (int i = 0; i < N / 2; ++i) g[(64 * s + acc_row(i)) * N + acc_col(i)] = r.v[s][(i % 4) / 2];
}
// Column vector as a full plane: thread t writes its columns in each of its own rows (every
// element once), so a thread whose copy of the vector differs shows up.
template <int M, int N>
__device__ void store_col_plane(float* g, const ColVec<N>& c) {
  for (int s = 0; s < M / 64; ++s)
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < N / 4; ++k) g[rv_row(s, h) * N + cv_col(k)] = c.v[k];
}
template <class T, int M, int N>
__device__ void store_packed_plane(float* g, const PackedTile<M, N>& p) {
  for (int s = 0; s < M / 64; ++s)
    for (int j = 0; j < N / 4; ++j) {
      const float2 f = unpack2<T>(p.p[s][j]);
      const int r = 64 * s + acc_row(2 * j), c = acc_col(2 * j);
      g[r * N + c] = f.x;
      g[r * N + c + 1] = f.y;
    }
}

// out: kPlanes planes of M x N, then M + kTail floats read back from row_store_smem's buffer.
template <int M, int N>
__global__ void map_kernel(const float* a_g, const float* b_g, const float* rv_g, const float* cv_g,
                           float* out) {
  __shared__ float rows[M + kTail];
  AccTile<M, N> a, b, d;
  RowVec<M> rv;
  ColVec<N> cv;
  load_tile(a, a_g);
  load_tile(b, b_g);
  load_row(rv, rv_g);
  load_col(cv, cv_g);
  const int P = M * N;
  auto id = [](float x) { return x; };

  tile_map(d, id, row_bcast(rv));
  store_tile(out + 0 * P, d);
  tile_map(d, id, col_bcast(cv));
  store_tile(out + 1 * P, d);
  tile_map(
      d, [](float x, float y, float z) { return x * y - z; }, tile(a), row_bcast(rv),
      col_bcast(cv));
  store_tile(out + 2 * P, d);

  PackedTile<M, N> ph, pb;
  acc_convert<__half>(ph, b);
  acc_convert<__nv_bfloat16>(pb, a);
  tile_map(
      d, [](float x, float y, float z) { return x * y + z; }, tile(a), splat(2.5f),
      widen<__half>(ph));
  store_tile(out + 3 * P, d);
  tile_map(
      d, [](float x, float y) { return x + y; }, widen<__nv_bfloat16>(pb), tile(b));
  store_tile(out + 4 * P, d);

  PackedTile<M, N> q;
  tile_map_packed<__half>(
      q, [](float x, float y) { return x * y; }, tile(a), tile(b));
  store_packed_plane<__half>(out + 5 * P, q);
  tile_map_packed<__nv_bfloat16>(
      q, [](float x, float y, float z) { return (x - y) * z; }, tile(a), tile(b), splat(0.5f));
  store_packed_plane<__nv_bfloat16>(out + 6 * P, q);

  RowVec<M> mx, sm, rm;
  acc_row_reduce(mx, a, [](float x, float y) { return fmaxf(x, y); });
  store_row_plane(out + 7 * P, mx, N);
  acc_row_reduce(sm, a, [](float x, float y) { return x + y; });
  store_row_plane(out + 8 * P, sm, N);
  row_map(
      rm, [](float x, float y, float z) { return x * y + z; }, row(rv), row(sm), splat(0.25f));
  store_row_plane(out + 9 * P, rm, N);

  // Quad partials: the partial sum reduced across the quad equals the full reduction, and a
  // carried partial l = l * rv + rowsum(a) started at 0.75 equals 0.75 rv + rowsum(a).
  RowVec<M> ps, pl;
  acc_row_partial(ps, a, [](float x, float y) { return x + y; });
  row_quad_reduce(ps, [](float x, float y) { return x + y; });
  store_row_plane(out + 11 * P, ps, N);
  row_fill_quad_sum(pl, 0.75f);
  acc_row_partial(ps, a, [](float x, float y) { return x + y; });
  row_map(
      pl, [](float x, float y, float z) { return x * y + z; }, row(pl), row(rv), row(ps));
  row_quad_reduce(pl, [](float x, float y) { return x + y; });
  store_row_plane(out + 12 * P, pl, N);

  ColVec<N> cf, cc;
  col_fill(cf, 0.5f);
  col_map(
      cc, [](float x, float y, float z) { return x * z - y; }, col(cv), col(cf), splat(3.f));
  store_col_plane<M, N>(out + 10 * P, cc);

  // row_store_smem into a NaN-filled buffer: every row written, nothing past M.
  for (int i = threadIdx.x; i < M + kTail; i += blockDim.x) rows[i] = __int_as_float(0x7fc00000);
  __syncthreads();
  row_store_smem(rows, mx);
  __syncthreads();
  for (int i = threadIdx.x; i < M + kTail; i += blockDim.x) out[kPlanes * P + i] = rows[i];
}

template <int M, int N>
void run_map(rt_test::Result& res) {
  const int P = M * N;
  // a: |a| >= 0.5 everywhere (so an element dropped from a row sum moves the sum by >= 0.5),
  // and the row maximum planted at column r % N, so across the rows every column position,
  // including the odd one tree_combine carries over, is once the maximum.
  std::vector<float> a(P), b(P), rv(M), cv(N);
  uint32_t seed = 11u + N;
  for (int i = 0; i < P; ++i) {
    const float u = rt_test::urand(seed);
    a[i] = (u < 0 ? -1.f : 1.f) * (0.5f + 3.5f * std::fabs(u));
    b[i] = 4.f * rt_test::urand(seed);
  }
  for (int r = 0; r < M; ++r) a[r * N + r % N] = 5.f + static_cast<float>(r % 7);
  for (auto& x : rv) x = 2.f * rt_test::urand(seed);
  for (auto& x : cv) x = 2.f * rt_test::urand(seed);

  const size_t out_n = static_cast<size_t>(kPlanes) * P + M + kTail;
  float *da, *db, *drv, *dcv, *dout;
  RT_CHECK(cudaMalloc(&da, P * 4));
  RT_CHECK(cudaMalloc(&db, P * 4));
  RT_CHECK(cudaMalloc(&drv, M * 4));
  RT_CHECK(cudaMalloc(&dcv, N * 4));
  RT_CHECK(cudaMalloc(&dout, out_n * 4));
  RT_CHECK(cudaMemcpy(da, a.data(), P * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), P * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(drv, rv.data(), M * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(dcv, cv.data(), N * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(dout, 0xff, out_n * 4));  // NaN: an element nobody wrote fails
  rt_test::launch_sync([&] { map_kernel<M, N><<<1, 128>>>(da, db, drv, dcv, dout); }, "map_kernel");
  std::vector<float> o(out_n);
  RT_CHECK(cudaMemcpy(o.data(), dout, out_n * 4, cudaMemcpyDeviceToHost));

  std::vector<float> rmax(M, -INFINITY), rsum(M, 0.f);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      rmax[r] = std::fmax(rmax[r], a[r * N + c]);
      rsum[r] += a[r * N + c];
    }
  const char* names[kPlanes] = {"tile_map(row_bcast)",
                                "tile_map(col_bcast)",
                                "tile_map(tile * row_bcast - col_bcast)",
                                "tile_map(tile * splat + widen<f16>)",
                                "tile_map(widen<bf16> + tile)",
                                "tile_map_packed<f16>(tile * tile)",
                                "tile_map_packed<bf16>((tile - tile) * splat)",
                                "acc_row_reduce(max)",
                                "acc_row_reduce(sum)",
                                "row_map(row * row + splat)",
                                "col_map(col * splat - col) after col_fill",
                                "row_quad_reduce(acc_row_partial(sum))",
                                "row_quad_reduce(row_fill_quad_sum * row + acc_row_partial)"};
  // Nonzero only where the device may contract a * b + c into one FMA (the CPU rounds twice)
  // or sums in another order.
  const double tol[kPlanes] = {0, 0, 1e-6, 1e-6, 0, 0, 0, 0, 1e-5, 1e-5, 1e-6, 1e-5, 1e-5};
  for (int p = 0; p < kPlanes; ++p) {
    std::vector<float> ref(P), got(o.begin() + p * P, o.begin() + (p + 1) * P);
    for (int i = 0; i < P; ++i) {
      const int r = i / N, c = i % N;
      const float x = a[i], y = b[i];
      switch (p) {
        case 0:
          ref[i] = rv[r];
          break;
        case 1:
          ref[i] = cv[c];
          break;
        case 2:
          ref[i] = x * rv[r] - cv[c];
          break;
        case 3:
          ref[i] = x * 2.5f + __half2float(__float2half_rn(y));
          break;
        case 4:
          ref[i] = __bfloat162float(__float2bfloat16_rn(x)) + y;
          break;
        case 5:
          ref[i] = __half2float(__float2half_rn(x * y));
          break;
        case 6:
          ref[i] = __bfloat162float(__float2bfloat16_rn((x - y) * 0.5f));
          break;
        case 7:
          ref[i] = rmax[r];
          break;
        case 8:
          ref[i] = rsum[r];
          break;
        case 9:
          ref[i] = rv[r] * rsum[r] + 0.25f;
          break;
        case 10:
          ref[i] = cv[c] * 3.f - 0.5f;
          break;
        case 11:
          ref[i] = rsum[r];
          break;
        case 12:
          ref[i] = 0.75f * rv[r] + rsum[r];
          break;
      }
    }
    const double e = rt_test::rel_err(got, ref);
    char what[160];
    std::snprintf(what, sizeof what, "%dx%d %s (rel err %.2e)", M, N, names[p], e);
    res.check(e <= tol[p], what);
  }
  std::vector<float> rows(o.begin() + kPlanes * P, o.begin() + kPlanes * P + M);
  bool tail_untouched = true;
  for (int i = 0; i < kTail; ++i)
    tail_untouched = tail_untouched && std::isnan(o[kPlanes * P + M + i]);
  char what[160];
  std::snprintf(what, sizeof what, "%dx%d row_store_smem(acc_row_reduce(max)) (rel err %.2e)", M, N,
                rt_test::rel_err(rows, rmax));
  res.check(rt_test::rel_err(rows, rmax) == 0, what);
  std::snprintf(what, sizeof what, "%dx%d row_store_smem writes nothing past row %d", M, N, M - 1);
  res.check(tail_untouched, what);
  RT_CHECK(cudaFree(da));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(drv));
  RT_CHECK(cudaFree(dcv));
  RT_CHECK(cudaFree(dout));
}

// ---- 1-D TMA -----------------------------------------------------------------------------------

constexpr int kBox = 64;  // f32 elements per box: 256 bytes, a multiple of TMA's 16

// Loads box [c_ld, c_ld + kBox) of `src` into shared memory (completion on an mbarrier armed with
// the full box bytes, out-of-range elements included), copies what arrived to `seen`, rewrites it
// in place as 2x + 1 with ordinary stores, and TMA-stores it to [c_st, c_st + kBox) of `dst`.
__global__ void tma_1d_kernel(const __grid_constant__ CUtensorMap src,
                              const __grid_constant__ CUtensorMap dst, int c_ld, int c_st,
                              float* seen) {
  __shared__ __align__(128) float box[kBox];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    mbar_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, sizeof(box));
    tma_load_1d(box, &src, &bar, c_ld);
  }
  mbar_wait(&bar, 0);
  for (int i = threadIdx.x; i < kBox; i += blockDim.x) {
    seen[i] = box[i];
    box[i] = 2.f * box[i] + 1.f;
  }
  fence_proxy_async();  // the ordinary stores above are read next by the async proxy (TMA)
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_1d(&dst, box, c_st);
    tma_commit();
    tma_wait<0>();
  }
}

// The epilogue pattern row_store_smem documents: one f32 per row of a 128-row tile to shared
// memory, fence_proxy_async + barrier, one 1-D TMA store of the M values at `c`.
__global__ void row_store_tma_kernel(const __grid_constant__ CUtensorMap dst, const float* a_g,
                                     int c) {
  constexpr int M = 128, N = 64;
  __shared__ __align__(128) float rows[M];
  AccTile<M, N> a;
  load_tile(a, a_g);
  RowVec<M> sm;
  acc_row_reduce(sm, a, [](float x, float y) { return x + y; });
  row_store_smem(rows, sm);
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_1d(&dst, rows, c);
    tma_commit();
    tma_wait<0>();
  }
}

cudaError_t make_map_1d(CUtensorMap* map, float* base, uint64_t len, uint32_t box) {
  const uint64_t dims[1] = {len};
  const uint32_t boxes[1] = {box};
  return tma_make_map(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, base, dims, nullptr, boxes,
                      TmaSwizzle::none);
}

constexpr float kSentinel = -777.f;

// One round trip with a tensor of `len` elements; `dst`'s allocation has kBox sentinel elements
// past `len`, so a store that does not clip at the tensor's end shows up.
bool run_tma_1d(int len, int c_ld, int c_st) {
  std::vector<float> h(len), init(len + kBox, kSentinel);
  uint32_t seed = 3u + len;
  for (auto& x : h) x = std::round(rt_test::urand(seed) * 64.f) / 8.f;
  float *gsrc, *gdst, *seen;
  RT_CHECK(cudaMalloc(&gsrc, len * 4));
  RT_CHECK(cudaMalloc(&gdst, (len + kBox) * 4));
  RT_CHECK(cudaMalloc(&seen, kBox * 4));
  RT_CHECK(cudaMemcpy(gsrc, h.data(), len * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(gdst, init.data(), (len + kBox) * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemset(seen, 0xff, kBox * 4));
  CUtensorMap msrc, mdst;
  RT_CHECK(make_map_1d(&msrc, gsrc, len, kBox));
  RT_CHECK(make_map_1d(&mdst, gdst, len, kBox));
  rt_test::launch_sync([&] { tma_1d_kernel<<<1, 128>>>(msrc, mdst, c_ld, c_st, seen); },
                       "tma_1d_kernel");
  std::vector<float> s(kBox), back(len + kBox);
  RT_CHECK(cudaMemcpy(s.data(), seen, kBox * 4, cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(back.data(), gdst, (len + kBox) * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  std::vector<float> loaded(kBox);
  for (int i = 0; i < kBox; ++i) {
    const int g = c_ld + i;
    loaded[i] = g < len ? h[g] : 0.f;  // zero fill past the end
    ok = ok && s[i] == loaded[i];
  }
  for (int g = 0; g < len + kBox; ++g) {
    const bool in = g >= c_st && g < c_st + kBox && g < len;  // clipped at len
    const float want = in ? 2.f * loaded[g - c_st] + 1.f : kSentinel;
    ok = ok && back[g] == want;
  }
  RT_CHECK(cudaFree(gsrc));
  RT_CHECK(cudaFree(gdst));
  RT_CHECK(cudaFree(seen));
  return ok;
}

bool run_row_store_tma() {
  constexpr int M = 128, N = 64, len = 300, c = 100;
  std::vector<float> a(M * N), init(len, kSentinel);
  uint32_t seed = 17;
  // Multiples of 1/8 with small sums: every partial sum is exact in f32, so the order of the
  // reduction cannot matter and the comparison is exact.
  for (auto& x : a) x = std::round(rt_test::urand(seed) * 32.f) / 8.f;
  float *ga, *gdst;
  RT_CHECK(cudaMalloc(&ga, M * N * 4));
  RT_CHECK(cudaMalloc(&gdst, len * 4));
  RT_CHECK(cudaMemcpy(ga, a.data(), M * N * 4, cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(gdst, init.data(), len * 4, cudaMemcpyHostToDevice));
  CUtensorMap map;
  RT_CHECK(make_map_1d(&map, gdst, len, M));
  rt_test::launch_sync([&] { row_store_tma_kernel<<<1, 128>>>(map, ga, c); },
                       "row_store_tma_kernel");
  std::vector<float> back(len);
  RT_CHECK(cudaMemcpy(back.data(), gdst, len * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int g = 0; g < len; ++g) {
    float want = kSentinel;
    if (g >= c && g < c + M) {
      want = 0.f;
      for (int k = 0; k < N; ++k) want += a[(g - c) * N + k];
    }
    ok = ok && back[g] == want;
  }
  RT_CHECK(cudaFree(ga));
  RT_CHECK(cudaFree(gdst));
  return ok;
}

// tile_gen: out(row, col) = row + r0 >= col + c0 ? x(row, col) : -1, x(row, col) = row * 128 + col,
// written out through the documented accumulator layout.
__global__ void mask_kernel(float* out, int r0, int c0) {
  const int t = static_cast<int>(threadIdx.x), w = t / 32, l = t % 32;
  AccTile<64, 128> x;
  for (int i = 0; i < 64; ++i) {
    const int row = 16 * w + l / 4 + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    x.v[0][i] = static_cast<float>(row * 128 + col);
  }
  BRow<int, MRowLay<64, 4>> rows;
  brange(rows, r0);
  BCol<int, BLay<32, 128, 1, 2, 8, 4, 4, 1>> cols;
  brange(cols, c0);
  tile_gen(x, [&](int s, int i) {
    return mrow_val(rows).at(s, i) >= mcol_val(cols).at(s, i) ? tile(x).at(s, i) : -1.f;
  });
  for (int i = 0; i < 64; ++i) {
    const int row = 16 * w + l / 4 + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    out[row * 128 + col] = x.v[0][i];
  }
}

bool run_mask(int r0, int c0) {
  float* d = nullptr;
  RT_CHECK(cudaMalloc(&d, 64 * 128 * sizeof(float)));
  rt_test::launch_sync([&] { mask_kernel<<<1, 128>>>(d, r0, c0); }, "mask_kernel");
  std::vector<float> h(64 * 128);
  RT_CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d));
  bool ok = true;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c)
      ok &= h[r * 128 + c] == (r + r0 >= c + c0 ? static_cast<float>(r * 128 + c) : -1.f);
  return ok;
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  run_map<128, 64>(res);
  run_map<64, 24>(res);
  res.check(run_tma_1d(1000, 128, 512), "tma_load_1d / tma_store_1d f32 box of 64, interior");
  res.check(run_tma_1d(1000, 960, 960),
            "tma_load_1d / tma_store_1d box over the end (zero fill, clipped store)");
  res.check(run_row_store_tma(), "row_store_smem + fence_proxy_async + tma_store_1d of 128 rows");
  res.check(run_mask(0, 0), "tile_gen causal mask, mrow_val >= mcol_val, diagonal tile");
  res.check(run_mask(64, 0), "tile_gen causal mask, rows 64.. against columns 0..127");
  res.check(run_mask(0, 32), "tile_gen causal mask, columns shifted by 32");
  return res.exit_code();
}
