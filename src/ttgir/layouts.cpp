// The layouts Triton builds, checked where a type uses one (layouts.h): the parameters of
// #ttg.blocked, #ttg.nvidia_mma, #ttg.slice, #ttg.dot_op, #ttg.nvmma_shared and
// #ttg.swizzled_shared present, of the right kind and rank, consistent with each other, with the
// module's warp count and with the tensor using them. The emitter and the scheduler index these
// parameters by dimension; a layout edited to another rank was read past its end. Must never
// resolve an alias without a bound (Module::resolve stops at cycles) or accept a layout it does
// not know as one it does.
#include "layouts.h"

#include <algorithm>
#include <variant>

namespace sched2cu::ttgir::detail {
namespace {

using K = Attribute::Kind;
constexpr int64_t kUnknown = -1;

// The integer array parameter `key`, or nullopt when absent or not an array of integers.
std::optional<std::vector<int64_t>> int_array(const Attribute& layout, const char* key) {
  const Attribute* a = layout.get(key);
  if (a == nullptr || (a->kind != K::Array && a->kind != K::DenseArray)) return std::nullopt;
  std::vector<int64_t> v;
  for (const Attribute& e : a->elems) {
    if (e.kind != K::Integer) return std::nullopt;
    v.push_back(e.ival);
  }
  return v;
}

std::optional<int64_t> int_param(const Attribute& layout, const char* key) {
  const Attribute* a = layout.get(key);
  if (a == nullptr || a->kind != K::Integer) return std::nullopt;
  return a->ival;
}

bool positive(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 1 && x <= (1 << 20); });
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;  // each factor <= 2^20 and ranks are small: no overflow
  return p;
}

bool permutation(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<int64_t>(i)) return false;
  return true;
}

struct Checker {
  const Module& m;
  int warps;

