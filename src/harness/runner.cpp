// Shared parts of the harness commands: option defaults, the GPU guard and the real measurer
// (nvcc builds + measurement child), JSON output. See runner.h.
#include "sched2cu/harness/runner.h"

#include <unistd.h>

#include <cstdio>

#include "sched2cu/bench/gpu.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/child.h"
#include "sched2cu/harness/git.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/triton_build.h"
#include "sched2cu/harness/vendor_script.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;
using nlohmann::json;

RunOptions default_run_options(const std::string& root_arg, const std::string& examples_arg) {
  RunOptions o;
  if (!root_arg.empty()) {
    // A directory that is a tree of its own (runtime/ in it) is the root even inside another
    // checkout (a scratch copy under a git-ignored folder); any other path names its checkout.
    auto top =
        fs::is_directory(fs::path(root_arg) / "runtime") ? std::nullopt : git_toplevel(root_arg);
    o.root = top ? *top : fs::path(root_arg);
  } else if (auto top = git_toplevel(fs::current_path())) {
    o.root = *top;
  } else if (fs::is_directory("runtime") && fs::is_directory("examples")) {
    o.root = fs::current_path();  // a copy of the tree without .git (e.g. on the GPU machine)
  } else {
#ifdef SCHED2CU_SOURCE_DIR
    o.root = SCHED2CU_SOURCE_DIR;
#endif
  }
  if (o.root.empty() || !fs::is_directory(o.root / "runtime")) {
    throw Error("cannot find the sched2cu repository (run inside the checkout, or pass --root)");
  }
  o.root = fs::weakly_canonical(o.root);
  o.examples = examples_arg.empty() ? o.root / "examples" : fs::weakly_canonical(examples_arg);
  o.build.root = o.root;
  o.build.cache_dir = default_cache_dir(o.root);
  o.build.nvcc = default_nvcc();
  return o;
}

void write_json(const std::string& path, const json& j) {
  write_file_atomic(path, j.dump(2) + "\n");
}

json partial_json(json j) {
  j["partial"] = true;
  return j;
}

struct GpuMeasurer::Lock {
  bench::GpuLock lock;
  explicit Lock(const std::string& key) : lock(key, -1, [] { return interrupt_requested(); }) {}
};

GpuMeasurer::GpuMeasurer(const RunOptions& opt) : opt_(opt) {}
GpuMeasurer::~GpuMeasurer() = default;

bool GpuMeasurer::any_to_measure(const RunOptions& opt) {
  for (const auto& name : select_cases(opt.examples, opt.cases_arg))
    if (inspect_case(opt.examples, name).spec) return true;
  return false;
}

void GpuMeasurer::ensure_gpu() {
  if (!device_.is_null()) return;
  // Probe in a child: the parent never creates a CUDA context, so it never shows up as a GPU
  // process itself and a broken driver cannot take it down.
  ProcOptions po;
  po.timeout_s = 120;
  po.capture_stderr = true;
  ProcResult p = run_process({self_exe(), "__gpu-probe"}, po);
  json d = json::parse(p.out, nullptr, false);
  if (!p.ok() || d.is_discarded() || !d.is_object() || d.contains("error")) {
    std::string why = d.is_object() && d.contains("error") ? d["error"].get<std::string>()
                                                           : "GPU probe " + describe_exit(p);
    throw Error("cannot measure: " + why + "; compare, check and bench need a Hopper GPU");
  }
  if (d.value("major", 0) != 9) {
    throw Error("cannot measure: GPU " + d.value("name", std::string("?")) +
                " has compute capability " + d.value("cc", std::string("?")) +
                "; the kernels are built for sm_90a and need a Hopper GPU (9.x)");
  }
  std::string bus = d.value("pci_bus_id", "");
  if (!opt_.no_lock) lock_ = std::make_unique<Lock>(bench::gpu_lock_key(bus));
  if (!opt_.allow_busy_gpu) bench::require_idle_gpu(bus, {static_cast<long long>(getpid())});
  device_ = d;
  std::fprintf(stderr, "sched2cu: measuring on %s (cc %s, %d SMs)\n",
               d.value("name", std::string("?")).c_str(), d.value("cc", std::string("?")).c_str(),
               d.value("sm_count", 0));
}

