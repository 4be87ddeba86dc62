// dlopen-based loading of ABI kernel modules (see kernel_module.h).
#include "sched2cu/bench/kernel_module.h"

#include <dlfcn.h>

#include <filesystem>

#include "sched2cu/common/diag.h"

namespace sched2cu::bench {

void* load_symbol(void* handle, const char* name, const std::string& path) {
  dlerror();
  void* sym = dlsym(handle, name);
  if (!sym) {
    const char* err = dlerror();
    throw Error(path + ": missing symbol " + name + (err ? std::string(" (") + err + ")" : ""));
  }
  return sym;
}

KernelModule::KernelModule(const std::string& path) : path_(path) {
  // dlopen searches the library path for a name without a slash: make "k.so" mean ./k.so.
  std::string abs = std::filesystem::absolute(path).string();
  handle_ = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* err = dlerror();
    throw Error("cannot load kernel module " + path + ": " + (err ? err : "unknown dlopen error"));
  }
  try {
    auto version = reinterpret_cast<int (*)()>(load_symbol(handle_, "sched2cu_abi_version", path));
    int v = version();
    if (v != SCHED2CU_ABI_VERSION) {
      throw Error(path + ": built for launch ABI version " + std::to_string(v) +
                  ", this tool speaks version " + std::to_string(SCHED2CU_ABI_VERSION));
    }
    launch_ = reinterpret_cast<int (*)(const sched2cu_arg*, int, cudaStream_t)>(
        load_symbol(handle_, "sched2cu_launch", path));
  } catch (...) {
    dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

KernelModule::~KernelModule() {
  // Modules are left mapped: a CUDA module unloaded while its kernels may still be referenced by
  // the runtime's teardown has crashed processes at exit. The process ends soon after anyway.
}

}  // namespace sched2cu::bench
