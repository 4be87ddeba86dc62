// The Triton column's parent side: the case's kernel.py compiled by Triton as its DUMP block
// declares (tools/triton_compile.py in a child process, with a timeout), cached by a content hash
// of kernel.py, the two tools that read it and Triton's version; the launch plan handed to the
// measurement child (the compile's metadata plus the schedule graph's launch grid, so that
// Triton runs the generated kernel's programs); and how the outcome lands in a measurement.
// Whatever Triton does (absent, refusing, failing, faulting on the GPU) changes the Triton cell
// only: the other figures of the case are never lost. Protocol: docs/harness.md, "The Triton
// column".
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::harness {

// sm_90's cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KB (the default when no device is known).
inline constexpr long long kSm90MaxSharedBytes = 232448;

struct TritonConfig {
  std::string python = "python3";  // the interpreter (PATH lookup, or a path)
  std::filesystem::path root;      // the repository: tools/triton_compile.py lives here
  std::filesystem::path cache_dir;
  long long max_shared = kSm90MaxSharedBytes;  // the device's opt-in limit
  double timeout_s = 600;
  // The sched2cu binary whose `__measure --shape-args` lists the spec's arguments (empty: this
  // process's own executable, which is sched2cu wherever the harness runs).
  std::string measure_exe;
};

// The implicit constructor is noexcept (nlohmann::json's null one is); clang-tidy 14 sees a
// throw in a branch null never takes, as for Measurement (results.h).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct TritonBuild {
  std::string unavailable;  // "no triton": the interpreter or Triton 3.6 is missing
  std::string error;        // one line: the compile failed or nothing fits in shared memory
  // On success: triton_compile.py's result ("kernel", "num_stages", "shared", "params", ...)
  // with "cubin" the absolute path of the cached cubin.
  nlohmann::json result;
  bool cached = false;
  std::string log_path;  // the compile's stderr, kept when it failed
};

// Compiles `kernel_py` specialized as `hints` says (one entry per DUMP signature parameter: "D",
// "1" or "", see jit_hints in triton_launch.h; empty: nothing assumed), or finds it in the cache
// (keyed on the hints too). Never throws for what the compile does; a missing tool or an
// unwritable cache is an `error` too.
TritonBuild build_triton(const TritonConfig& cfg, const std::filesystem::path& kernel_py,
                         const std::vector<std::string>& hints = {});

// DUMP's signature types of `kernel_py`, in order (triton_compile.py --signature), or why not.
struct TritonSignature {
  std::vector<std::string> types;
  std::string unavailable, error;
};
TritonSignature read_triton_signature(const TritonConfig& cfg,
                                      const std::filesystem::path& kernel_py);

// Per shape, the JIT's specialization (jit_hints) of the arguments `listed` by
// `__measure --shape-args` ({"shapes": [{"label", "args": [bits...]}]}) read at `types`. Throws
// sched2cu::Error for a listing that is an error or whose argument counts differ from `types`.
std::vector<std::vector<std::string>> shape_hints(const nlohmann::json& listed,
                                                  const std::vector<std::string>& types);

// The measurement child's launch plan (triton_launch.h): `compiled` (a TritonBuild's result)
// with the graph's grid in text form and its ctas_per_sm. Throws sched2cu::Error when the grid
// names a parameter that is not an integer parameter of kernel.py's signature.
nlohmann::json triton_plan(const nlohmann::json& compiled, const sgraph::Launch& launch);

// What the parent prepares before a measurement child for the Triton column of case `c` (one
// that has kernel.py): the spec's arguments at every shape (a `__measure --shape-args` child of
// `spec_so`, no GPU), one compile per distinct JIT specialization of them, then the launch plans
// ({"variants": [plan...], "shape_variant": [...]}) in a temporary file for the child's
// `--triton` (removed with this object), or why there are none. Progress goes to stderr.
struct TritonPrep {
  std::string plan_path;  // empty: no Triton kernel in this measurement
  std::string unavailable, error;
  TritonPrep() = default;
  TritonPrep(TritonPrep&& o) noexcept;
  TritonPrep& operator=(TritonPrep&& o) noexcept;
  TritonPrep(const TritonPrep&) = delete;
  TritonPrep& operator=(const TritonPrep&) = delete;
  ~TritonPrep();
};
TritonPrep prepare_triton(const TritonConfig& cfg, const CaseFiles& c, const std::string& label,
                          const std::string& spec_so);

// Records in `m` (a successful measurement's raw JSON, then parsed again) why the Triton column
// has no figures: `unavailable` ("no triton") or `error`. No-op for an error measurement.
void note_triton(Measurement& m, const std::string& unavailable, const std::string& error);

// Whether a failed measurement that had Triton's kernel in it should be run again without it:
// the child said the failure came with Triton (a fault while Triton ran alone, or in timing with
// it: "triton_failed"), or it left no result at all (killed, hung, crashed), so nothing says
// which kernel failed.
bool rerun_without_triton(const Measurement& with_triton);

}  // namespace sched2cu::harness
