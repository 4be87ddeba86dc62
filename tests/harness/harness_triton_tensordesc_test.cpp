// The Triton column for kernels that take host tensor descriptors (Triton's TensorDescriptor
// arguments, the persistent-matmul tutorial's TMA kernels): the launch ABI passes each as its
// base pointer, extents and strides; Triton's kernel takes a 128-byte tensor map, then the
// extents (i32) and strides (i64). These check the mapping and the tensor map Triton's launcher
// would encode (make_tensordesc_arg / fill_tma_descriptor), with an encoder that records its
// request instead of calling the driver.
#include <gtest/gtest.h>

#include <cstring>

#include "sched2cu/bench/triton_module.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/harness/triton_launch.h"

namespace {

using sched2cu::bench::TensorMapRequest;
using sched2cu::bench::TritonKernelInfo;
using sched2cu::bench::TritonParams;

TensorMapRequest g_seen;
int record(const TensorMapRequest& r, void* out) {
  g_seen = r;
  std::memset(out, 0xab, 128);
  return 0;
}
int refuse(const TensorMapRequest&, void*) { return 1; }

template <class T>
std::vector<unsigned char> bytes_of(T v) {
  std::vector<unsigned char> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

// matmul_tma_persistent_tutorial's C descriptor and M as Triton 3.6 compiles them (metadata of
// tools/triton_compile.py: the store's box is [128, 64] of a [128, 128] block, swizzle 128 B).
TritonKernelInfo desc_kernel() {
  TritonKernelInfo k;
  k.name = "matmul_kernel_tma_persistent";
  k.param_types = {"tensordesc<fp16[128, 128]>", "i32"};
  k.entry_param_bytes = {128, 4, 4, 8, 8, 4, 8, 8};
  sched2cu::bench::TensordescMeta m;
  m.swizzle = 3;
  m.elem_size = 2;
  m.elem_type = 6;
  m.block_size = {128, 64};
  k.tensordesc = {m};
  return k;
}

TEST(TritonTensordesc, RanksAndAbiPositions) {
  EXPECT_EQ(sched2cu::bench::tensordesc_rank("tensordesc<fp16[128, 64]>"), 2);
  EXPECT_EQ(sched2cu::bench::tensordesc_rank("tensordesc<fp8e4nv[64]>"), 1);
  EXPECT_EQ(sched2cu::bench::tensordesc_rank("*fp16"), 0);
  EXPECT_THROW(sched2cu::bench::tensordesc_rank("tensordesc<fp16>"), sched2cu::Error);
  const std::vector<int> at = sched2cu::bench::abi_positions(
      {"tensordesc<fp16[128, 64]>", "tensordesc<fp16[256, 64]>", "i32", "*fp32"});
  EXPECT_EQ(at, (std::vector<int>{0, 5, 10, 11, 12}));
}

TEST(TritonTensordesc, PacksTheMapThenExtentsAndStrides) {
  int c[4];
  sched2cu_arg a[6];
  a[0].ptr = c;
  a[1].i = 1000;  // rows
  a[2].i = 264;   // columns
  a[3].i = 264;   // row stride
  a[4].i = 1;
  a[5].i = 1000;  // M
  TritonParams p(desc_kernel(), a, 6, record);
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p.bytes(0), std::vector<unsigned char>(128, 0xab));
  EXPECT_EQ(p.bytes(1), bytes_of(int32_t{1000}));
  EXPECT_EQ(p.bytes(2), bytes_of(int32_t{264}));
  EXPECT_EQ(p.bytes(3), bytes_of(int64_t{264}));
  EXPECT_EQ(p.bytes(4), bytes_of(int64_t{1}));
  EXPECT_EQ(p.bytes(5), bytes_of(int32_t{1000}));
  // The map as fill_tma_descriptor makes it: innermost dimension first, byte strides, the
  // metadata's box and swizzle, f16.
  EXPECT_EQ(g_seen.base, static_cast<void*>(c));
  EXPECT_EQ(g_seen.rank, 2);
  EXPECT_EQ(g_seen.dims, (std::vector<unsigned long long>{264, 1000}));
  EXPECT_EQ(g_seen.strides, (std::vector<unsigned long long>{528}));
  EXPECT_EQ(g_seen.box, (std::vector<unsigned>{64, 128}));
  EXPECT_EQ(g_seen.swizzle, 3);
  EXPECT_EQ(g_seen.data_type, 6);
  // cuLaunchKernel reads the map from 64-byte aligned storage.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.pointers()[0]) % 64, 0u);
}

TEST(TritonTensordesc, RefusesWhatTritonsLauncherWouldNotBuild) {
  int c[4];
  sched2cu_arg a[6];
  a[0].ptr = c;
  a[1].i = 1000;
  a[2].i = 264;
  a[3].i = 264;
  a[4].i = 2;  // a strided innermost dimension
  a[5].i = 1000;
  EXPECT_THROW(TritonParams(desc_kernel(), a, 6, record), sched2cu::Error);
  a[4].i = 1;
  EXPECT_THROW(TritonParams(desc_kernel(), a, 6, refuse), sched2cu::Error);  // driver refuses
  EXPECT_THROW(TritonParams(desc_kernel(), a, 2, record),
               sched2cu::Error);  // the signature's count
  TritonKernelInfo k = desc_kernel();
  k.tensordesc.clear();  // compiled without TMA descriptors: another argument expansion
  EXPECT_THROW(TritonParams(k, a, 6, record), sched2cu::Error);
}

TEST(TritonTensordesc, HintsAndGridReadThroughTheExpandedArguments) {
  int c[4];
  sched2cu_arg a[6];
  a[0].ptr = c;
  a[1].i = 1000;
  a[2].i = 264;
  a[3].i = 264;
  a[4].i = 1;
  a[5].i = 64;  // M
  const auto h = sched2cu::harness::jit_hints({"tensordesc<fp16[128, 128]>", "i32"}, a, 6);
  EXPECT_EQ(h, (std::vector<std::string>{"", "D"}));
  sched2cu::harness::TritonPlan plan;
  plan.kernel = desc_kernel();
  plan.param_names = {"c_desc", "M"};
  plan.ctas_per_sm = 1;
  for (const char* g : {"M", "1", "1"})
    plan.grid.push_back(sched2cu::sgraph::parse_grid_expr(g, "test"));
  EXPECT_EQ(sched2cu::harness::triton_grid(plan, a, 6, 132)[0], 64);
}

}  // namespace
