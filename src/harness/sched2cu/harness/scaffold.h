// `sched2cu new NAME [--from CASE]`: scaffolds a case directory examples/NAME from an existing
// case (default case1_simple_gemm): its kernel.py (with the DUMP block tools/dump_ttgir.py reads),
// bench_spec.cpp and any other file of its own (a vendor script), with every mention of CASE's
// name renamed to NAME, and a README.md skeleton listing the launch arguments. Never copied: the
// regenerable fixtures (pre_modulo.ttgir, schedule_graph.json, generated.cu, which `sched2cu
// regen` makes), handwritten.cu (a hand-tuned kernel of another computation), the source README
// and any subdirectory. The directory is built beside examples/ and moved into place in one
// rename, so an error never leaves a partial case behind.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace sched2cu::harness {

inline constexpr const char* kDefaultScaffoldSource = "case1_simple_gemm";

struct ScaffoldOptions {
  std::filesystem::path examples;  // the corpus
  std::string name;                // the new case: [A-Za-z0-9][A-Za-z0-9_-]*, at most 64 long
  std::string from = kDefaultScaffoldSource;  // a case relative to `examples`
  // Tests only: runs once the files are written, before the directory is moved into place.
  std::function<void(const std::filesystem::path& staged)> before_publish;
};

struct ScaffoldResult {
  std::filesystem::path dir;       // examples/NAME
  std::vector<std::string> files;  // what it holds, sorted
};

// Why `name` is not a valid new case name, or "" when it is.
std::string invalid_case_name(const std::string& name);

// Creates the case; throws sched2cu::Error (nothing created) for an invalid or existing NAME, a
// source that is not a case with kernel.py (holding DUMP) and bench_spec.cpp, or any I/O error.
ScaffoldResult scaffold_case(const ScaffoldOptions& opt);

// The command: scaffold, then print what was made and the quickstart's next steps. Exit code.
int run_new(const ScaffoldOptions& opt);

}  // namespace sched2cu::harness
