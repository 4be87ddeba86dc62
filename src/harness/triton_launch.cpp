// The Triton column in the measurement child (see triton_launch.h).
#include "sched2cu/harness/triton_launch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::harness {

using nlohmann::json;

namespace {

template <class T>
T field(const json& j, const char* key) {
  if (!j.contains(key)) throw Error(std::string("the Triton launch plan lacks \"") + key + "\"");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw Error(std::string("the Triton launch plan's \"") + key + "\" is malformed");
  }
}

bool integer_type(const std::string& t) {
  return t == "i1" || t == "i8" || t == "i16" || t == "i32" || t == "i64" || t == "u1" ||
         t == "u8" || t == "u16" || t == "u32" || t == "u64";
}

// Global scratch for `programs` programs of `per_program` bytes (none for 0), aligned as Triton
// asks; cudaMalloc aligns to 256 bytes.
void* scratch(long long per_program, long long align, long long programs, int num_ctas,
              const std::string& what) {
  if (per_program <= 0 || programs <= 0) return nullptr;
  if (align > 256 || align <= 0 || (align & (align - 1)) != 0)
    throw Error("Triton asks for " + what + " aligned to " + std::to_string(align) +
                " bytes; cudaMalloc gives 256");
  const long long bytes = per_program * programs * num_ctas;
  void* p = nullptr;
  bench::check_cuda(cudaMalloc(&p, static_cast<size_t>(bytes)),
                    "allocating Triton's " + what + " (" + std::to_string(bytes) + " bytes)");
  return p;
}

}  // namespace

TritonPlan triton_plan_from_json(const json& j) {
  if (!j.is_object()) throw Error("the Triton launch plan is not a JSON object");
  TritonPlan p;
  p.cubin = field<std::string>(j, "cubin");
  bench::TritonKernelInfo& k = p.kernel;
  k.name = field<std::string>(j, "kernel");
  k.num_warps = field<int>(j, "num_warps");
  k.num_ctas = field<int>(j, "num_ctas");
  k.shared = field<long long>(j, "shared");
  k.global_scratch_size = field<long long>(j, "global_scratch_size");
  k.global_scratch_align = field<long long>(j, "global_scratch_align");
  k.profile_scratch_size = field<long long>(j, "profile_scratch_size");
  k.profile_scratch_align = field<long long>(j, "profile_scratch_align");
  k.launch_cooperative_grid = field<bool>(j, "launch_cooperative_grid");
  k.launch_pdl = field<bool>(j, "launch_pdl");
  k.entry_param_bytes = field<std::vector<int>>(j, "entry_param_bytes");
  if (j.contains("tensordesc_meta"))
    for (const json& m : field<json>(j, "tensordesc_meta")) {
      if (!m.is_object()) throw Error("the Triton launch plan's \"tensordesc_meta\" is malformed");
      bench::TensordescMeta t;
      t.swizzle = field<int>(m, "swizzle");
      t.elem_size = field<int>(m, "elem_size");
      t.elem_type = field<int>(m, "elem_type");
      t.block_size = field<std::vector<long long>>(m, "block_size");
      t.fp4_padded = field<bool>(m, "fp4_padded");
      k.tensordesc.push_back(std::move(t));
    }
  for (const json& prm : field<json>(j, "params")) {
    if (!prm.is_object() || !prm.contains("name") || !prm.contains("type") ||
        !prm["name"].is_string() || !prm["type"].is_string())
      throw Error("the Triton launch plan's \"params\" is malformed");
    p.param_names.push_back(prm["name"].get<std::string>());
    k.param_types.push_back(prm["type"].get<std::string>());
  }
  p.num_stages = field<int>(j, "num_stages");
  p.dump_num_stages = field<int>(j, "dump_num_stages");
  p.ctas_per_sm = field<int>(j, "ctas_per_sm");
  const auto grid = field<std::vector<std::string>>(j, "grid");
  if (grid.size() != 3) throw Error("the Triton launch plan's \"grid\" is not three extents");
  for (const auto& g : grid) p.grid.push_back(sgraph::parse_grid_expr(g, "the Triton launch grid"));
  if (j.contains("hints")) {
    p.hints = field<std::vector<std::string>>(j, "hints");
    if (p.hints.size() != k.param_types.size())
      throw Error("the Triton launch plan's \"hints\" do not match its \"params\"");
  }
  if (j.contains("specialized")) {
    k.specialized = field<std::vector<int>>(j, "specialized");
    for (int i : k.specialized)
      if (i < 0 || i >= static_cast<int>(k.param_types.size()) ||
          !integer_type(k.param_types[static_cast<size_t>(i)]))
        throw Error("the Triton launch plan specializes " + std::to_string(i) +
                    ", no integer parameter");
  }
  return p;
}

