// `sched2cu new` (see scaffold.h).
#include "sched2cu/harness/scaffold.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <set>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/cases.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;

namespace {

// Files of the source case that a new case must not inherit (see scaffold.h).
const std::set<std::string> kNotCopied = {"pre_modulo.ttgir", "schedule_graph.json", "generated.cu",
                                          "handwritten.cu", "README.md"};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The DUMP block's "signature" entries ("a_ptr: *fp16"), in order; empty when not found.
std::vector<std::string> dump_signature(const std::string& kernel_py) {
  std::vector<std::string> out;
  const size_t sig = kernel_py.find("\"signature\"");
  if (sig == std::string::npos) return out;
  const size_t open = kernel_py.find('{', sig);
  const size_t close = open == std::string::npos ? open : kernel_py.find('}', open);
  if (close == std::string::npos) return out;
  const std::string body = kernel_py.substr(open + 1, close - open - 1);
  static const std::regex entry(R"re("([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*"([^"]*)")re");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), entry);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str() + ": " + (*it)[2].str());
  return out;
}

std::string readme_skeleton(const std::string& name, const std::string& from,
                            const std::string& kernel_py) {
  std::string args;
  for (const std::string& a : dump_signature(kernel_py)) args += (args.empty() ? "" : ", ") + a;
  if (args.empty()) args = "the non-constexpr parameters of kernel.py's kernel, in order";
  return "# " + name +
         " — TODO: what it computes\n"
         "\n"
         "Scaffolded by `sched2cu new " +
         name + " --from " + from + "`: kernel.py and bench_spec.cpp are " + from +
         "'s, renamed. Make them this case's, then follow the quickstart in "
         "docs/adding_a_case.md (regen, list, regen --check, compile check, check on a GPU).\n"
         "\n"
         "**Computes** TODO: inputs, outputs, dtypes, layouts, the shapes the spec runs.\n"
         "\n"
         "**Launch ABI** (docs/abi.md): `(" +
         args +
         ")` — kernel.py's non-constexpr parameters in order (its DUMP signature); a hand-written "
         "kernel, if the case gets one, takes the same.\n"
         "\n"
         "**Hopper structure** TODO: roles, rings, what `sched2cu schedule --report` says.\n"
         "\n"
         "**Quirks** TODO.\n";
}

// Moves `from` to `to` unless `to` exists (also when it appears meanwhile).
void publish(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  const int err = errno;
  if (err == EEXIST || err == ENOTEMPTY)
    throw Error("new: error: " + to.string() + " already exists");
  throw Error("new: error: cannot move the new case into " + to.string() + ": " +
              std::strerror(err));
}

// A private staging directory beside `examples` (not inside it, where a case would be found),
// removed on scope exit unless it was published.
struct Staging {
  fs::path path;
  explicit Staging(const fs::path& examples) {
    std::string t = (examples.parent_path() / ".sched2cu-new-XXXXXX").string();
    if (!mkdtemp(t.data()))
      throw Error("new: error: cannot create a directory beside " + examples.string() + ": " +
                  std::strerror(errno));
    path = t;
  }
  ~Staging() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
};

}  // namespace

std::string invalid_case_name(const std::string& name) {
  static const std::regex ok("[A-Za-z0-9][A-Za-z0-9_-]*");
  if (name.empty()) return "it is empty";
  if (name.size() > 64) return "it is longer than 64 characters";
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos)
    return "it holds a path separator (a new case is a directory directly under examples/)";
  if (!std::regex_match(name, ok))
    return "use letters, digits, '_' and '-' only, starting with a letter or digit";
  return "";
}

ScaffoldResult scaffold_case(const ScaffoldOptions& opt) {
  const std::string why = invalid_case_name(opt.name);
  if (!why.empty()) throw Error("new: error: '" + opt.name + "' is not a case name: " + why);
  std::error_code ec;
  if (!fs::is_directory(opt.examples, ec))
    throw Error("new: error: " + opt.examples.string() + " is not a directory");
  const fs::path dir = opt.examples / opt.name;
  if (fs::exists(fs::symlink_status(dir, ec)))
    throw Error("new: error: " + dir.string() + " already exists");

  // The source: a case directory under `examples` (as for --cases: no absolute path, no '..')
  // with kernel.py, its DUMP block and a spec.
  const fs::path from_rel(opt.from);
  bool escapes = opt.from.empty() || from_rel.is_absolute() || from_rel.has_root_name();
  for (const auto& part : from_rel) escapes |= part == "..";
  if (escapes)
    throw Error("new: error: --from '" + opt.from + "' is not a case directory relative to " +
                opt.examples.string() + " (no absolute paths, no '..')");
  CaseFiles src = inspect_case(opt.examples, opt.from);
  if (!src.exists)
    throw Error("new: error: --from: no case directory " + (opt.examples / opt.from).string());
  if (!src.kernel_py || !src.spec)
    throw Error("new: error: --from " + opt.from + " has no " +
                (src.kernel_py ? std::string(kSpecFile) : "kernel.py") +
                " (a case to copy holds kernel.py and bench_spec.cpp)");
  const std::string kernel_py = read_file(src.dir / "kernel.py");
  static const std::regex dump_block(R"(^DUMP\s*=)", std::regex::multiline);
  if (!std::regex_search(kernel_py, dump_block))
    throw Error("new: error: --from " + opt.from +
                ": kernel.py has no module-level DUMP block (tools/dump_ttgir.py needs one)");

  Staging staged(opt.examples);
  const fs::path out = staged.path / opt.name;
  fs::create_directory(out);
  ScaffoldResult r;
  r.dir = dir;
  for (const auto& e : fs::directory_iterator(src.dir)) {
    const std::string f = e.path().filename().string();
    if (!e.is_regular_file() || f.empty() || f[0] == '.' || kNotCopied.count(f)) continue;
    write_file_atomic(out / f, replace_all(read_file(e.path()), opt.from, opt.name));
    r.files.push_back(f);
  }
  write_file_atomic(out / "README.md", readme_skeleton(opt.name, opt.from,
                                                       replace_all(kernel_py, opt.from, opt.name)));
  r.files.emplace_back("README.md");
  std::sort(r.files.begin(), r.files.end());
  if (opt.before_publish) opt.before_publish(out);
  publish(out, dir);
  return r;
}

int run_new(const ScaffoldOptions& opt) {
  ScaffoldResult r = scaffold_case(opt);
  const std::string shown = repo_relative_name(r.dir);
  std::string files;
  for (const std::string& f : r.files) files += (files.empty() ? "" : ", ") + f;
  std::printf(
      "created %s from %s: %s\n"
      "\n"
      "next (docs/adding_a_case.md):\n"
      "  1. make kernel.py and its DUMP block, bench_spec.cpp and README.md this case's\n"
      "  2. sched2cu regen --cases %s          # pre_modulo.ttgir, schedule_graph.json, "
      "generated.cu\n"
      "  3. sched2cu list --cases %s\n"
      "  4. sched2cu regen --check --cases %s  # what CI runs\n"
      "  5. bash tools/compile_check.sh --cases %s\n"
      "  6. sched2cu check --cases %s          # on a Hopper GPU, then bench and compare\n",
      shown.c_str(), opt.from.c_str(), files.c_str(), opt.name.c_str(), opt.name.c_str(),
      opt.name.c_str(), opt.name.c_str(), opt.name.c_str());
  return 0;
}

}  // namespace sched2cu::harness
