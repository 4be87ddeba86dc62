// nvcc builds with a content-hash cache (see module_cache.h).
#include "sched2cu/harness/module_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/harness/subprocess.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;

namespace {

struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    // A separator so that ("ab","c") and ("a","bc") differ.
    h ^= 0xff;
    h *= 1099511628211ull;
  }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
    return b;
  }
};

const std::string& nvcc_version(const std::string& nvcc) {
  static std::map<std::string, std::string> memo;
  auto it = memo.find(nvcc);
  if (it != memo.end()) return it->second;
  ProcOptions o;
  o.timeout_s = 120;
  auto r = run_process({nvcc, "--version"}, o);
  return memo[nvcc] = r.ok() ? r.out : "nvcc-unavailable";
}

std::string first_error_line(const std::string& log) {
  std::istringstream ss(log);
  std::string line, first;
  while (std::getline(ss, line)) {
    if (first.empty() && line.find_first_not_of(" \t") != std::string::npos) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

// Files a source pulls in with `#include "x"` relative to its own directory (recursively), e.g.
// a spec sharing another case's spec. Includes found only on -I paths are covered by hashing
// those directories whole.
void local_includes(const fs::path& file, std::set<fs::path>& seen) {
  std::istringstream in(read_file(file));
  std::string line;
  while (std::getline(in, line)) {
    size_t h = line.find_first_not_of(" \t");
    if (h == std::string::npos || line[h] != '#') continue;
    size_t inc = line.find("include", h);
    size_t q1 = line.find('"', h);
    if (inc == std::string::npos || q1 == std::string::npos || q1 < inc) continue;
    size_t q2 = line.find('"', q1 + 1);
    if (q2 == std::string::npos) continue;
    fs::path dep = file.parent_path() / line.substr(q1 + 1, q2 - q1 - 1);
    std::error_code ec;
    if (!fs::is_regular_file(dep, ec)) continue;
    dep = fs::weakly_canonical(dep, ec);
    if (seen.insert(dep).second) local_includes(dep, seen);
  }
}

}  // namespace

std::string content_hash(const std::vector<std::string>& parts) {
  Fnv h;
  for (const auto& p : parts) h.add(p);
  return h.hex();
}

fs::path default_cache_dir(const fs::path& root) {
  const char* env = std::getenv("SCHED2CU_CACHE_DIR");
  if (env && *env) return env;
  return root / ".cache" / "sched2cu";
}

std::string default_nvcc() {
  const char* env = std::getenv("SCHED2CU_NVCC");
  if (env && *env) return env;
  ProcOptions o;
  o.timeout_s = 30;
  if (run_process({"nvcc", "--version"}, o).ok()) return "nvcc";
  return "/usr/local/cuda/bin/nvcc";
}

std::vector<std::string> nvcc_command(const BuildConfig& cfg, const fs::path& source,
                                      bool is_spec) {
  std::vector<std::string> cmd = {cfg.nvcc,
                                  "-O3",
                                  "-std=c++20",
                                  "-shared",
                                  "-Xcompiler",
                                  "-fPIC",
                                  "-gencode=arch=compute_90a,code=sm_90a",
                                  "-lineinfo",
                                  "-I",
                                  (cfg.root / "runtime").string()};
  if (is_spec) {
    cmd.emplace_back("-I");
    cmd.push_back((cfg.root / "src" / "harness").string());
  } else {
    // A kernel's spills and stack frames reach the log as warnings (ptxas_warnings), beside
    // C7515, which ptxas always prints.
    cmd.emplace_back("-Xptxas=-warn-spills,-warn-lmem-usage");
  }
  cmd.insert(cmd.end(), cfg.extra_flags.begin(), cfg.extra_flags.end());
  cmd.emplace_back("-x");
  cmd.emplace_back("cu");
  cmd.push_back(source.string());
  return cmd;
}

std::string build_hash(const BuildConfig& cfg, const fs::path& source, bool is_spec) {
  Fnv h;
  h.add(is_spec ? "spec" : "kernel");
  h.add(read_file(source));
  auto cmd = nvcc_command(cfg, source, is_spec);
  cmd.pop_back();  // the source path itself does not change what is built
  // Neither do where the checkout lives nor how nvcc is named (its version is hashed), so that a
  // clone elsewhere, or another machine with the same toolkit, reuses the cache. Only -lineinfo's
  // file names inside the module can then point at the other checkout.
  const std::string root = cfg.root.string();
  for (size_t i = 1; i < cmd.size(); ++i) {
    const std::string& a = cmd[i];
    h.add(!root.empty() && a.rfind(root, 0) == 0 ? "<root>" + a.substr(root.size()) : a);
  }
  h.add(nvcc_version(cfg.nvcc));
  std::vector<fs::path> headers;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(cfg.root / "runtime", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) headers.push_back(it->path());
  }
  if (is_spec) {
    for (auto it = fs::recursive_directory_iterator(cfg.root / "src" / "harness" / "sched2cu", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) headers.push_back(it->path());
    }
  }
  std::set<fs::path> locals;
  local_includes(source, locals);
  headers.insert(headers.end(), locals.begin(), locals.end());
  std::sort(headers.begin(), headers.end());
  headers.erase(std::unique(headers.begin(), headers.end()), headers.end());
  for (auto& p : headers) {
    h.add(p.lexically_relative(cfg.root).generic_string());
    h.add(read_file(p));
  }
  return h.hex();
}

