// Vendor scripts (see vendor_script.h): command line, child process, and the merge of their
// result into a measurement's raw JSON, which is then parsed again so that the cells and the
// --json output come from the same data.
#include "sched2cu/harness/vendor_script.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/child.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Round-trips a double (std::to_string would print a 1e-7 tolerance as 0.000000).
std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string interpreter_name(const std::string& python) {
  std::string n = fs::path(python).filename().string();
  return n.empty() ? python : n;
}

const json* find_by(const json& list, const char* key, const json& value) {
  if (!list.is_array()) return nullptr;
  for (const json& e : list) {
    if (e.is_object() && e.contains(key) && e[key] == value) return &e;
  }
  return nullptr;
}

// `raw` with the script's figures merged in, or sched2cu::Error / json::exception when the
// script's result does not cover every shape and output of the measurement.
json merged(const json& raw, const json& res) {
  json out = raw;
  if (!res.contains("shapes") || !res["shapes"].is_array())
    throw Error("the vendor script's result has no \"shapes\" list");
  for (json& s : out.at("shapes")) {
    if (!s.value("timed", true)) continue;  // a check-only shape: not given to the script
    const std::string label = s.value("label", "");
    const json* v = find_by(res["shapes"], "shape", s.at("shape"));
    if (!v) throw Error("the vendor script reported no result for shape " + label);
    const json& t = v->at("vendor");
    const double med = t.at("median_ms").get<double>();
    if (!(med > 0)) throw Error("the vendor script reported no timing for shape " + label);
    const double work = s.at("work").get<double>(), scale = s.at("scale").get<double>();
    s["vendor"] = {{"median_ms", med},
                   {"min_ms", t.value("min_ms", med)},
                   {"max_ms", t.value("max_ms", med)},
                   {"count", t.value("count", 0)},
                   {"warmup", t.value("warmup", 0)},
                   {"estimate_ms", t.value("estimate_ms", 0.0)},
                   {"throughput", work / (med * 1e-3) / scale}};
    // vendor_ok is decided here, against the spec's per-output tolerances, so that the
    // spec stays the one source of truth; the script's own verdict is informational.
    bool ok = true;
    const json vouts = v->value("outputs", json::array());
    for (json& o : s.at("outputs")) {
      const std::string name = o.at("name").get<std::string>();
      const json* vo = find_by(vouts, "name", name);
      if (!vo) {
        std::string msg = "the vendor script did not check output " + name;
        msg += " at ";
        msg += label;
        throw Error(msg);
      }
      json rel = vo->value("rel_vendor_vs_ref", json());  // null: NaN met
      if (!rel.is_null() && !rel.is_number())
        throw Error("the vendor script's rel_vendor_vs_ref of " + name + " is not a number");
      const long long nan = vo->value("vendor_nan", 0LL);
      o["rel_vendor_vs_ref"] = rel;
      o["vendor_nan"] = nan;
      ok &= nan == 0 && rel.is_number() && rel.get<double>() <= o.at("tol").get<double>();
    }
    s["vendor_ok"] = ok;
  }
  json info = res;
  info.erase("shapes");
  out["vendor_info"] = info;
  return out;
}

}  // namespace

std::vector<std::string> vendor_script_argv(const VendorScriptRun& run, const fs::path& script,
                                            const Measurement& m) {
  std::string shapes;
  for (const ShapeResult& s : m.shapes) {
    if (!s.timed) continue;  // check-only shapes are the kernels' edge cases, not the vendor's
    if (!shapes.empty()) shapes += ',';
    for (size_t i = 0; i < s.shape.size(); ++i) {
      if (i) shapes += 'x';
      shapes += std::to_string(s.shape[i]);
    }
  }
  return {run.python,    script.string(),
          "--shapes",    shapes,
          "--tol",       num(m.raw.value("tol", 0.0)),
          "--seed",      std::to_string(run.seed),
          "--warmup-ms", num(run.warmup_ms),
          "--rep-ms",    num(run.rep_ms)};
}