  // The rank of the tensors a distributed layout lays out (kUnknown for a layout this check does
  // not know, left to the emitter), or a problem; `depth` bounds the parent chain of slices and
  // dot operands.
  std::variant<int64_t, std::string> rank(const Attribute& enc, int depth) const {
    if (depth > 16) return std::string("layouts nested deeper than 16 parents");
    const Attribute* l = nullptr;
    try {
      l = &m.resolve(enc);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    if (l->kind != K::Dialect) return std::string("a layout must be a #ttg attribute");
    const std::string& k = l->text;
    if (k == "ttg.blocked") {
      const auto spt = int_array(*l, "sizePerThread"), tpw = int_array(*l, "threadsPerWarp"),
                 wpc = int_array(*l, "warpsPerCTA"), order = int_array(*l, "order");
      if (!spt || !tpw || !wpc || !order)
        return std::string(
            "#ttg.blocked needs integer arrays sizePerThread, threadsPerWarp, warpsPerCTA, order");
      const size_t r = spt->size();
      if (r == 0 || tpw->size() != r || wpc->size() != r || order->size() != r)
        return std::string("#ttg.blocked parameters of different ranks");
      if (!positive(*spt) || !positive(*tpw) || !positive(*wpc))
        return std::string("#ttg.blocked sizes must be positive");
      if (product(*tpw) != 32)
        return std::string("#ttg.blocked threadsPerWarp must multiply to 32");
      if (product(*wpc) != warps)
        return "#ttg.blocked warpsPerCTA must multiply to ttg.num-warps = " + std::to_string(warps);
      if (!permutation(*order)) return std::string("#ttg.blocked order must be a permutation");
      return static_cast<int64_t>(r);
    }
    if (k == "ttg.nvidia_mma") {
      const auto wpc = int_array(*l, "warpsPerCTA"), shape = int_array(*l, "instrShape");
      const auto major = int_param(*l, "versionMajor");
      if (!wpc || !shape || !major)
        return std::string(
            "#ttg.nvidia_mma needs versionMajor and integer arrays warpsPerCTA, instrShape");
      if (*major != 3) return std::string("#ttg.nvidia_mma other than versionMajor = 3 (Hopper)");
      if (wpc->size() != 2 || shape->size() != 3 || !positive(*wpc) || !positive(*shape))
        return std::string("#ttg.nvidia_mma needs warpsPerCTA of 2 and instrShape of 3 sizes");
      if (product(*wpc) != warps)
        return "#ttg.nvidia_mma warpsPerCTA must multiply to ttg.num-warps = " +
               std::to_string(warps);
      return int64_t{2};
    }
    if (k == "ttg.slice" || k == "ttg.dot_op") {
      const Attribute* parent = l->get("parent");
      if (parent == nullptr) return k + " needs a parent layout";
      auto pr = rank(*parent, depth + 1);
      if (std::holds_alternative<std::string>(pr) || std::get<int64_t>(pr) == kUnknown) return pr;
      const int64_t p = std::get<int64_t>(pr);
      if (k == "ttg.dot_op") {
        const auto idx = int_param(*l, "opIdx");
        if (!idx || (*idx != 0 && *idx != 1)) return std::string("#ttg.dot_op needs opIdx 0 or 1");
        return p;
      }
      const auto dim = int_param(*l, "dim");
      if (!dim || *dim < 0 || *dim >= p)
        return "#ttg.slice needs a dim below its parent's rank " + std::to_string(p);
      if (p < 2) return std::string("#ttg.slice of a rank-1 layout");
      return p - 1;
    }
    return kUnknown;
  }

  std::optional<std::string> shared(const Attribute& enc, size_t tensor_rank) const {
    const Attribute* l = nullptr;
    try {
      l = &m.resolve(enc);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    if (l->kind != K::Dialect) return std::string("a shared layout must be a #ttg attribute");
    if (l->text == "ttg.nvmma_shared") {
      const auto sw = int_param(*l, "swizzlingByteWidth"), bits = int_param(*l, "elementBitWidth");
      if (!sw || (*sw != 0 && *sw != 32 && *sw != 64 && *sw != 128))
        return std::string("#ttg.nvmma_shared swizzlingByteWidth must be 0, 32, 64 or 128");
      if (!bits || (*bits != 8 && *bits != 16 && *bits != 32 && *bits != 64))
        return std::string("#ttg.nvmma_shared elementBitWidth must be 8, 16, 32 or 64");
      return std::nullopt;
    }
    if (l->text == "ttg.swizzled_shared") {
      const auto order = int_array(*l, "order");
      // A multi-buffered memdesc has a leading buffer dimension the layout does not count.
      if (!order || order->empty() || order->size() > tensor_rank || !permutation(*order))
        return std::string("#ttg.swizzled_shared order must be a permutation of the dimensions");
      for (const char* p : {"vec", "perPhase", "maxPhase"}) {
        const auto v = int_param(*l, p);
        if (!v || *v < 1) return std::string("#ttg.swizzled_shared needs ") + p + " >= 1";
      }
      return std::nullopt;
    }
    return std::nullopt;  // other shared layouts: the emitter refuses what it cannot lay out
  }
};

}  // namespace

std::optional<std::string> layout_problem(const Module& m, const Type& t) {
  const Checker c{m, m.num_warps()};
  if (t.kind == Type::Kind::Tensor && !t.encoding.empty()) {
    auto r = c.rank(t.encoding[0], 0);
    if (std::holds_alternative<std::string>(r)) return std::get<std::string>(r);
    if (std::get<int64_t>(r) != kUnknown &&
        std::get<int64_t>(r) != static_cast<int64_t>(t.shape.size()))
      return "a layout of rank " + std::to_string(std::get<int64_t>(r)) + " on a tensor of rank " +
             std::to_string(t.shape.size());
  }
  if (t.kind == Type::Kind::MemDesc && !t.encoding.empty())
    return c.shared(t.encoding[0], t.shape.size());
  if (t.kind == Type::Kind::TensorDesc && !t.elem.empty() && !t.elem[0].encoding.empty())
    return c.shared(t.elem[0].encoding[0], t.elem[0].shape.size());
  return std::nullopt;
}

}  // namespace sched2cu::ttgir::detail
