// Triton kernels through the CUDA driver API (see triton_module.h). The driver functions are
// looked up once through the runtime; their prototypes come from cuda.h, which is a header only
// here (no libcuda at link time, so the sched2cu binary still runs on machines without a driver).
#include "sched2cu/bench/triton_module.h"

#include <cuda.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "sched2cu/common/diag.h"

namespace sched2cu::bench {

namespace {

struct Driver {
  decltype(&cuModuleLoadData) load_data = nullptr;
  decltype(&cuModuleGetFunction) get_function = nullptr;
  decltype(&cuFuncSetAttribute) set_attribute = nullptr;
  decltype(&cuLaunchKernel) launch = nullptr;
  decltype(&cuGetErrorName) error_name = nullptr;
  decltype(&cuTensorMapEncodeTiled) encode_tiled = nullptr;
  std::string missing;  // why the first entry point the driver did not give is missing
};

template <class F>
void lookup(const char* name, F& fn, std::string& missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
  if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && p) {
    fn = reinterpret_cast<F>(p);
    return;
  }
  if (missing.empty())
    missing = std::string(name) + " (" +
              (e != cudaSuccess ? cudaGetErrorName(e) : "the driver does not provide it") + ")";
}

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    lookup("cuModuleLoadData", r.load_data, r.missing);
    lookup("cuModuleGetFunction", r.get_function, r.missing);
    lookup("cuFuncSetAttribute", r.set_attribute, r.missing);
    lookup("cuLaunchKernel", r.launch, r.missing);
    lookup("cuGetErrorName", r.error_name, r.missing);
    lookup("cuTensorMapEncodeTiled", r.encode_tiled, r.missing);
    return r;
  }();
  return d;
}

const Driver& require_driver() {
  const Driver& d = driver();
  if (!d.missing.empty())
    throw Error("cannot reach the CUDA driver's " + d.missing + ", needed to launch Triton");
  return d;
}

void check_cu(CUresult r, const std::string& what) {
  if (r != CUDA_SUCCESS) throw Error(what + ": " + TritonModule::error_name(static_cast<int>(r)));
}

template <class T>
std::array<unsigned char, 8> slot_of(T v) {
  static_assert(sizeof(T) <= 8);
  std::array<unsigned char, 8> s{};
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

// Triton's launcher packs bf16 scalars by truncating the f32 bits (pack_bf16 in driver.py).
uint16_t bf16_bits(double v) {
  const auto f = static_cast<float>(v);
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}

uint16_t fp16_bits(double v) {
  const __half h = __float2half_rn(static_cast<float>(v));
  uint16_t u = 0;
  std::memcpy(&u, &h, sizeof u);
  return u;
}

// Triton's device-side TMA data type code to the driver's (TMA_DTYPE_DEVICE_TO_HOST of
// driver.py: 8, 9, 10 permute, the rest are equal).
int host_tma_dtype(int t) { return t == 8 ? 10 : t == 9 ? 8 : t == 10 ? 9 : t; }

}  // namespace

int tensordesc_rank(const std::string& type) {
  if (type.rfind("tensordesc<", 0) != 0) return 0;
  const size_t a = type.find('['), b = type.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a + 2)
    throw Error("malformed tensor descriptor type '" + type + "'");
  return 1 + static_cast<int>(std::count(type.begin() + static_cast<long>(a),
                                         type.begin() + static_cast<long>(b), ','));
}

std::vector<int> abi_positions(const std::vector<std::string>& types) {
  std::vector<int> at;
  int pos = 0;
  for (const auto& t : types) {
    at.push_back(pos);
    pos += 1 + 2 * tensordesc_rank(t);
  }
  at.push_back(pos);
  return at;
}