TritonPlans triton_plans_from_json(const json& j) {
  if (!j.is_object()) throw Error("the Triton launch plans are not a JSON object");
  TritonPlans ps;
  for (const json& v : field<json>(j, "variants")) ps.variants.push_back(triton_plan_from_json(v));
  ps.shape_variant = field<std::vector<int>>(j, "shape_variant");
  for (int v : ps.shape_variant)
    if (v < 0 || v >= static_cast<int>(ps.variants.size()))
      throw Error("the Triton launch plans name variant " + std::to_string(v) + " of " +
                  std::to_string(ps.variants.size()));
  return ps;
}

std::string hints_text(const std::vector<std::string>& hints) {
  std::string t;
  for (size_t i = 0; i < hints.size(); ++i) t += (i ? "," : "") + hints[i];
  return t;
}

std::vector<std::string> jit_hints(const std::vector<std::string>& types, const sched2cu_arg* args,
                                   int nargs) {
  const std::vector<int> at = bench::abi_positions(types);
  if (nargs != at.back())
    throw Error(at.back() == static_cast<int>(types.size())
                    ? "kernel.py's DUMP signature has " + std::to_string(types.size()) +
                          " parameters, the spec passed " + std::to_string(nargs) + " arguments"
                    : "kernel.py's DUMP signature takes " + std::to_string(at.back()) +
                          " launch arguments (a tensor descriptor its base, extents and strides), "
                          "the spec passed " +
                          std::to_string(nargs));
  std::vector<std::string> h;
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string& t = types[i];
    const sched2cu_arg& a = args[at[i]];
    if (!t.empty() && t[0] == '*')
      h.emplace_back(reinterpret_cast<uintptr_t>(a.ptr) % 16 == 0 ? "D" : "");
    else if (integer_type(t) && t != "i1" && t != "u1")
      h.emplace_back(a.i == 1 ? "1" : (a.i % 16 == 0 ? "D" : ""));
    else
      h.emplace_back("");  // floats; a tensor descriptor is specialized by its type alone
  }
  return h;
}

std::array<long long, 3> triton_grid(const TritonPlan& plan, const sched2cu_arg* args, int nargs,
                                     int sm_count) {
  const std::vector<int> at = bench::abi_positions(plan.kernel.param_types);
  auto param = [&](const std::string& name) -> long long {
    for (size_t i = 0; i < plan.param_names.size(); ++i) {
      if (plan.param_names[i] != name) continue;
      if (!integer_type(plan.kernel.param_types[i]))
        throw Error("the launch grid names " + name + ", a parameter of type " +
                    plan.kernel.param_types[i] + ", not an integer");
      const int abi = at.at(i);
      if (abi >= nargs)
        throw Error("the launch grid names " + name + ", argument " + std::to_string(abi) +
                    ", but the spec passed " + std::to_string(nargs));
      return args[abi].i;
    }
    throw Error("the launch grid names " + name + ", which is no parameter of kernel.py's DUMP");
  };
  std::array<long long, 3> g{};
  const long long sms = static_cast<long long>(plan.ctas_per_sm) * sm_count;
  for (size_t d = 0; d < 3; ++d) {
    g[d] = sgraph::evaluate(plan.grid.at(d), param, sms);
    const long long limit = d == 0 ? 2147483647LL : 65535LL;
    if (g[d] > limit)
      throw Error("the launch grid's " + std::string(1, "xyz"[d]) + " extent " +
                  sgraph::to_text(plan.grid[d]) + " = " + std::to_string(g[d]) +
                  " is more than CUDA launches (" + std::to_string(limit) + ")");
  }
  return g;
}

