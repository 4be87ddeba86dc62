// Facts about the GPU a measurement runs on, and the guards around it: the Hopper check, the
// "nobody else is using it" check (NVML through dlopen of libnvidia-ml.so.1, else nvidia-smi) and
// an exclusive flock so that two sched2cu timings never share a GPU. Never reset, reconfigure or
// kill anything on the GPU.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sched2cu::bench {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0;
  int minor = 0;
  int sm_count = 0;
  std::string pci_bus_id;  // "0000:3B:00.0", as CUDA reports it
  long long memory_bytes = 0;
  int clock_khz = 0;
  long long shared_optin_bytes = 0;  // the most dynamic shared memory a block may opt into
};

// Queries the current CUDA device through the runtime (creates no kernels). Throws
// sched2cu::Error when no CUDA device is visible.
DeviceInfo query_device();

// Throws sched2cu::Error with a clear message unless `d` is a Hopper part (compute capability
// 9.x), which every sm_90a kernel needs.
void require_hopper(const DeviceInfo& d);

struct GpuProcess {
  long long pid = 0;
  std::string name;
  long long used_bytes = -1;
};

// Compute processes on the GPU with the given PCI bus id (empty: every GPU), excluding the pids
// in `ignore`. nullopt when neither NVML nor nvidia-smi could be asked.
std::optional<std::vector<GpuProcess>> gpu_processes(const std::string& pci_bus_id,
                                                     const std::vector<long long>& ignore);

// Throws sched2cu::Error listing the processes when another process uses the GPU; prints a
// warning to stderr and returns when that cannot be determined. A process that has just exited
// can stay listed while the driver tears its context down: the list is asked again for up to
// `grace_s` seconds before the error.
void require_idle_gpu(const std::string& pci_bus_id, const std::vector<long long>& ignore,
                      double grace_s = 5.0);

// Exclusive advisory lock on one GPU, held until destruction. The lock file lives in
// $SCHED2CU_LOCK_DIR (default /tmp) and holds the owner's pid for the waiting message.
class GpuLock {
 public:
  // Blocks until the lock is free, telling stderr once whom it waits for; gives up with
  // sched2cu::Error after `timeout_s` seconds (< 0: wait forever), or as soon as `stop` (when
  // given) returns true: a signal arrived while waiting.
  explicit GpuLock(const std::string& key, double timeout_s = -1,
                   const std::function<bool()>& stop = {});
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// The lock key for a PCI bus id (characters unsafe in file names replaced).
std::string gpu_lock_key(const std::string& pci_bus_id);

}  // namespace sched2cu::bench
