// The Triton column's parent side (see triton_build.h): the compile child, its cache, the
// launch plan and the outcome in a measurement.
#include "sched2cu/harness/triton_build.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/child.h"
#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/triton_launch.h"
#include "sched2cu/sgraph/grid_expr.h"
#include "sched2cu/sgraph/json_io.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What `python tools/triton_compile.py --version` says: the installed Triton's version, or why
// there is none. Asked once per interpreter and process (it reads package metadata only).
struct TritonProbe {
  std::string version, unavailable, error;
};

const TritonProbe& probe_triton(const std::string& python, const fs::path& tool, double timeout) {
  static std::map<std::string, TritonProbe> memo;
  auto it = memo.find(python);
  if (it != memo.end()) return it->second;
  TritonProbe r;
  ProcOptions o;
  o.timeout_s = timeout;
  ProcResult p = run_process({python, tool.string(), "--version"}, o);
  json j = json::parse(p.out, nullptr, /*allow_exceptions=*/false);
  if (!p.started && p.spawn_error.find(std::strerror(ENOENT)) != std::string::npos) {
    r.unavailable = "no triton";  // no such interpreter: no Python, so no Triton either
  } else if (j.is_object() && j.contains("triton") && j["triton"].is_string()) {
    r.version = j["triton"].get<std::string>();
  } else if (j.is_object() && j.contains("unavailable") && j["unavailable"].is_string()) {
    r.unavailable = j["unavailable"].get<std::string>();
  } else {
    r.error =
        one_line("cannot ask " + python + " for Triton's version: " + tool.filename().string() +
                 " --version " + describe_exit(p) + " (" + p.err + ")");
  }
  return memo[python] = r;
}

// A string field as is, anything else as JSON text (`j` holds `key`).
std::string field_text(const json& j, const char* key) {
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

}  // namespace

