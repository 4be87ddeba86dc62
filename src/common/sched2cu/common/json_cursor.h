// A strict cursor into a parsed JSON document, shared by the TTGIR JSON reader and the schedule
// graph reader: every accessor demands exactly the JSON type asked for (a float is not an
// integer, a bool not 0 or 1, null not an empty list), integers must fit their C++ type, and
// every failure is a sched2cu::Error naming the JSON path of the field after the reader's own
// prefix. Header-only over the nlohmann document type (json or ordered_json); it never parses
// text and never builds a model.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sched2cu/common/diag.h"

namespace sched2cu {

template <class Json>
struct JsonCursor {
  const Json& j;
  std::string path;           // "/loops/0/ii"; empty at the root
  const std::string& prefix;  // what every message starts with, e.g. "g.json: error: schema: "
  int depth = 0;              // nesting below the root

  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(prefix + (path.empty() ? std::string("/") : path) + ": " + msg);
  }
  JsonCursor at(const char* key) const {
    if (!j.is_object()) fail("expected an object");
    auto it = j.find(key);
    if (it == j.end()) JsonCursor{j, path + "/" + key, prefix, depth}.fail("missing field");
    return JsonCursor{*it, path + "/" + key, prefix, depth + 1};
  }
  JsonCursor at(size_t i) const {
    return JsonCursor{j[i], path + "/" + std::to_string(i), prefix, depth + 1};
  }
  // Fields a writer leaves out when they hold their default.
  bool has(const char* key) const { return j.is_object() && j.contains(key); }
  size_t size() const {
    if (!j.is_array()) fail("expected an array");
    return j.size();
  }
  // A JSON integer that fits T: not a float, not a bool, not past T's range (past 2^63 nlohmann
  // holds it unsigned, and get<long long> would wrap 2^64 - 1 to -1).
  template <typename T>
  T integer() const {
    if (!j.is_number_integer()) fail("expected an integer");
    if (j.is_number_unsigned()) {
      if (j.template get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        fail("integer out of range");
    } else {
      const int64_t v = j.template get<int64_t>();
      if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          v > static_cast<int64_t>(std::numeric_limits<T>::max()))
        fail("integer out of range");
    }
    return j.template get<T>();
  }
  bool boolean() const {
    if (!j.is_boolean()) fail("expected true or false");
    return j.template get<bool>();
  }
  std::string string() const {
    if (!j.is_string()) fail("expected a string");
    return j.template get<std::string>();
  }
  template <typename T>
  std::vector<T> integers() const {
    std::vector<T> v;
    const size_t n = size();
    for (size_t k = 0; k < n; ++k) v.push_back(at(k).template integer<T>());
    return v;
  }
  // Recursive readers call this at each level, so that a hostile document is an error and not
  // a stack overflow.
  void bound_depth(int max) const {
    if (depth > max) fail("nested deeper than " + std::to_string(max) + " levels");
  }
};

}  // namespace sched2cu