int encode_tensor_map(const TensorMapRequest& r, void* out) {
  const Driver& d = require_driver();
  std::vector<cuuint64_t> dims(r.dims.begin(), r.dims.end()),
      strides(r.strides.begin(), r.strides.end());
  std::vector<cuuint32_t> box(r.box.begin(), r.box.end()), estr(r.box.size(), 1);
  return static_cast<int>(
      d.encode_tiled(static_cast<CUtensorMap*>(out), static_cast<CUtensorMapDataType>(r.data_type),
                     static_cast<cuuint32_t>(r.rank), r.base, dims.data(), strides.data(),
                     box.data(), estr.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
                     static_cast<CUtensorMapSwizzle>(r.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                     r.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

TritonParams::TritonParams(const TritonKernelInfo& k, const sched2cu_arg* args, int nargs,
                           TensorMapEncoder encode) {
  const auto n = static_cast<int>(k.param_types.size());
  const std::vector<int> at = abi_positions(k.param_types);
  if (nargs != at.back())
    throw Error("Triton's " + k.name + " takes " + std::to_string(at.back()) +
                " arguments, the spec gave " + std::to_string(nargs));
  // ABI argument `abi`, range checked for `type`.
  auto integer_at = [&](int abi, long long lo, unsigned long long hi, const std::string& type) {
    const long long v = args[abi].i;
    const bool fits = v >= lo && (v < 0 || static_cast<unsigned long long>(v) <= hi);
    if (!fits)
      throw Error("argument " + std::to_string(abi) + " of Triton's " + k.name + " = " +
                  std::to_string(v) + " does not fit its type " + type);
    return v;
  };
  auto integer = [&](int i, long long lo, unsigned long long hi, const std::string& type) {
    return integer_at(at[static_cast<size_t>(i)], lo, hi, type);
  };
  auto put = [&](auto v) {
    slots_.push_back(slot_of(v));
    sizes_.push_back(sizeof v);
    map_of_.push_back(-1);
  };
  size_t descs = 0;
  for (const auto& t : k.param_types) descs += tensordesc_rank(t) > 0 ? 1 : 0;
  maps_.reserve(descs);  // stable addresses for pointers()
  for (int i = 0; i < n; ++i) {
    const std::string& t = k.param_types[static_cast<size_t>(i)];
    const sched2cu_arg& arg = args[at[static_cast<size_t>(i)]];
    if (std::find(k.specialized.begin(), k.specialized.end(), i) != k.specialized.end()) {
      if (arg.i != 1)
        throw Error("argument " + std::to_string(i) + " of Triton's " + k.name + " = " +
                    std::to_string(arg.i) + ", but its kernel was compiled for 1");
      continue;
    }
    if (const int rank = tensordesc_rank(t)) {
      // make_tensordesc_arg: the map, then the extents (i32) and the strides (i64).
      if (maps_.size() >= k.tensordesc.size())
        throw Error("Triton's " + k.name + " has no tensordesc_meta for parameter " +
                    std::to_string(i) + " (" + t + "): compiled without TMA descriptors");
      const TensordescMeta& m = k.tensordesc[maps_.size()];
      const sched2cu_arg* ext = &arg + 1;
      const sched2cu_arg* str = &arg + 1 + rank;
      if (m.fp4_padded || static_cast<int>(m.block_size.size()) != rank || m.elem_size <= 0)
        throw Error("parameter " + std::to_string(i) + " of Triton's " + k.name + " (" + t +
                    ") has a tensor map the harness does not encode (fp4 padding or a block "
                    "of another rank)");
      if (str[rank - 1].i != 1)
        throw Error("argument " + std::to_string(i) + " of Triton's " + k.name +
                    ": a tensor descriptor's innermost stride must be 1, got " +
                    std::to_string(str[rank - 1].i));
      TensorMapRequest r;
      r.data_type = host_tma_dtype(m.elem_type);
      r.rank = rank;
      r.base = arg.ptr;
      r.swizzle = m.swizzle;
      for (int d = rank - 1; d >= 0; --d) {
        r.dims.push_back(static_cast<unsigned long long>(ext[d].i));
        r.box.push_back(static_cast<unsigned>(m.block_size[static_cast<size_t>(d)]));
        if (d < rank - 1)
          r.strides.push_back(static_cast<unsigned long long>(str[d].i) *
                              static_cast<unsigned long long>(m.elem_size));
      }
      maps_.emplace_back();
      const int rc = encode(r, maps_.back().bytes);
      if (rc != 0)
        throw Error("encoding the tensor map of parameter " + std::to_string(i) + " of Triton's " +
                    k.name + " (" + t + "): CUresult " + std::to_string(rc));
      slots_.emplace_back();
      sizes_.push_back(sizeof(Map::bytes));
      map_of_.push_back(static_cast<int>(maps_.size()) - 1);
      for (int d = 0; d < rank; ++d)
        put(static_cast<int32_t>(
            integer_at(at[static_cast<size_t>(i)] + 1 + d, -(1LL << 31), (1ULL << 31) - 1, "i32")));
      for (int d = 0; d < rank; ++d) put(static_cast<int64_t>(str[d].i));
      continue;
    }
    if (!t.empty() && t[0] == '*')
      put(arg.ptr);
    else if (t == "i1" || t == "u1")
      put(static_cast<uint8_t>(integer(i, 0, 1, t)));
    else if (t == "i8")
      put(static_cast<int8_t>(integer(i, -128, 127, t)));
    else if (t == "u8")
      put(static_cast<uint8_t>(integer(i, 0, 255, t)));
    else if (t == "i16")
      put(static_cast<int16_t>(integer(i, -32768, 32767, t)));
    else if (t == "u16")
      put(static_cast<uint16_t>(integer(i, 0, 65535, t)));
    else if (t == "i32")
      put(static_cast<int32_t>(integer(i, -(1LL << 31), (1ULL << 31) - 1, t)));
    else if (t == "u32")
      put(static_cast<uint32_t>(integer(i, 0, (1ULL << 32) - 1, t)));
    else if (t == "i64")
      put(static_cast<int64_t>(arg.i));
    else if (t == "u64")
      put(static_cast<uint64_t>(integer(i, 0, std::numeric_limits<long long>::max(), t)));
    else if (t == "fp16")
      put(fp16_bits(arg.f));
    else if (t == "bf16")
      put(bf16_bits(arg.f));
    else if (t == "fp32" || t == "f32")
      put(static_cast<float>(arg.f));
    else if (t == "fp64")
      put(arg.f);
    else
      throw Error("parameter " + std::to_string(i) + " of Triton's " + k.name + " has type '" + t +
                  "', which the harness cannot pass (pointers, integers and floats only)");
  }
  put(static_cast<void*>(nullptr));  // the global scratch pointer, then the profile one
  put(static_cast<void*>(nullptr));
  std::vector<int> got(sizes_.begin(), sizes_.end());
  if (got != k.entry_param_bytes) {
    auto list = [](const std::vector<int>& v) {
      std::string s;
      for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
      return "[" + s + "]";
    };
    throw Error("Triton's " + k.name + " takes parameters of " + list(k.entry_param_bytes) +
                " bytes (its PTX .entry), the harness packs " + list(got) +
                " (signature less its constexpr 1s + 2 scratch pointers): not the launcher of "
                "Triton 3.6?");
  }
  for (size_t i = 0; i < slots_.size(); ++i)
    ptrs_.push_back(map_of_[i] >= 0
                        ? static_cast<void*>(maps_[static_cast<size_t>(map_of_[i])].bytes)
                        : static_cast<void*>(slots_[i].data()));
}

void TritonParams::set_scratch(void* global, void* profile) {
  slots_[slots_.size() - 2] = slot_of(global);
  slots_[slots_.size() - 1] = slot_of(profile);
}

std::vector<unsigned char> TritonParams::bytes(size_t i) const {
  if (map_of_.at(i) >= 0) {
    const auto& m = maps_[static_cast<size_t>(map_of_[i])].bytes;
    return {std::begin(m), std::end(m)};
  }
  return {slots_.at(i).begin(), slots_.at(i).begin() + static_cast<std::ptrdiff_t>(sizes_.at(i))};
}

TritonModule::TritonModule(const std::string& cubin_path, TritonKernelInfo k) : k_(std::move(k)) {
  if (k_.num_ctas != 1)
    throw Error("Triton's " + k_.name + " is compiled for clusters of " +
                std::to_string(k_.num_ctas) + " CTAs; the harness launches num_ctas = 1 only");
  if (k_.launch_cooperative_grid || k_.launch_pdl)
    throw Error("Triton's " + k_.name +
                " asks for a cooperative or programmatic-dependent launch, which the harness "
                "does not make");
  std::ifstream f(cubin_path, std::ios::binary);
  if (!f) throw Error("cannot open Triton's cubin " + cubin_path);
  std::string image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (image.empty()) throw Error("Triton's cubin " + cubin_path + " is empty");
  const Driver& d = require_driver();
  CUmodule m = nullptr;
  check_cu(d.load_data(&m, image.data()), "loading Triton's cubin " + cubin_path);
  module_ = m;
  CUfunction fn = nullptr;
  check_cu(d.get_function(&fn, m, k_.name.c_str()), "finding " + k_.name + " in " + cubin_path);
  function_ = fn;
  // Above the 48 KB default a kernel must opt in, as Triton's load_binary does.
  if (k_.shared > 49152)
    check_cu(d.set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(k_.shared)),
             "opting " + k_.name + " into " + std::to_string(k_.shared) +
                 " bytes of dynamic shared memory");
}

// The module stays loaded, as KernelModule's do: unloading while the runtime's teardown may still
// refer to the context has crashed processes at exit, and the measurement child ends soon after.
TritonModule::~TritonModule() = default;

int TritonModule::launch(const std::array<unsigned, 3>& grid, TritonParams& params,
                         cudaStream_t stream) const {
  const Driver& d = require_driver();
  return static_cast<int>(d.launch(static_cast<CUfunction>(function_), grid[0], grid[1], grid[2],
                                   static_cast<unsigned>(32 * k_.num_warps), 1, 1,
                                   static_cast<unsigned>(k_.shared), stream, params.pointers(),
                                   nullptr));
}

std::string TritonModule::error_name(int cu_result) {
  const Driver& d = driver();
  const char* s = nullptr;
  if (d.error_name && d.error_name(static_cast<CUresult>(cu_result), &s) == CUDA_SUCCESS && s)
    return s;
  return "CUresult " + std::to_string(cu_result);
}

}  // namespace sched2cu::bench