TritonBuild build_triton(const TritonConfig& cfg, const fs::path& kernel_py,
                         const std::vector<std::string>& hints) {
  TritonBuild b;
  const fs::path tool = cfg.root / "tools" / "triton_compile.py";
  const fs::path dump = cfg.root / "tools" / "dump_ttgir.py";
  std::error_code ec;
  if (!fs::is_regular_file(tool, ec) || !fs::is_regular_file(dump, ec)) {
    b.error = "tools/triton_compile.py or tools/dump_ttgir.py is missing from " + cfg.root.string();
    return b;
  }
  const TritonProbe& probe = probe_triton(cfg.python, tool, cfg.timeout_s);
  b.unavailable = probe.unavailable;
  b.error = probe.error;
  if (!b.unavailable.empty() || !b.error.empty()) return b;
  fs::create_directories(cfg.cache_dir, ec);
  if (ec) {
    b.error = "cannot create cache dir " + cfg.cache_dir.string() + ": " + ec.message();
    return b;
  }
  // What the cubin depends on: the kernel and its DUMP, the tools that read and compile it, the
  // Triton that compiles it (its version pins its ptxas too) and the shared-memory limit that
  // decides the stage count. Not where any of them lives.
  const std::string key =
      content_hash({"triton", read_file(kernel_py), read_file(tool), read_file(dump), probe.version,
                    std::to_string(cfg.max_shared), hints_text(hints)});
  const std::string base = (fs::absolute(cfg.cache_dir) / ("triton-" + key)).string();
  const std::string json_path = base + ".json", cubin = base + ".cubin";
  b.log_path = base + ".log";
  auto finish = [&](json r) {
    r["cubin"] = cubin;
    b.result = std::move(r);
    return b;
  };
  if (fs::is_regular_file(json_path, ec) && fs::is_regular_file(cubin, ec)) {
    json r = json::parse(read_file(json_path), nullptr, false);
    if (r.is_object() && r.contains("kernel")) {
      b.cached = true;
      return finish(std::move(r));
    }
  }
  const std::string tmp = base + ".tmp" + std::to_string(getpid());
  std::vector<std::string> argv = {cfg.python,
                                   tool.string(),
                                   kernel_py.string(),
                                   "--max-shared",
                                   std::to_string(cfg.max_shared),
                                   "--out",
                                   tmp + ".json",
                                   "--cubin",
                                   tmp + ".cubin",
                                   "--hints=" + hints_text(hints)};
  ProcOptions o;
  o.timeout_s = cfg.timeout_s;
  ProcResult p = run_process(argv, o);
  std::string text = read_file_if_exists(tmp + ".json").value_or("");
  fs::remove(tmp + ".json", ec);
  {
    std::ofstream log(b.log_path);
    for (const auto& a : argv) log << a << ' ';
    log << "\n" << p.out << p.err << text;
  }
  json r = json::parse(text, nullptr, false);
  auto fail = [&](const std::string& msg) {
    fs::remove(tmp + ".cubin", ec);
    b.error = one_line(msg);
    return b;
  };
  if (p.timed_out || !r.is_object())
    return fail("triton_compile.py " + describe_exit(p) + " without a result");
  if (r.contains("unavailable")) {
    fs::remove(tmp + ".cubin", ec);
    b.unavailable = field_text(r, "unavailable");
    return b;
  }
  if (r.contains("error")) return fail(field_text(r, "error"));
  if (!p.ok()) return fail("triton_compile.py " + describe_exit(p) + " after writing its result");
  fs::rename(tmp + ".cubin", cubin, ec);
  if (ec) return fail("cannot move Triton's cubin into the cache: " + ec.message());
  try {
    write_file_atomic(json_path, r.dump(1) + "\n");  // last: the cache entry is complete
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  fs::remove(b.log_path, ec);
  return finish(std::move(r));
}

json triton_plan(const json& compiled, const sgraph::Launch& launch) {
  json plan = compiled;
  if (launch.grid.size() != 3) throw Error("the schedule graph's launch grid is not 3 extents");
  std::vector<std::string> names;
  for (const auto& e : launch.grid) sgraph::collect_params(e, names);
  for (const std::string& n : names) {
    bool found = false;
    for (const json& prm : compiled.value("params", json::array())) {
      if (prm.value("name", "") != n) continue;
      const std::string t = prm.value("type", "");
      if (t.empty() || t[0] == '*' || t.rfind("fp", 0) == 0 || t == "bf16") {
        std::string msg = "the schedule graph's grid names " + n;
        msg += ", which kernel.py's DUMP declares " + t + ", not an integer";
        throw Error(msg);
      }
      found = true;
    }
    if (!found)
      throw Error("the schedule graph's grid names " + n + ", which kernel.py's DUMP signature " +
                  "does not declare");
  }
  plan["grid"] = json::array();
  for (const auto& e : launch.grid) plan["grid"].push_back(sgraph::to_text(e));
  plan["ctas_per_sm"] = launch.ctas_per_sm;
  return plan;
}

TritonPrep::TritonPrep(TritonPrep&& o) noexcept
    : plan_path(std::move(o.plan_path)),
      unavailable(std::move(o.unavailable)),
      error(std::move(o.error)) {
  o.plan_path.clear();
}

TritonPrep& TritonPrep::operator=(TritonPrep&& o) noexcept {
  if (this != &o) {
    if (!plan_path.empty()) std::remove(plan_path.c_str());
    plan_path = std::move(o.plan_path);
    unavailable = std::move(o.unavailable);
    error = std::move(o.error);
    o.plan_path.clear();
  }
  return *this;
}

TritonPrep::~TritonPrep() {
  if (!plan_path.empty()) std::remove(plan_path.c_str());
}

TritonSignature read_triton_signature(const TritonConfig& cfg, const fs::path& kernel_py) {
  TritonSignature sig;
  const fs::path tool = cfg.root / "tools" / "triton_compile.py";
  ProcOptions o;
  o.timeout_s = cfg.timeout_s;
  ProcResult p = run_process({cfg.python, tool.string(), kernel_py.string(), "--signature"}, o);
  const json r = json::parse(p.out, nullptr, false);
  if (r.is_object() && r.contains("unavailable")) {
    sig.unavailable = field_text(r, "unavailable");
  } else if (r.is_object() && r.contains("error")) {
    sig.error = one_line(field_text(r, "error"));
  } else if (!p.ok() || !r.is_object() || !r.contains("params") || !r["params"].is_array()) {
    sig.error = one_line("triton_compile.py --signature " + describe_exit(p) +
                         " without a signature (" + p.err + ")");
  } else {
    for (const json& prm : r["params"]) sig.types.push_back(prm.value("type", ""));
  }
  return sig;
}

std::vector<std::vector<std::string>> shape_hints(const json& listed,
                                                  const std::vector<std::string>& types) {
  if (listed.contains("error"))
    throw Error("listing the spec's arguments: " + listed["error"].dump());
  std::vector<std::vector<std::string>> out;
  for (const json& sh : listed.at("shapes")) {
    std::vector<sched2cu_arg> args;
    for (const json& v : sh.at("args")) {
      sched2cu_arg a{};
      a.i = v.get<long long>();
      args.push_back(a);
    }
    try {
      out.push_back(jit_hints(types, args.data(), static_cast<int>(args.size())));
    } catch (const Error& e) {
      throw Error("at " + sh.value("label", std::string("?")) + ": " + e.what());
    }
  }
  return out;
}

TritonPrep prepare_triton(const TritonConfig& cfg, const CaseFiles& c, const std::string& label,
                          const std::string& spec_so) {
  TritonPrep t;
  if (!c.kernel_py) return t;
  if (!c.graph) {
    t.error = "no schedule_graph.json: Triton's kernel is launched on the generated kernel's grid";
    return t;
  }
  auto skipped = [&](const std::string& why) {
    std::fprintf(stderr, "  %s: Triton column skipped: %s\n", label.c_str(), why.c_str());
    t.unavailable = why;
    return std::move(t);
  };
  auto failed = [&](const std::string& why, const std::string& log) {
    std::fprintf(stderr, "  %s: Triton: %s%s\n", label.c_str(), why.c_str(),
                 log.empty() ? "" : (" (log: " + log + ")").c_str());
    t.error = why;
    return std::move(t);
  };
  std::fprintf(stderr, "  %s: compiling kernel.py with Triton\n", label.c_str());
  // Probe first: without Triton there is no signature to ask for either.
  const TritonProbe& probe =
      probe_triton(cfg.python, cfg.root / "tools" / "triton_compile.py", cfg.timeout_s);
  if (!probe.unavailable.empty()) return skipped(probe.unavailable);
  if (!probe.error.empty()) return failed(probe.error, "");
  // What the JIT would specialize at each shape: the spec's arguments (listed by a child, no
  // GPU) read at DUMP's signature types.
  std::vector<std::vector<std::string>> hints;
  try {
    const TritonSignature sig = read_triton_signature(cfg, c.dir / "kernel.py");
    if (!sig.unavailable.empty()) return skipped(sig.unavailable);
    if (!sig.error.empty()) return failed(sig.error, "");
    ProcOptions o;
    o.timeout_s = cfg.timeout_s;
    const std::string out = make_result_file();
    ProcResult p = run_process({cfg.measure_exe.empty() ? self_exe() : cfg.measure_exe, "__measure",
                                "--spec", spec_so, "--shape-args", "--out", out},
                               o);
    const std::string text = read_file_if_exists(out).value_or("");
    std::remove(out.c_str());
    const json listed = json::parse(text, nullptr, false);
    if (!listed.is_object())
      return failed(
          "listing the spec's arguments: the child " + describe_exit(p) + " without a result", "");
    hints = shape_hints(listed, sig.types);
  } catch (const std::exception& e) {
    return failed(one_line(e.what()), "");
  }
  // One compile per distinct specialization, in shape order.
  std::vector<std::vector<std::string>> keys;
  json plans = {{"variants", json::array()}, {"shape_variant", json::array()}};
  try {
    const sgraph::ScheduleGraph g = sgraph::read_schedule_graph(c.dir / "schedule_graph.json");
    for (const auto& h : hints) {
      auto it = std::find(keys.begin(), keys.end(), h);
      if (it == keys.end()) {
        TritonBuild b = build_triton(cfg, c.dir / "kernel.py", h);
        if (!b.unavailable.empty()) return skipped(b.unavailable);
        if (!b.error.empty()) return failed(b.error, b.log_path);
        const int stages = b.result.value("num_stages", 0);
        const int asked = b.result.value("dump_num_stages", 0);
        const std::string retried =
            stages == asked ? "" : " (DUMP's " + std::to_string(asked) + " did not fit)";
        std::fprintf(stderr, "  %s: Triton: %s [%s]%s, num_stages %d%s, %lld B of shared memory\n",
                     label.c_str(), b.result.value("kernel", std::string("?")).c_str(),
                     hints_text(h).c_str(), b.cached ? " (cached)" : "", stages, retried.c_str(),
                     b.result.value("shared", 0LL));
        plans["variants"].push_back(triton_plan(b.result, g.launch));
        keys.push_back(h);
        it = keys.end() - 1;
      }
      plans["shape_variant"].push_back(it - keys.begin());
    }
    t.plan_path = make_result_file();
    write_file_atomic(t.plan_path, plans.dump(1) + "\n");
  } catch (const std::exception& e) {
    t.error = one_line(std::string("the Triton launch plan: ") + e.what());
  }
  return t;
}

void note_triton(Measurement& m, const std::string& unavailable, const std::string& error) {
  if (!m.error.empty() || !m.raw.is_object() || (unavailable.empty() && error.empty())) return;
  if (!unavailable.empty())
    m.raw["triton_unavailable"] = one_line(unavailable);
  else
    m.raw["triton_error"] = one_line(error);
  m = parse_measurement(m.raw);
}

bool rerun_without_triton(const Measurement& m) {
  if (m.error.empty()) return false;
  if (!m.raw.is_object()) return true;  // no result: killed, hung, crashed, truncated
  return m.raw.value("triton_failed", false);
}

}  // namespace sched2cu::harness
