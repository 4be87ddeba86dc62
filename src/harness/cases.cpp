// Case discovery and --cases expansion (see cases.h).
#include "sched2cu/harness/cases.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/results.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> spec_dirs_under(const fs::path& root, const fs::path& examples) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(
           root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().filename() == kSpecFile) {
      out.push_back(it->path().parent_path().lexically_relative(examples).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

std::vector<std::string> discover_cases(const fs::path& examples) {
  std::vector<std::string> names = spec_dirs_under(examples, examples);
  std::vector<std::string> specs = names;
  std::error_code ec;
  if (fs::is_directory(examples, ec)) {
    for (auto& e : fs::directory_iterator(examples, ec)) {
      std::string n = e.path().filename().string();
      if (!e.is_directory(ec) || n.rfind("case", 0) != 0) continue;
      bool covered = std::any_of(specs.begin(), specs.end(), [&](const std::string& s) {
        return s == n || s.rfind(n + "/", 0) == 0;
      });
      if (!covered) names.push_back(n);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> select_cases(const fs::path& examples, const std::string& arg) {
  std::error_code dir_ec;
  if (!fs::is_directory(examples, dir_ec))
    throw Error("--examples: error: " + examples.string() +
                " is not a directory (the corpus of case directories)");
  if (trim(arg).empty() && arg.find(',') == std::string::npos) return discover_cases(examples);
  std::vector<std::string> out;
  std::stringstream ss(arg);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::string n = trim(item);
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    if (n.empty()) continue;
    // A case is a directory under the examples dir: an absolute path replaced the examples dir
    // (`--cases /` walked the whole file system) and `..` left it (regen rewrote fixtures
    // outside the corpus).
    const fs::path rel(n);
    bool escapes = rel.is_absolute() || rel.has_root_name() || rel.has_root_directory();
    for (const auto& part : rel) escapes |= part == "..";
    if (escapes)
      throw Error("--cases: error: '" + n +
                  "' is not a case directory relative to the examples dir " + examples.string() +
                  " (no absolute paths, no '..')");
    fs::path d = examples / n;
    std::error_code ec;
    if (!fs::exists(d / kSpecFile, ec) && fs::is_directory(d, ec)) {
      auto nested = spec_dirs_under(d, examples);
      if (!nested.empty()) {
        out.insert(out.end(), nested.begin(), nested.end());
        continue;
      }
    }
    out.push_back(n);
  }
  return out;
}

CaseFiles inspect_case(const fs::path& examples, const std::string& name) {
  CaseFiles c;
  c.name = name;
  c.dir = examples / name;
  std::error_code ec;
  c.exists = fs::is_directory(c.dir, ec);
  if (!c.exists) return c;
  auto has = [&](const char* f) { return fs::is_regular_file(c.dir / f, ec); };
  c.spec = has(kSpecFile);
  c.generated = has("generated.cu");
  c.handwritten = has("handwritten.cu");
  c.kernel_py = has("kernel.py");
  c.ttgir = has("pre_modulo.ttgir");
  c.graph = has("schedule_graph.json");
  c.readme = has("README.md");
  c.schedule_only = has(kScheduleOnlyFile);
  // A small text file's words on one line, single spaces, trimmed.
  auto text = [&](const char* f) { return one_line(read_file_if_exists(c.dir / f).value_or("")); };
  if (c.schedule_only) c.schedule_only_reason = text(kScheduleOnlyFile);
  if (has(kGridFile)) c.grid = text(kGridFile);
  return c;
}

}  // namespace sched2cu::harness
