// Internal to the TTGIR frontend: the names the JSON form (schema "sched2cu.ttgir/1") gives to
// type and attribute kinds, shared by the writer (json.cpp) and the reader (json_read.cpp). The
// order is that of Type::Kind and Attribute::Kind; never reorder or rename an entry.
#pragma once

#include <array>

namespace sched2cu::ttgir::detail {

inline constexpr const char* kSchema = "sched2cu.ttgir/1";

inline constexpr std::array<const char*, 10> kTypeKinds = {
    "integer", "float",      "index",   "none",        "ptr",
    "tensor",  "tensordesc", "memdesc", "async_token", "other"};
inline constexpr std::array<const char*, 14> kAttrKinds = {
    "unit",  "bool",        "int",  "float", "string", "symbol",  "type",
    "array", "dense_array", "dict", "dense", "alias",  "dialect", "keyword"};

}  // namespace sched2cu::ttgir::detail
