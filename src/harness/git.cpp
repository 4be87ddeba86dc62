// git queries through child processes (see git.h).
#include "sched2cu/harness/git.h"

#include "sched2cu/harness/subprocess.h"

namespace sched2cu::harness {

std::optional<std::filesystem::path> git_toplevel(const std::filesystem::path& dir) {
  ProcOptions o;
  o.timeout_s = 60;
  auto r = run_process({"git", "-C", dir.string(), "rev-parse", "--show-toplevel"}, o);
  if (!r.ok()) return std::nullopt;
  std::string s = r.out;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.empty()) return std::nullopt;
  return std::filesystem::path(s);
}

bool git_is_commit(const std::filesystem::path& repo, const std::string& rev) {
  if (rev.empty() || rev[0] == '-') return false;  // never let a rev become a git option
  ProcOptions o;
  o.timeout_s = 60;
  auto r = run_process(
      {"git", "-C", repo.string(), "rev-parse", "--verify", "--quiet", rev + "^{commit}"}, o);
  return r.ok();
}

std::optional<std::string> git_show(const std::filesystem::path& repo, const std::string& rev,
                                    const std::string& relpath) {
  ProcOptions o;
  o.timeout_s = 60;
  auto r = run_process({"git", "-C", repo.string(), "show", rev + ":" + relpath}, o);
  if (!r.ok()) return std::nullopt;
  return r.out;
}

std::string rev_label(const std::string& rev) {
  if (rev == "origin/main" || rev == "main") return "main";
  if (rev == "origin/master" || rev == "master") return "master";
  return rev;
}

}  // namespace sched2cu::harness
