// A kernel shared object loaded with dlopen and called through the launch ABI of
// runtime/sched2cu/abi.h. Refuses modules built against another ABI version. Never calls a
// module's launcher before the version check has passed.
#pragma once

#include <string>

#include "sched2cu/abi.h"

namespace sched2cu::bench {

class KernelModule {
 public:
  // Loads `path` (RTLD_NOW | RTLD_LOCAL). Throws sched2cu::Error on a dlopen failure, a missing
  // symbol or an ABI version mismatch.
  explicit KernelModule(const std::string& path);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  // Returns the cudaError_t of the launcher (0 = success).
  int launch(const sched2cu_arg* args, int nargs, cudaStream_t stream = nullptr) const {
    return launch_(args, nargs, stream);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
  int (*launch_)(const sched2cu_arg*, int, cudaStream_t) = nullptr;
};

// dlopen + dlsym of a symbol; throws sched2cu::Error naming the file and symbol when absent.
void* load_symbol(void* handle, const char* name, const std::string& path);

}  // namespace sched2cu::bench
