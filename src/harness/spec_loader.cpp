// Loading a bench spec and listing its launch arguments (see spec_loader.h).
#include "sched2cu/harness/spec_loader.h"

#include <dlfcn.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "sched2cu/bench/kernel_module.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::harness {

namespace sp = sched2cu::spec;
using nlohmann::json;

std::unique_ptr<sp::BenchSpec> load_bench_spec(const std::string& spec_so) {
  const std::string path = std::filesystem::absolute(spec_so).string();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw Error(std::string("cannot load the bench spec: ") + dlerror());
  auto ver =
      reinterpret_cast<int (*)()>(bench::load_symbol(lib, "sched2cu_spec_api_version", spec_so));
  if (ver() != SCHED2CU_SPEC_API_VERSION) {
    throw Error("bench spec built for spec API version " + std::to_string(ver()) +
                ", the harness speaks " + std::to_string(SCHED2CU_SPEC_API_VERSION));
  }
  auto create = reinterpret_cast<sp::BenchSpec* (*)()>(
      bench::load_symbol(lib, "sched2cu_spec_create", spec_so));
  std::unique_ptr<sp::BenchSpec> spec(create());
  if (!spec) throw Error("the bench spec factory returned null");
  return spec;
}

std::string shape_label(const sp::Shape& s) {
  std::string l;
  for (int i = 0; i < s.rank; ++i) {
    if (i) l += 'x';  // appended separately: `"x" + std::string&&` trips GCC 12's -Wrestrict
    l += std::to_string(s.d[i]);
  }
  return l;
}

namespace {

// Stand-in buffers: 1 GiB apart from a base no real allocation of this process has, 256-aligned.
std::vector<sp::Tensor> stand_ins(const sp::BufferDecl* decl, int n, uintptr_t& next) {
  std::vector<sp::Tensor> ts;
  for (int i = 0; i < n; ++i) {
    sp::Tensor t;
    t.dtype = decl[i].dtype;
    t.numel = decl[i].numel;
    t.name = decl[i].name;
    t.ptr = reinterpret_cast<void*>(next);  // NOLINT(performance-no-int-to-ptr): never read
    next += uintptr_t{1} << 30;
    ts.push_back(t);
  }
  return ts;
}

}  // namespace

json list_shape_args(const std::string& spec_so) {
  std::string where = "loading the spec";
  try {
    std::unique_ptr<sp::BenchSpec> spec = load_bench_spec(spec_so);
    json shapes = json::array();
    for (int si = 0; si < spec->num_shapes(); ++si) {
      const sp::Shape s = spec->shape(si);
      where = "shape " + shape_label(s);
      sp::Layout layout;
      spec->declare(s, layout);
      uintptr_t next = uintptr_t{0x100000} << 20;
      const std::vector<sp::Tensor> in = stand_ins(layout.inputs, layout.n_inputs, next);
      const std::vector<sp::Tensor> out = stand_ins(layout.outputs, layout.n_outputs, next);
      sp::ArgList args;
      if (spec->kernel_args(s, in.empty() ? nullptr : in.data(), out.empty() ? nullptr : out.data(),
                            args) != 0)
        throw Error("kernel_args failed");
      if (args.n >= sp::kMaxArgs) throw Error("too many kernel arguments");
      json a = json::array();
      for (int i = 0; i < args.n; ++i) a.push_back(args.a[i].i);
      shapes.push_back({{"label", shape_label(s)}, {"args", a}});
    }
    return {{"shapes", shapes}};
  } catch (const std::exception& e) {
    return {{"error", where + ": " + e.what()}};
  }
}

}  // namespace sched2cu::harness
