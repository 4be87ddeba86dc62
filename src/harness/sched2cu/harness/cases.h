// Case discovery in examples/: every directory holding a bench_spec.cpp (found recursively),
// plus top-level case* directories without any spec (listed, never dropped), and the --cases
// expansion. Pure filesystem work; never touches git or the GPU.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sched2cu::harness {

inline constexpr const char* kSpecFile = "bench_spec.cpp";
// A case holding this file is schedule-only: regen schedules it but never emits it, and it commits
// no generated.cu. The file's text (one line) says why.
inline constexpr const char* kScheduleOnlyFile = "SCHEDULE_ONLY";
// A case holding this file passes its text (one line) to `sched2cu schedule --grid` when regen
// schedules it: the launch grid of a kernel whose grid the IR does not bound (one row per program
// with no row count among its parameters, as Triton's LayerNorm tutorial writes it).
inline constexpr const char* kGridFile = "GRID";

// Sorted (plain byte order, so case10_* sorts before case1_*) names relative to `examples`,
// POSIX style: spec directories and top-level case* directories with no spec at or below them.
std::vector<std::string> discover_cases(const std::filesystem::path& examples);

// `--cases` handling: comma-separated, items trimmed, empty items skipped, user order kept, no
// de-duplication. A directory without its own spec but with nested specs expands to those
// (sorted); anything else is kept verbatim (it becomes a "(no such case dir)" or
// "(no bench_spec)" row). An empty `arg` means discover_cases().
std::vector<std::string> select_cases(const std::filesystem::path& examples,
                                      const std::string& arg);

// What a case directory holds.
struct CaseFiles {
  std::string name;
  std::filesystem::path dir;
  bool exists = false;
  bool spec = false;         // bench_spec.cpp
  bool generated = false;    // generated.cu
  bool handwritten = false;  // handwritten.cu
  bool kernel_py = false;
  bool ttgir = false;  // pre_modulo.ttgir
  bool graph = false;  // schedule_graph.json
  bool readme = false;
  bool schedule_only = false;        // SCHEDULE_ONLY (kScheduleOnlyFile)
  std::string schedule_only_reason;  // its text on one line, trimmed ("" when empty)
  std::string grid;                  // GRID (kGridFile): its text on one line; "" without one
};
CaseFiles inspect_case(const std::filesystem::path& examples, const std::string& name);

}  // namespace sched2cu::harness
