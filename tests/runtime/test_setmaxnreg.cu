// GPU test of setmaxnreg (runtime/sched2cu/warpgroup.cuh): register decrease alone, then the
// 40/232/232 producer/consumer split with consumers keeping a 64x256 f32 tile live, checked
// element by element. A hang (register pool never satisfied) is reported by the watchdog.
#include "gpu_test_util.h"
#include "sched2cu/runtime.cuh"

using namespace sched2cu::rt;

// Consumers keep AccTile<64,256> (128 f32 per thread) alive across a loop: needs the 232-reg
// budget; the producer drops to 40. The result is checked element by element.
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel(float* out, int rounds) {
  const int wg = warpgroup_idx();
  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (thread_idx_in_warpgroup() == 0) out[2 * 64 * 256] = 1.f;  // producer ran
  } else {
    setmaxnreg_inc<232>();
    AccTile<64, 256> t;
    acc_fill(t, static_cast<float>(wg));
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int i = 0; i < 128; ++i) t.v[0][i] = t.v[0][i] * 0.5f + static_cast<float>(i % 7);
    }
    float* o = out + (wg - 1) * 64 * 256;
    for (int i = 0; i < 128; ++i) o[acc_row(i) * 256 + acc_col(i)] = t.v[0][i];
  }
}

// Only the register decrease (the producer side), to tell a dec problem from an inc one.
__global__ void __launch_bounds__(384, 1) setmaxnreg_dec_kernel(int* out) {
  if (warpgroup_idx() == 0) {
    setmaxnreg_dec<40>();
  } else {
    setmaxnreg_dec<160>();
  }
  if (thread_idx_in_warpgroup() == 0) atomicAdd(out, 1);
}

int main() {
  rt_test::require_hopper();
  rt_test::Result res;
  {
    int* d;
    RT_CHECK(cudaMalloc(&d, 4));
    RT_CHECK(cudaMemset(d, 0, 4));
    rt_test::launch_sync([&] { setmaxnreg_dec_kernel<<<1, 384>>>(d); }, "setmaxnreg_dec_kernel");
    int h = 0;
    RT_CHECK(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost));
    RT_CHECK(cudaFree(d));
    res.check(h == 3, "setmaxnreg.dec in all three warpgroups");
  }
  {
    const int rounds = 37;
    float* d;
    const size_t n = 2 * 64 * 256 + 1;
    RT_CHECK(cudaMalloc(&d, n * 4));
    RT_CHECK(cudaMemset(d, 0, n * 4));
    rt_test::launch_sync([&] { setmaxnreg_kernel<<<1, 384>>>(d, rounds); }, "setmaxnreg_kernel");
    std::vector<float> h(n);
    RT_CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    bool ok = h[n - 1] == 1.f;
    for (int w = 0; w < 2; ++w)
      for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 256; ++c) {
          // element index i of column c: i = 4*(c/8) + (c%2) + 2*(row%16 >= 8)
          const int i = 4 * (c / 8) + (c % 2) + 2 * ((r % 16) >= 8);
          float x = static_cast<float>(w + 1);
          for (int k = 0; k < rounds; ++k) x = x * 0.5f + static_cast<float>(i % 7);
          ok = ok && h[w * 64 * 256 + r * 256 + c] == x;
        }
    RT_CHECK(cudaFree(d));
    res.check(ok, "setmaxnreg 40/232/232 with a live 64x256 f32 tile");
  }
  return res.exit_code();
}
