// Whole-file reads, atomic writes and repository-relative names (see file_util.h).
#include "sched2cu/common/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sched2cu/common/diag.h"

namespace sched2cu {
namespace {

// Every file sched2cu reads (TTGIR, schedule graphs, target tables, specs, results) is text of
// at most a few MB. The bound turns an endless or huge input (/dev/zero, a mistaken path) into
// an error instead of std::bad_alloc after filling memory.
constexpr size_t kMaxReadBytes = size_t{256} << 20;

std::string read_bounded(std::ifstream& in, const std::filesystem::path& path) {
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > kMaxReadBytes)
      throw Error(path.string() + ": error: larger than " + std::to_string(kMaxReadBytes >> 20) +
                  " MiB: not an input sched2cu reads (a device such as /dev/zero?)");
  }
  if (in.bad()) throw Error(path.string() + ": error: read failed");
  return out;
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  // A directory opens as an empty stream on Linux: say what it is instead of parsing nothing.
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": error: is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": error: cannot open: " + std::strerror(errno));
  return read_bounded(in, path);
}

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return read_bounded(in, path);
}

void refuse_output_over_input(const std::filesystem::path& input, const std::string& output,
                              const std::string& command) {
  if (output.empty() || output == "-") return;
  std::error_code ec;
  if (std::filesystem::equivalent(input, output, ec))
    throw Error(command + ": error: -o " + output + " is the input " + input.string() +
                " itself; refusing to overwrite it");
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A symlink is written through: its target is replaced (or created, for a dangling link), the
  // link stays a link. Followed link by link: weakly_canonical leaves a dangling link's last
  // component unresolved, and the rename then replaced the link itself with a regular file.
  fs::path dest = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(dest, ec)); ++hops) {
    if (hops == 40) throw Error(path.string() + ": error: too many levels of symbolic links");
    const fs::path target = fs::read_symlink(dest, ec);
    if (ec) throw Error(path.string() + ": error: cannot resolve the symlink: " + ec.message());
    dest = target.is_absolute() ? target : dest.parent_path() / target;
  }
  // Only a regular file (or nothing) is replaced: renaming over a device, FIFO, socket or
  // directory would destroy it (`-o /dev/full` replaced the device node).
  const fs::file_status st = fs::status(dest, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw Error(path.string() + ": error: not a regular file (a device, FIFO, socket or " +
                "directory): refusing to replace it");
  // A temporary of our own beside it (O_EXCL: an existing file of that name is never touched).
  fs::path tmp;
  int fd = -1;
  for (int k = 0; k < 1000 && fd < 0; ++k) {
    tmp = dest;
    tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(k);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      throw Error(path.string() + ": error: cannot write: " + std::strerror(errno));
  }
  if (fd < 0) throw Error(path.string() + ": error: cannot create a temporary file beside it");
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      fs::remove(tmp, ec);
      throw Error(path.string() + ": error: write failed: " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    throw Error(path.string() + ": error: write failed: " + std::strerror(err));
  }
  // The new file keeps the permissions of the one it replaces.
  if (fs::exists(st)) fs::permissions(tmp, st.permissions(), ec);
  fs::rename(tmp, dest, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw Error(path.string() + ": error: cannot replace: " + why);
  }
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
