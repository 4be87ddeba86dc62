// The spec-facing Host services that need no GPU to check: the argument checks of add_to_f32 and
// vendor_addmm (what a spec's malformed call fails with), and that a change to the spec API
// header rebuilds bench specs but not kernels (the module cache hashes src/harness/sched2cu/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "sched2cu/harness/measure.h"
#include "sched2cu/harness/module_cache.h"

using namespace sched2cu::harness;
namespace sp = sched2cu::spec;
namespace fs = std::filesystem;

namespace {
sp::Tensor tensor(sp::DType t, long long numel) {
  sp::Tensor x;
  x.dtype = t;
  x.numel = numel;
  return x;
}
}  // namespace

TEST(HostChecks, AddToF32) {
  EXPECT_EQ(add_to_f32_error(tensor(sp::DType::f32, 64), tensor(sp::DType::f16, 64)), "");
  EXPECT_EQ(add_to_f32_error(tensor(sp::DType::f32, 64), tensor(sp::DType::f32, 64)), "");
  EXPECT_NE(add_to_f32_error(tensor(sp::DType::f16, 64), tensor(sp::DType::f16, 64)).find("f32"),
            std::string::npos);
  EXPECT_EQ(add_to_f32_error(tensor(sp::DType::f32, 64), tensor(sp::DType::f16, 32)),
            "add_to_f32: 32 elements added to 64");
}

TEST(HostChecks, VendorAddmm) {
  const long long M = 48, N = 32, K = 16;
  const auto f16 = sp::DType::f16;
  const sp::Tensor a = tensor(f16, M * K), b = tensor(f16, K * N), bias = tensor(f16, M * N),
                   out = tensor(f16, M * N);
  EXPECT_EQ(vendor_addmm_error(a, b, bias, out, M, N, K), "");
  EXPECT_EQ(
      vendor_addmm_error(tensor(sp::DType::bf16, M * K), tensor(sp::DType::bf16, K * N),
                         tensor(sp::DType::f32, M * N), tensor(sp::DType::f32, M * N), M, N, K),
      "");
  EXPECT_NE(vendor_addmm_error(a, b, bias, out, 0, N, K), "");
  EXPECT_NE(vendor_addmm_error(a, tensor(sp::DType::bf16, K * N), bias, out, M, N, K), "");
  EXPECT_NE(vendor_addmm_error(tensor(sp::DType::f32, M * K), tensor(sp::DType::f32, K * N), bias,
                               out, M, N, K),
            "");
  EXPECT_NE(vendor_addmm_error(a, b, tensor(sp::DType::f32, M * N), out, M, N, K), "");
  EXPECT_NE(vendor_addmm_error(a, b, bias, tensor(sp::DType::i32, M * N), M, N, K), "");
  EXPECT_NE(vendor_addmm_error(a, b, tensor(f16, M * N - 1), out, M, N, K), "");
  EXPECT_NE(vendor_addmm_error(a, b, bias, tensor(f16, M * N - 1), M, N, K), "");
  EXPECT_NE(vendor_addmm_error(tensor(f16, M * K - 1), b, bias, out, M, N, K), "");
}

TEST(ModuleCache, SpecApiHeaderChangeRebuildsSpecsOnly) {
  fs::path dir = fs::path(::testing::TempDir()) / ("mc_api_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path api = dir / "src" / "harness" / "sched2cu" / "harness" / "bench_spec_api.h";
  fs::create_directories(api.parent_path());
  fs::create_directories(dir / "runtime");
  std::ofstream(dir / "runtime" / "h.cuh") << "// runtime\n";
  std::ofstream(api) << "#define SCHED2CU_SPEC_API_VERSION 1\n";
  fs::path src = dir / "bench_spec.cpp";
  std::ofstream(src) << "#include \"sched2cu/harness/bench_spec_api.h\"\n";
  BuildConfig cfg;
  cfg.root = dir;
  cfg.cache_dir = dir / "cache";
  cfg.nvcc = "nvcc-not-needed-for-hashing";
  const std::string spec1 = build_hash(cfg, src, true), kernel1 = build_hash(cfg, src, false);
  std::ofstream(api) << "#define SCHED2CU_SPEC_API_VERSION 2\n";
  EXPECT_NE(build_hash(cfg, src, true), spec1);
  EXPECT_EQ(build_hash(cfg, src, false), kernel1);
  fs::remove_all(dir);
}