std::string ptxas_warnings(const std::string& log) {
  // "... in function 'F', 116 bytes spill stores, 204 bytes spill loads" and "Local memory used
  // for function 'F', size of stack frame: 112 bytes".
  auto number_before = [](const std::string& line, const std::string& what) -> long long {
    const size_t at = line.find(what);
    if (at == std::string::npos) return 0;
    size_t b = at;
    while (b > 0 && line[b - 1] == ' ') --b;
    size_t a = b;
    while (a > 0 && std::isdigit(static_cast<unsigned char>(line[a - 1]))) --a;
    return a < b ? std::stoll(line.substr(a, b - a)) : 0;
  };
  long long stores = 0, loads = 0, frame = 0;
  bool serialized = false;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("ptxas") == std::string::npos) continue;
    serialized |= line.find("C7515") != std::string::npos;
    stores += number_before(line, "bytes spill stores");
    loads += number_before(line, "bytes spill loads");
    if (const size_t at = line.find("size of stack frame:"); at != std::string::npos) {
      const std::string rest = line.substr(at + 20);
      frame = std::max(frame, std::atoll(rest.c_str()));
    }
  }
  std::vector<std::string> parts;
  if (stores > 0) parts.push_back(std::to_string(stores) + " B spill stores");
  if (loads > 0) parts.push_back(std::to_string(loads) + " B spill loads");
  if (frame > 0) parts.push_back(std::to_string(frame) + " B stack frame");
  if (serialized) parts.emplace_back("wgmma serialized");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

BuildResult build_module(const BuildConfig& cfg, const fs::path& source, bool is_spec,
                         const std::string& display_name) {
  BuildResult r;
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) {
    r.error = display_name + ": no such file";
    return r;
  }
  fs::create_directories(cfg.cache_dir, ec);
  if (ec) {
    r.error = "cannot create cache dir " + cfg.cache_dir.string() + ": " + ec.message();
    return r;
  }
  std::string stem = source.stem().string();
  std::string base =
      (fs::absolute(cfg.cache_dir) / (stem + "-" + build_hash(cfg, source, is_spec))).string();
  r.so_path = base + ".so";
  r.log_path = base + ".log";
  if (fs::is_regular_file(r.so_path, ec)) {
    r.cached = true;
    // A log lost from the cache says nothing (the build stands).
    if (!is_spec) r.ptxas = ptxas_warnings(read_file_if_exists(r.log_path).value_or(""));
    return r;
  }
  std::string tmp = base + ".tmp" + std::to_string(getpid()) + ".so";
  auto cmd = nvcc_command(cfg, source, is_spec);
  cmd.emplace_back("-o");
  cmd.push_back(tmp);
  ProcOptions o;
  o.timeout_s = cfg.timeout_s;
  auto p = run_process(cmd, o);
  {
    std::ofstream log(r.log_path);
    for (auto& a : cmd) log << a << ' ';
    log << "\n" << p.out << p.err;
  }
  if (!p.ok()) {
    fs::remove(tmp, ec);
    std::string why = p.started && !p.timed_out && p.term_signal == 0
                          ? first_error_line(p.out + p.err)
                          : "nvcc " + describe_exit(p);
    r.error = one_line(display_name + " does not build: " + why);
    r.so_path.clear();
    return r;
  }
  if (!is_spec) r.ptxas = ptxas_warnings(p.out + p.err);
  fs::rename(tmp, r.so_path, ec);
  if (ec) {
    r.error = "cannot move " + tmp + " into the cache: " + ec.message();
    r.so_path.clear();
  }
  return r;
}

}  // namespace sched2cu::harness
