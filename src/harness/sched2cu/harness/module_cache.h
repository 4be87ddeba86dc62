// Builds a bench_spec.cpp, generated.cu or handwritten.cu into a loadable shared object with
// nvcc, cached by a content hash of the source, every runtime header, the spec API header, the
// flags and the nvcc version. Builds go to a temporary name and are renamed into place, so a
// killed build never leaves a bad cache entry. Never builds through a shell.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sched2cu::harness {

struct BuildConfig {
  std::filesystem::path root;       // repository root: runtime/ and src/harness/ live here
  std::filesystem::path cache_dir;  // where .so files and build logs go
  std::string nvcc = "nvcc";
  std::vector<std::string> extra_flags;
  double timeout_s = 900;
};

struct BuildResult {
  std::string so_path;   // set on success
  std::string error;     // one line on failure
  std::string log_path;  // full compiler output (kept on failure)
  bool cached = false;
  // What ptxas warned of that costs a kernel its speed, on one line ("116 B spill stores, 204 B
  // spill loads, 112 B stack frame, wgmma serialized"), empty when nothing. Read from the build
  // log, so a cached build says it too. Its timings stand, flagged (results.h).
  std::string ptxas;
};

// What ptxas's warnings in `log` say: -warn-spills and -warn-lmem-usage summed over the module's
// functions (the stack frame is the largest), and "wgmma serialized" for C7515 (ptxas gave up
// overlapping a kernel's wgmmas); "" when they say nothing.
std::string ptxas_warnings(const std::string& log);

// The nvcc command line (without the output path) for a kernel or a spec source.
std::vector<std::string> nvcc_command(const BuildConfig& cfg, const std::filesystem::path& source,
                                      bool is_spec);

// 64-bit FNV-1a over the build inputs, as 16 hex digits.
std::string build_hash(const BuildConfig& cfg, const std::filesystem::path& source, bool is_spec);

// 64-bit FNV-1a over `parts` (each followed by a separator, so ("ab","c") != ("a","bc")), as
// 16 hex digits: the cache key of builds that are not nvcc's (triton_build.h).
std::string content_hash(const std::vector<std::string>& parts);

BuildResult build_module(const BuildConfig& cfg, const std::filesystem::path& source, bool is_spec,
                         const std::string& display_name);

// Default cache dir: $SCHED2CU_CACHE_DIR, else <root>/.cache/sched2cu.
std::filesystem::path default_cache_dir(const std::filesystem::path& root);
// nvcc to use: $SCHED2CU_NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.
std::string default_nvcc();

}  // namespace sched2cu::harness
