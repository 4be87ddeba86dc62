// Formatting of source locations for error messages.
#include "sched2cu/common/diag.h"

namespace sched2cu {

std::string SourceLoc::str() const {
  if (file.empty() && line == 0) return "<unknown>";
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

}  // namespace sched2cu
