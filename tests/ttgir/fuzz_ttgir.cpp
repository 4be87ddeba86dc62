// libFuzzer target over the TTGIR parser: any input must either parse (and then survive the
// support check, printing, a JSON round trip that returns an equal module, and lifting pointer
// tiles to descriptors, which may refuse with sched2cu::Error) or throw sched2cu::Error.
// Crashes, hangs, sanitizer reports and other exception types are findings.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sched2cu/ttgir/json.h"
#include "sched2cu/ttgir/lift.h"
#include "sched2cu/ttgir/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sched2cu::ttgir;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Module m;
  try {
    m = parse_module(text, "fuzz.ttgir");
  } catch (const sched2cu::Error&) {
    return 0;
  }
  (void)first_unsupported(m);
  (void)print_module(m);
  for (const Function& f : m.functions)
    for (const Value& v : f.values) {
      (void)v.type.byte_size();
      (void)v.type.str();
      try {
        (void)m.encoding_kind(v.type);
      } catch (const sched2cu::Error&) {
      }
    }
  std::string j = to_json(m).dump();
  Module back = module_from_json(nlohmann::json::parse(j));
  if (!(back == m)) std::abort();  // the round trip must be lossless for every accepted input
  for (const Function& f : m.functions) {
    Module lifted = m;
    try {
      (void)lift_pointer_tiles(lifted, f.name);
    } catch (const sched2cu::Error&) {
    }
  }
  return 0;
}
