// libFuzzer target over the schedule-graph reader and the emitter: any input must either be
// refused with sched2cu::Error (unreadable JSON, a schema error, an invalid graph, a graph the
// real target or the emitter cannot take) or emit CUDA text, deterministically. A crash, a hang,
// a sanitizer report, any other exception type, or emitted text holding control characters is a
// finding. It never writes a file.
//
// The mutator is structure-aware: most inputs are committed graphs of 50-120 KB, where random
// byte flips almost only break the JSON syntax; so it parses the input, changes one node of the
// document (deletes a field or an array element, swaps a value for an edge-case one, copies a
// subtree over another) and prints it again, falling back to libFuzzer's byte mutation when the
// input is not JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched2cu/common/diag.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using J = nlohmann::ordered_json;

// Emits `text`'s graph, or nullopt when sched2cu refuses it.
std::optional<std::string> emit_text(const std::string& text) {
  try {
    const auto g = sched2cu::sgraph::from_json_text(text, "fuzz.json");
    return sched2cu::emit::emit_cuda(g, {});
  } catch (const sched2cu::Error&) {
    return std::nullopt;
  }
}

void collect(J& j, std::vector<J*>& out) {
  out.push_back(&j);
  if (j.is_structured())
    for (auto& v : j) collect(v, out);
}

// Replaces, deletes or copies one node of `doc`.
void mutate_json(J& doc, std::mt19937& rng) {
  std::vector<J*> nodes;
  collect(doc, nodes);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  J& n = *nodes[pick(nodes.size())];
  static const std::vector<J> edge = {0,
                                      -1,
                                      1,
                                      2,
                                      3,
                                      7,
                                      8,
                                      16,
                                      64,
                                      128,
                                      255,
                                      256,
                                      1024,
                                      4096,
                                      65536,
                                      2147483647,
                                      2147483648LL,
                                      -2147483648LL,
                                      1.5,
                                      -0.0,
                                      1e300,
                                      nullptr,
                                      true,
                                      false,
                                      "",
                                      "x",
                                      "\n",
                                      "f16",
                                      "TMA",
                                      "consumer",
                                      J::array(),
                                      J::object()};
  switch (pick(6)) {
    case 0:  // delete a field or an element
      if (n.is_object() && !n.empty()) {
        auto it = n.begin();
        std::advance(it, static_cast<long>(pick(n.size())));
        n.erase(it.key());
        return;
      }
      if (n.is_array() && !n.empty()) {
        n.erase(n.begin() + static_cast<long>(pick(n.size())));
        return;
      }
      [[fallthrough]];
    case 1:  // an edge-case value
      n = edge[pick(edge.size())];
      return;
    case 2:  // a nearby integer
      if (n.is_number_integer()) {
        n = n.get<long long>() + static_cast<long long>(pick(5)) - 2;
        return;
      }
      [[fallthrough]];
    case 3: {  // another node's value (same-document splice: ids, shapes and names stay plausible)
      J copy = *nodes[pick(nodes.size())];
      n = std::move(copy);
      return;
    }
    case 4:  // duplicate an element
      if (n.is_array() && !n.empty()) {
        J copy = n[pick(n.size())];
        n.push_back(std::move(copy));
        return;
      }
      [[fallthrough]];
    default:  // swap two elements
      if (n.is_array() && n.size() > 1) std::swap(n[pick(n.size())], n[pick(n.size())]);
      return;
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937 rng(seed);
  J doc = J::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (doc.is_discarded() || rng() % 16 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const int rounds = 1 + static_cast<int>(rng() % 3);
  for (int r = 0; r < rounds; ++r) mutate_json(doc, rng);
  const std::string out = doc.dump();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto cu = emit_text(text);
  if (!cu) return 0;
  // Graph strings reach the C++ only validated or escaped: no control character but newlines.
  for (unsigned char ch : *cu)
    if ((ch < 0x20 && ch != '\n') || ch == 0x7f) std::abort();
  // The output is a function of the graph: the graph written and read back emits the same text.
  const auto again = emit_text(
      sched2cu::sgraph::to_json_text(sched2cu::sgraph::from_json_text(text, "fuzz.json")));
  if (!again || *again != *cu) std::abort();
  return 0;
}
