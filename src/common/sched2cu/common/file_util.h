// Whole-file reads and atomic writes, and the repository-relative names that generated files
// record. Writes go to a temporary file in the same directory and are renamed into place, so an
// interrupted run never leaves a half-written fixture behind.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sched2cu {

// Reads the whole file; throws sched2cu::Error naming the path if it cannot, or if it holds
// more than 256 MiB (a device such as /dev/zero never ends).
std::string read_file(const std::filesystem::path& path);

// Reads the whole file, or nullopt when it cannot be opened (a missing file is an answer, not an
// error, for the caller); past 256 MiB an error, as read_file.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// Throws sched2cu::Error ("COMMAND: error: -o OUTPUT is the input INPUT itself ...") when
// `output` names the same file as `input` (directly, by another path or through a link): a
// command's -o never overwrites what it reads. "" and "-" (standard output) are never the input.
void refuse_output_over_input(const std::filesystem::path& input, const std::string& output,
                              const std::string& command);

// Writes `content` atomically: into a temporary file of its own beside the destination (created
// exclusively, so no existing file is consumed), renamed into place. A symlink is written through
// (its target replaced, the link kept); a destination that exists and is not a regular file
// (device, FIFO, directory) is refused. Throws sched2cu::Error naming the path if it cannot.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// The repository holding `path`: the nearest ancestor directory of its absolute, symlink-resolved
// form that holds `.git` (a checkout, worktree or submodule) or both `runtime/` and `examples/`
// (a copy of the sched2cu tree without .git); nullopt when there is none.
std::optional<std::filesystem::path> repo_root_of(const std::filesystem::path& path);

// The name under which a generated file records `path` (the schedule graph's kernel.source and
// IR locations): relative to repo_root_of(path) with '/' separators when there is one, else the
// absolute, symlink-resolved path. Either way independent of the working directory.
std::string repo_relative_name(const std::filesystem::path& path);

}  // namespace sched2cu
