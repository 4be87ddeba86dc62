// The few git queries the harness needs, each a `git` child process: the repository root, "is
// this a commit", and a file's bytes at a revision. Never modifies the repository.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sched2cu::harness {

// `git rev-parse --show-toplevel` run in `dir`; nullopt outside a git checkout.
std::optional<std::filesystem::path> git_toplevel(const std::filesystem::path& dir);

// True when `rev` names a commit (`git rev-parse --verify --quiet REV^{commit}`).
bool git_is_commit(const std::filesystem::path& repo, const std::string& rev);

// Raw bytes of `relpath` (POSIX, relative to the repo root) at `rev`; nullopt when absent there.
std::optional<std::string> git_show(const std::filesystem::path& repo, const std::string& rev,
                                    const std::string& relpath);

// "main" for origin/main or main, "master" for origin/master or master, else the rev itself.
std::string rev_label(const std::string& rev);

}  // namespace sched2cu::harness