Measurement GpuMeasurer::operator()(const CaseFiles& c, const fs::path& gen,
                                    const std::string& mode, const std::string& label,
                                    bool triton) {
  auto fail = [](const std::string& msg) {
    Measurement m;
    m.error = one_line(msg);
    return m;
  };
  if (interrupt_requested()) return fail("not run: interrupted by " + interrupt_text());
  auto build = [&](const fs::path& src, bool is_spec, const std::string& name) {
    std::fprintf(stderr, "  %s: building %s\n", label.c_str(), name.c_str());
    BuildResult r = build_module(opt_.build, src, is_spec, name);
    if (!r.error.empty())
      std::fprintf(stderr, "  %s: %s (log: %s)\n", label.c_str(), r.error.c_str(),
                   r.log_path.c_str());
    if (!r.ptxas.empty())
      std::fprintf(stderr, "  %s: %s: ptxas: %s (log: %s)\n", label.c_str(), name.c_str(),
                   r.ptxas.c_str(), r.log_path.c_str());
    return r;
  };
  BuildResult spec = build(c.dir / kSpecFile, true, "bench_spec.cpp");
  if (!spec.error.empty()) return fail(spec.error);
  BuildResult hw;
  if (c.handwritten) {
    hw = build(c.dir / "handwritten.cu", false, "handwritten.cu");
    if (!hw.error.empty()) return fail(hw.error);
  }
  BuildResult g;
  if (!gen.empty()) {
    g = build(gen, false, "generated.cu");
    if (!g.error.empty()) return fail(g.error);
  }
  ensure_gpu();
  std::vector<std::string> argv = {self_exe(),    "__measure",
                                   "--spec",      spec.so_path,
                                   "--mode",      mode,
                                   "--seed",      std::to_string(opt_.seed),
                                   "--warmup-ms", std::to_string(opt_.warmup_ms),
                                   "--rep-ms",    std::to_string(opt_.rep_ms),
                                   "--label",     label};
  if (!g.so_path.empty()) {
    argv.emplace_back("--gen");
    argv.push_back(g.so_path);
  }
  if (!hw.so_path.empty()) {
    argv.emplace_back("--hw");
    argv.push_back(hw.so_path);
  }
  TritonPrep tp;
  if (triton) {
    TritonConfig tc{opt_.python,          opt_.root,
                    opt_.build.cache_dir, device_.value("shared_optin_bytes", kSm90MaxSharedBytes),
                    opt_.timeout_s,       {}};
    tp = prepare_triton(tc, c, label, spec.so_path);
  }
  std::vector<std::string> with_triton = argv;
  if (!tp.plan_path.empty()) with_triton.insert(with_triton.end(), {"--triton", tp.plan_path});
  std::fprintf(stderr, "  %s: measuring (%s)\n", label.c_str(), mode.c_str());
  Measurement m = run_measure_child(with_triton, opt_.timeout_s);
  if (interrupt_requested())  // its child was stopped: no second run, no vendor script
    return fail("interrupted by " + interrupt_text() + " while measuring: " + m.error);
  if (!tp.plan_path.empty() && rerun_without_triton(m)) {
    // The failure came with Triton's kernel, or nothing says which kernel failed: once more
    // without it, so that Triton costs its own cell and no other.
    const std::string why = m.error;
    std::fprintf(stderr, "  %s: failed with Triton's kernel (%s); measuring again without it\n",
                 label.c_str(), why.c_str());
    m = run_measure_child(argv, opt_.timeout_s);
    note_triton(m, "", "the measurement with Triton's kernel failed: " + why);
  }
  note_triton(m, tp.unavailable, tp.error);
  if (m.error.empty() && m.raw.is_object() && (!g.ptxas.empty() || !hw.ptxas.empty())) {
    if (!g.ptxas.empty()) m.raw["gen_ptxas"] = g.ptxas;
    if (!hw.ptxas.empty()) m.raw["hw_ptxas"] = hw.ptxas;
    m = parse_measurement(m.raw);
  }
  if (!m.error.empty()) std::fprintf(stderr, "  %s: error: %s\n", label.c_str(), m.error.c_str());
  // Bench only: the child names a vendor script in no other mode. Its own child, still under
  // our GPU lock; the measurement child has exited, so the GPU is free for it.
  run_vendor_script(m, c.dir,
                    {opt_.python, opt_.timeout_s, opt_.seed, opt_.warmup_ms, opt_.rep_ms, label});
  return m;
}

}  // namespace sched2cu::harness
