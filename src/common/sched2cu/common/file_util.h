// Whole-file reads and atomic writes. Writes go to a temporary file in the same directory and are
// renamed into place, so an interrupted run never leaves a half-written fixture behind.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sched2cu {

// Reads the whole file; throws sched2cu::Error naming the path if it cannot.
std::string read_file(const std::filesystem::path& path);

// Reads the whole file, or nullopt when it cannot be opened (a missing file is an answer, not an
// error, for the caller).
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// Writes `content` atomically; throws sched2cu::Error naming the path if it cannot.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

}  // namespace sched2cu
