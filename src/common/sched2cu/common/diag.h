// Diagnostics shared by every stage: a source location and the one exception type that carries a
// user-facing error. Every stage reports bad input by throwing sched2cu::Error; the CLI prints
// what() on one line and exits non-zero. Never use it for internal invariants (assert those).
#pragma once

#include <stdexcept>
#include <string>

namespace sched2cu {

struct SourceLoc {
  std::string file;  // path as given to the tool (or as recorded in a TTGIR loc())
  int line = 0;      // 1-based; 0 means unknown
  int col = 0;       // 1-based; 0 means unknown

  bool known() const { return line > 0; }
  // "file:line:col", "file:line", "file" or "<unknown>".
  std::string str() const;
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // Formats as "file:line:col: error: message".
  Error(const SourceLoc& loc, const std::string& message)
      : std::runtime_error(loc.str() + ": error: " + message), loc_(loc) {}
  const SourceLoc& loc() const { return loc_; }

 private:
  SourceLoc loc_;
};

}  // namespace sched2cu
