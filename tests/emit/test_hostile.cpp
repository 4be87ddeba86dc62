// The reader and the emitter on hostile schedule graphs (issue 12, "Found"): every field of a
// committed graph deleted, or given a value of another JSON type, must end in a sched2cu::Error
// or in emitted text, never a crash or another exception (for every corpus graph); every string of
// the graph made to carry a newline and a line of C++ must be refused or reach the output harmless.
// The fuzzer (tests/sgraph/fuzz_graph.cpp) explores further; this is the exhaustive pass over field
// kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;
using J = nlohmann::ordered_json;
const fs::path kGraph =
    fs::path(SCHED2CU_SOURCE_DIR) / "examples/case1_simple_gemm/schedule_graph.json";

// The first occurrence of every field pattern (array indices as *), e.g.
// "/ir/functions/*/ops/*/loc/src" -> "/ir/functions/0/ops/0/loc/src".
void first_of_each(const J& j, const std::string& path, const std::string& pattern,
                   std::map<std::string, std::string>& out) {
  if (!j.is_structured()) return;
  size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    std::string here = path, pat = pattern;
    here.append("/").append(j.is_object() ? it.key() : std::to_string(i));
    pat.append("/").append(j.is_object() ? it.key() : "*");
    out.emplace(pat, here);
    first_of_each(*it, here, pat, out);
  }
}

enum class Outcome { Refused, Emitted };

// Emits the document; a crash ends the test binary, another exception type fails the test.
Outcome emit_text(const std::string& text, std::string* out = nullptr) {
  try {
    const auto g = sched2cu::sgraph::from_json_text(text, "m.json");
    std::string cu = sched2cu::emit::emit_cuda(g, {});
    if (out) *out = std::move(cu);
    return Outcome::Emitted;
  } catch (const sched2cu::Error&) {
    return Outcome::Refused;
  }
}

// Every committed corpus graph, not case1's alone: case5's bias and staging, case3's two MMAs,
// case4's register exchange, column-split accumulator and in-loop reduce-add,
// case6's blocked tiles, case7's column sums, case8's phases and case9's row vectors of the
// accumulator layout have fields case1 lacks.
class EmitHostileCorpus : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Corpus, EmitHostileCorpus,
                         ::testing::Values("case1_simple_gemm", "case2_persistent_gemm", "case3_FA",
                                           "case4_FA_bwd", "case5_addmm_bias", "case6_layernorm",
                                           "case7_wgrad_bias", "case8_multiphase_gemm",
                                           "case9_scaled_mm/blockwise"));

TEST_P(EmitHostileCorpus, EveryFieldDeletedOrRetypedIsAnErrorOrEmits) {
  const J base = J::parse(sched2cu::read_file(fs::path(SCHED2CU_SOURCE_DIR) / "examples" /
                                              GetParam() / "schedule_graph.json"));
  ASSERT_EQ(emit_text(base.dump()), Outcome::Emitted);
  std::map<std::string, std::string> fields;
  first_of_each(base, "", "", fields);
  ASSERT_GT(fields.size(), 200u);
  const J others[] = {J(1.5), J(nullptr), J("x"), J(-1), J(2147483648LL)};
  int refused = 0, tried = 0;
  for (const auto& field : fields) {
    const std::string& path = field.second;
    const J::json_pointer ptr(path);
    auto run = [&](const J& doc, const std::string& how) {
      ++tried;
      try {
        refused += emit_text(doc.dump()) == Outcome::Refused;
      } catch (const std::exception& e) {
        ADD_FAILURE() << how << " " << path << ": " << e.what();
      }
    };
    J deleted = base;
    J& parent = deleted[ptr.parent_pointer()];
    if (parent.is_object())
      parent.erase(ptr.back());
    else
      parent.erase(static_cast<size_t>(std::stoul(ptr.back())));
    run(deleted, "deleted");
    for (const J& v : others) {
      if (base[ptr] == v) continue;
      J changed = base;
      changed[ptr] = v;
      run(changed, "set to " + v.dump());
    }
  }
  // Most edits are refused; some are harmless (a value name, a location) and emit.
  EXPECT_GT(refused, tried / 2);
}