TritonLaunch::TritonLaunch(const bench::TritonModule& module, const TritonPlan& plan,
                           const sched2cu_arg* args, int nargs, int sm_count)
    : module_(module), params_(module.info(), args, nargs) {
  grid_ = triton_grid(plan, args, nargs, sm_count);
  const bench::TritonKernelInfo& k = module.info();
  const bool none = grid_[0] <= 0 || grid_[1] <= 0 || grid_[2] <= 0;
  const long long programs = none ? 0 : grid_[0] * grid_[1] * grid_[2];
  try {
    global_scratch_ = scratch(k.global_scratch_size, k.global_scratch_align, programs, k.num_ctas,
                              "global scratch");
    profile_scratch_ = scratch(k.profile_scratch_size, k.profile_scratch_align, programs,
                               k.num_ctas, "profile scratch");
  } catch (...) {
    if (global_scratch_) cudaFree(global_scratch_);
    throw;
  }
  params_.set_scratch(global_scratch_, profile_scratch_);
}

bool triton_grid_is_free(const TritonPlan& plan) {
  for (const auto& g : plan.grid)
    if (sgraph::uses_num_sms(g)) return true;
  return false;
}

std::vector<int> triton_ctas_candidates(int num_warps, long long shared, int plan_ctas_per_sm) {
  // One SM of sm_90: 2048 threads, 228 KB of shared memory of which each block reserves 1 KB.
  constexpr long long kThreadsPerSm = 2048, kSmemPerSm = 233472, kSmemPerBlockReserved = 1024;
  const long long threads = 32LL * std::max(1, num_warps);
  std::vector<int> candidates;
  for (int m : {1, 2, 4, 8, 16, plan_ctas_per_sm}) {
    const bool fits = m * threads <= kThreadsPerSm &&
                      m * (std::max(0LL, shared) + kSmemPerBlockReserved) <= kSmemPerSm;
    if ((fits || m == plan_ctas_per_sm) &&
        std::find(candidates.begin(), candidates.end(), m) == candidates.end())
      candidates.push_back(m);
  }
  return candidates;
}

int fastest_triton_ctas_per_sm(const bench::TritonModule& module, const TritonPlan& plan,
                               const sched2cu_arg* args, int nargs, int sm_count,
                               const bench::BenchOptions& brief) {
  if (!triton_grid_is_free(plan)) return plan.ctas_per_sm;
  const bench::TritonKernelInfo& k = module.info();
  const std::vector<int> candidates =
      triton_ctas_candidates(k.num_warps, k.shared, plan.ctas_per_sm);
  if (candidates.size() == 1) return candidates[0];
  std::vector<std::unique_ptr<TritonLaunch>> launches;
  std::vector<bench::LaunchFn> fns;
  for (int m : candidates) {
    TritonPlan p = plan;
    p.ctas_per_sm = m;
    launches.push_back(std::make_unique<TritonLaunch>(module, p, args, nargs, sm_count));
    fns.emplace_back([t = launches.back().get()] { return t->launch(); });
    if (const int rc = fns.back()(); rc != 0)
      throw Error("Triton launch with " + std::to_string(m) + " programs per SM returned " +
                  bench::TritonModule::error_name(rc));
  }
  bench::check_cuda(cudaDeviceSynchronize(), "Triton's kernel, choosing its programs per SM");
  const std::vector<bench::TimingStats> t = bench::do_bench_interleaved(fns, brief);
  size_t best = 0;
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i].median_ms < t[best].median_ms) best = i;
  return candidates[best];
}

TritonLaunch::~TritonLaunch() {
  if (global_scratch_) cudaFree(global_scratch_);
  if (profile_scratch_) cudaFree(profile_scratch_);
}

int TritonLaunch::launch() {
  if (grid_[0] <= 0 || grid_[1] <= 0 || grid_[2] <= 0) return 0;  // no programs
  return module_.launch({static_cast<unsigned>(grid_[0]), static_cast<unsigned>(grid_[1]),
                         static_cast<unsigned>(grid_[2])},
                        params_, nullptr);
}

}  // namespace sched2cu::harness
