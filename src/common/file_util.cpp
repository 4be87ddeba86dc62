// Whole-file reads, atomic writes and repository-relative names (see file_util.h).
#include "sched2cu/common/file_util.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sched2cu/common/diag.h"

namespace sched2cu {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": error: cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(path.string() + ": error: read failed");
  return ss.str();
}

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path.string() + ": error: cannot write: " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) throw Error(path.string() + ": error: write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error(path.string() + ": error: cannot replace: " + ec.message());
}

std::optional<std::filesystem::path> repo_root_of(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return std::nullopt;
  for (fs::path d = p.parent_path(); !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / ".git", ec) ||
        (fs::is_directory(d / "runtime", ec) && fs::is_directory(d / "examples", ec)))
      return d;
    if (d == d.root_path()) break;
  }
  return std::nullopt;
}

std::string repo_relative_name(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return path.generic_string();
  if (auto root = repo_root_of(p)) return p.lexically_relative(*root).generic_string();
  return p.generic_string();
}

}  // namespace sched2cu