// Every op of the graph short of its last operand, its segments and the dropped value's users
// mended so that the reader takes it (an arith.addi with one operand, a tt.load with no mask):
// an error at the op or emitted text, and always an error for the arith and math ops, whose
// operand counts MLIR fixes. Found by fuzz_graph: a scalar op with fewer operands than its
// lowering reads threw std::out_of_range, which terminated `emit`; an elementwise op one operand
// short printed a lambda that read an x1 it did not declare.
TEST_P(EmitHostileCorpus, EveryOpShortOfAnOperandIsAnErrorOrEmits) {
  const J base = J::parse(sched2cu::read_file(fs::path(SCHED2CU_SOURCE_DIR) / "examples" /
                                              GetParam() / "schedule_graph.json"));
  int tried = 0, fixed = 0;
  for (size_t f = 0; f < base["ir"]["functions"].size(); ++f) {
    const J& ops = base["ir"]["functions"][f]["ops"];
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i]["operands"].empty()) continue;
      J doc = base;
      J& fn = doc["ir"]["functions"][f];
      J& op = fn["ops"][i];
      const int dropped = op["operands"].back().get<int>();
      op["operands"].erase(op["operands"].size() - 1);
      J& seg = op["segments"];
      for (size_t k = seg.size(); k-- > 0;)
        if (seg[k].get<int>() > 0) {
          seg[k] = seg[k].get<int>() - 1;
          break;
        }
      bool still_used = false;
      for (const J& v : op["operands"]) still_used |= v.get<int>() == dropped;
      J& users = fn["values"][static_cast<size_t>(dropped)]["users"];
      if (!still_used)
        for (size_t k = 0; k < users.size(); ++k)
          if (users[k] == op["id"]) {
            users.erase(k);
            break;
          }
      const std::string name = ops[i]["name"].get<std::string>();
      const bool must_refuse = name.rfind("arith.", 0) == 0 || name.rfind("math.", 0) == 0;
      ++tried;
      fixed += must_refuse;
      try {
        const Outcome got = emit_text(doc.dump());
        if (must_refuse) {
          EXPECT_EQ(got, Outcome::Refused) << name << " (op " << i << ")";
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " (op " << i << ") short of an operand: " << e.what();
      }
    }
  }
  EXPECT_GT(tried, 10);
  EXPECT_GT(fixed, 0);
}

TEST(EmitHostile, NoGraphStringInjectsCxx) {
  const J base = J::parse(sched2cu::read_file(kGraph));
  std::map<std::string, std::string> fields;
  first_of_each(base, "", "", fields);
  int strings = 0;
  for (const auto& field : fields) {
    const std::string& path = field.second;
    const J::json_pointer ptr(path);
    if (!base[ptr].is_string()) continue;
    ++strings;
    for (const std::string tail : {"\n#error injected", "*/ #error injected /*", "\\"}) {
      J doc = base;
      doc[ptr] = base[ptr].get<std::string>() + tail;
      // Names the graph states twice change together, or the edit is refused as a mismatch
      // before it could reach the C++: the kernel's (and its IR function's), a parameter's (and
      // its IR value's).
      if (path == "/kernel/name") doc["ir"]["functions"][0]["name"] = doc[ptr];
      if (path == "/kernel/params/0/name")
        doc["ir"]["functions"][0]["values"][base["kernel"]["params"][0]["value"].get<size_t>()]
           ["name"] = doc[ptr];
      std::string cu;
      if (emit_text(doc.dump(), &cu) == Outcome::Refused) continue;
      // Emitted: the string was left out, reduced to an identifier or printed in a `//` comment
      // it cannot leave: every line holding the injected text is such a comment, and no line
      // ends in a backslash (which would continue a comment onto the next line).
      size_t start = 0;
      while (start < cu.size()) {
        size_t end = cu.find('\n', start);
        if (end == std::string::npos) end = cu.size();
        const std::string line = cu.substr(start, end - start);
        const size_t code = line.find_first_not_of(' ');
        if (line.find("#error injected") != std::string::npos) {
          EXPECT_EQ(line.compare(code, 2, "//"), 0) << path << ": " << line;
        }
        EXPECT_FALSE(!line.empty() && line.back() == '\\') << path << ": " << line;
        start = end + 1;
      }
    }
  }
  EXPECT_GT(strings, 50);
}

// The budgets a graph claims are held to the target table by emit_cuda itself (the check was in
// the CLI only, so a library caller, such as the fuzzer, planned into 427 KB of shared memory).
TEST(EmitHostile, TargetClaimsBeyondTheTableAreRefused) {
  auto g = sched2cu::sgraph::read_schedule_graph(kGraph);
  g.target.smem_bytes = 427000;
  try {
    (void)sched2cu::emit::emit_cuda(g, {});
    ADD_FAILURE() << "emitted";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("claims 427000 B of shared memory per block; the target "
                                         "table has 232448"),
              std::string::npos)
        << e.what();
  }
}

// Found by mutation: every cycle of case1's loop shifted by 2^30 is a valid schedule of a million
// stages, and the expander, whose prologue and drain grow with stages x nodes, never finished.
TEST(EmitHostile, SchedulesOfTooManyStagesAreRefused) {
  auto g = sched2cu::sgraph::read_schedule_graph(kGraph);
  auto& L = g.loops.at(0);
  auto shifted = [&](int shift) {
    auto h = g;
    auto& hl = h.loops.at(0);
    for (auto& n : hl.nodes) {
      n.cycle += shift;
      n.stage = n.cycle / hl.ii;
      hl.stages = std::max(hl.stages, n.stage + 1);
    }
    return h;
  };
  EXPECT_EQ(emit_text(sched2cu::sgraph::to_json_text(shifted(L.ii * 8))), Outcome::Emitted);
  try {
    (void)sched2cu::emit::emit_cuda(shifted(1 << 30), {});
    ADD_FAILURE() << "emitted";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stages; the emitter expands at most 64"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
