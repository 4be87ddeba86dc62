// Device query, idle check and GPU lock (see gpu.h). NVML is declared here rather than included:
// the development image has no nvml.h, and only four stable C entry points are needed.
#include "sched2cu/bench/gpu.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "sched2cu/bench/cuda_check.h"

namespace sched2cu::bench {

DeviceInfo query_device() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    throw Error(std::string("no CUDA GPU is visible (cudaGetDeviceCount: ") +
                (e == cudaSuccess ? "0 devices" : cudaGetErrorName(e)) + ")");
  }
  DeviceInfo d;
  check_cuda(cudaGetDevice(&d.index), "cudaGetDevice");
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, d.index), "cudaGetDeviceProperties");
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = static_cast<long long>(p.totalGlobalMem);
  d.shared_optin_bytes = static_cast<long long>(p.sharedMemPerBlockOptin);
  cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, d.index);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, d.index) == cudaSuccess) d.pci_bus_id = bus;
  return d;
}

void require_hopper(const DeviceInfo& d) {
  if (d.major != 9) {
    throw Error("GPU " + std::to_string(d.index) + " (" + d.name + ") has compute capability " +
                std::to_string(d.major) + "." + std::to_string(d.minor) +
                "; sched2cu kernels are built for sm_90a and need a Hopper GPU (9.x)");
  }
}

namespace {

struct NvmlProcV3 {  // nvmlProcessInfo_t as of NVML's _v3 entry points
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

std::optional<std::vector<GpuProcess>> nvml_processes(const std::string& bus) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return std::nullopt;
  using InitFn = int (*)();
  using CountFn = int (*)(unsigned*);
  using ByIndexFn = int (*)(unsigned, void**);
  using ByBusFn = int (*)(const char*, void**);
  using ProcsFn = int (*)(void*, unsigned*, NvmlProcV3*);
  using NameFn = int (*)(unsigned, char*, unsigned);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  auto count_fn = reinterpret_cast<CountFn>(dlsym(lib, "nvmlDeviceGetCount_v2"));
  auto by_index = reinterpret_cast<ByIndexFn>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  auto by_bus = reinterpret_cast<ByBusFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto procs_fn = reinterpret_cast<ProcsFn>(dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
  auto name_fn = reinterpret_cast<NameFn>(dlsym(lib, "nvmlSystemGetProcessName"));
  if (!init || !shutdown || !count_fn || !by_index || !by_bus || !procs_fn || init() != 0) {
    dlclose(lib);
    return std::nullopt;
  }
  std::vector<void*> devs;
  bool ok = true;
  if (!bus.empty()) {
    void* h = nullptr;
    if (by_bus(bus.c_str(), &h) == 0)
      devs.push_back(h);
    else
      ok = false;
  } else {
    unsigned n = 0;
    ok = count_fn(&n) == 0;
    for (unsigned i = 0; ok && i < n; ++i) {
      void* h = nullptr;
      if (by_index(i, &h) == 0)
        devs.push_back(h);
      else
        ok = false;
    }
  }
  std::vector<GpuProcess> out;
  for (void* h : devs) {
    NvmlProcV3 buf[64];
    unsigned n = 64;
    if (procs_fn(h, &n, buf) != 0) {
      ok = false;
      break;
    }
    for (unsigned i = 0; i < n && i < 64; ++i) {
      GpuProcess p;
      p.pid = buf[i].pid;
      p.used_bytes = static_cast<long long>(buf[i].usedGpuMemory);
      char name[256] = {};
      if (name_fn && name_fn(buf[i].pid, name, sizeof name) == 0) p.name = name;
      out.push_back(p);
    }
  }
  shutdown();
  dlclose(lib);
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<GpuProcess>> smi_processes(const std::string& bus) {
  std::string cmd = "nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader";
  if (!bus.empty()) cmd += " --id=" + bus;
  cmd += " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return std::nullopt;
  std::vector<GpuProcess> out;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    GpuProcess p;
    char* end = nullptr;
    p.pid = std::strtoll(line, &end, 10);
    if (end == line) continue;  // "No running processes found" and the like
    if (*end == ',') ++end;
    while (*end == ' ') ++end;
    p.name = end;
    while (!p.name.empty() && (p.name.back() == '\n' || p.name.back() == '\r')) p.name.pop_back();
    out.push_back(p);
  }
  int rc = pclose(f);
  if (rc != 0) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::vector<GpuProcess>> gpu_processes(const std::string& pci_bus_id,
                                                     const std::vector<long long>& ignore) {
  auto all = nvml_processes(pci_bus_id);
  if (!all) all = smi_processes(pci_bus_id);
  if (!all) return std::nullopt;
  std::vector<GpuProcess> out;
  for (auto& p : *all) {
    bool skip = false;
    for (long long i : ignore) skip |= (p.pid == i);
    if (!skip) out.push_back(p);
  }
  return out;
}

void require_idle_gpu(const std::string& pci_bus_id, const std::vector<long long>& ignore,
                      double grace_s) {
  auto procs = gpu_processes(pci_bus_id, ignore);
  // A measuring child stopped a moment ago (its parent killed by `timeout`, say) stays listed
  // until its context is gone: ask again before calling the GPU busy.
  const auto start = std::chrono::steady_clock::now();
  while (procs && !procs->empty() &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             grace_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    procs = gpu_processes(pci_bus_id, ignore);
  }
  if (!procs) {
    std::fprintf(stderr,
                 "sched2cu: warning: cannot list GPU processes (no NVML, no nvidia-smi); "
                 "timings may be shared with another process\n");
    return;
  }
  if (procs->empty()) return;
  std::string msg = "another process is using the GPU" +
                    (pci_bus_id.empty() ? std::string() : " " + pci_bus_id) +
                    ", so timings would be shared:";
  for (auto& p : *procs) {
    msg += " pid " + std::to_string(p.pid) + (p.name.empty() ? "" : " (" + p.name + ")") + ";";
  }
  msg += " wait for it to finish, or pass --allow-busy-gpu to measure anyway";
  throw Error(msg);
}

std::string gpu_lock_key(const std::string& pci_bus_id) {
  std::string k = pci_bus_id.empty() ? "any" : pci_bus_id;
  for (char& c : k) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return k;
}

GpuLock::GpuLock(const std::string& key, double timeout_s, const std::function<bool()>& stop) {
  const char* dir = std::getenv("SCHED2CU_LOCK_DIR");
  path_ = std::string(dir && *dir ? dir : "/tmp") + "/sched2cu-gpu-" + key + ".lock";
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw Error("cannot open GPU lock " + path_ + ": " + std::strerror(errno));
  auto start = std::chrono::steady_clock::now();
  bool told = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int err = errno;
      ::close(fd_);
      throw Error("cannot take GPU lock " + path_ + ": " + std::strerror(err));
    }
    if (!told) {
      char owner[32] = {};
      ssize_t n = ::pread(fd_, owner, sizeof owner - 1, 0);
      std::fprintf(stderr, "sched2cu: waiting for the GPU lock %s (held by pid %s)\n",
                   path_.c_str(), n > 0 ? owner : "?");
      told = true;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s >= 0 && waited > timeout_s) {
      ::close(fd_);
      throw Error("gave up waiting for the GPU lock " + path_);
    }
    if (stop && stop()) {
      ::close(fd_);
      throw Error("interrupted while waiting for the GPU lock " + path_);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace sched2cu::bench
