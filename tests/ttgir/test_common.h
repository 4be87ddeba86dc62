// Shared helpers of the TTGIR tests: where the committed fixtures live, and op lookups. Must never
// depend on the current directory (ctest runs from the build tree).
#pragma once

#include <map>
#include <string>

#include "sched2cu/ttgir/parser.h"

namespace sched2cu::ttgir::test {

inline std::string example(const std::string& c) {
  return std::string(SCHED2CU_SOURCE_DIR) + "/examples/" + c + "/pre_modulo.ttgir";
}

inline std::map<std::string, int> op_counts(const Function& f) {
  std::map<std::string, int> n;
  for (const Op& o : f.ops) ++n[o.name];
  return n;
}

// The only op of that name (fails the calling test through the returned nullptr otherwise).
inline const Op* only(const Function& f, const std::string& name) {
  const Op* hit = nullptr;
  for (const Op& o : f.ops)
    if (o.name == name) {
      if (hit) return nullptr;
      hit = &o;
    }
  return hit;
}

}  // namespace sched2cu::ttgir::test