void merge_vendor_result(Measurement& m, const std::string& text, const ProcResult& proc,
                         const std::string& python) {
  if (!m.error.empty() || !m.raw.is_object()) return;
  auto finish = [&](const char* key, const std::string& msg) {
    m.raw[key] = one_line(msg.empty() ? std::string("unknown error") : msg);
    m = parse_measurement(m.raw);
  };
  if (!proc.started) {
    // execvp's ENOENT: the interpreter is not installed (or not on PATH).
    if (proc.spawn_error.find(std::strerror(ENOENT)) != std::string::npos)
      return finish("vendor_unavailable", "no " + interpreter_name(python));
    return finish("vendor_error", "cannot start the vendor script: " + proc.spawn_error);
  }
  if (proc.timed_out) return finish("vendor_error", "vendor script " + describe_exit(proc));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return finish("vendor_error",
                  "vendor script " + describe_exit(proc) + " without writing a result");
  json res = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (res.is_discarded() || !res.is_object())
    return finish("vendor_error",
                  "vendor script " + describe_exit(proc) + " and left a truncated result");
  // What the script says about itself wins over its exit status (it exits non-zero for these).
  if (res.contains("unavailable"))
    return finish("vendor_unavailable", res["unavailable"].is_string()
                                            ? res["unavailable"].get<std::string>()
                                            : res["unavailable"].dump());
  if (res.contains("error"))
    return finish("vendor_error",
                  res["error"].is_string() ? res["error"].get<std::string>() : res["error"].dump());
  if (!proc.ok())
    return finish("vendor_error",
                  "vendor script " + describe_exit(proc) + " after writing its result");
  json out;
  try {
    out = merged(m.raw, res);
  } catch (const json::exception& e) {
    return finish("vendor_error", std::string("malformed vendor result: ") + e.what());
  } catch (const std::exception& e) {
    return finish("vendor_error", e.what());
  }
  m = parse_measurement(out);
}

void run_vendor_script(Measurement& m, const fs::path& case_dir, const VendorScriptRun& run) {
  if (!m.error.empty() || !m.raw.is_object()) return;
  const std::string rel = m.raw.value("vendor_script", "");
  if (rel.empty()) return;
  bool any_timed = false;
  for (const ShapeResult& s : m.shapes) any_timed |= s.timed;
  if (!any_timed) return;  // only check-only shapes: nothing for the vendor to time
  auto fail = [&](const std::string& msg) {
    std::fprintf(stderr, "  %s: vendor error: %s\n", run.label.c_str(), msg.c_str());
    m.raw["vendor_error"] = one_line(msg);
    m = parse_measurement(m.raw);
  };
  if (fs::path(rel).is_absolute())
    return fail("vendor script " + rel + " must be relative to the case directory");
  const fs::path script = case_dir / rel;
  if (!fs::is_regular_file(script)) return fail("vendor script " + rel + " not found");
  std::vector<std::string> argv = vendor_script_argv(run, script, m);
  const std::string out = make_result_file();
  argv.emplace_back("--out");
  argv.push_back(out);
  ProcOptions o;
  o.timeout_s = run.timeout_s;
  o.capture_stdout = false;
  o.stdout_to_stderr = true;  // keep our stdout for the table
  o.capture_stderr = false;
  std::fprintf(stderr, "  %s: measuring the vendor baseline (%s)\n", run.label.c_str(),
               rel.c_str());
  ProcResult p = run_process(argv, o);
  std::string text = read_file_if_exists(out).value_or("");
  std::remove(out.c_str());
  merge_vendor_result(m, text, p, run.python);
  if (!m.vendor_unavailable.empty())
    std::fprintf(stderr, "  %s: vendor baseline skipped: %s\n", run.label.c_str(),
                 m.vendor_unavailable.c_str());
  if (!m.vendor_error.empty())
    std::fprintf(stderr, "  %s: vendor error: %s\n", run.label.c_str(), m.vendor_error.c_str());
}

}  // namespace sched2cu::harness
