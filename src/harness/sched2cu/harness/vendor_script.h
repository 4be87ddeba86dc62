// Vendor baselines measured by a Python script: a case whose BenchSpec::vendor_script() names one
// (case3_FA: cuDNN's fused attention through PyTorch) gets it run as its own child process, in
// bench mode only, after the case's measurement child and under the same GPU lock, and its
// figures merged into that measurement's vendor column and JSON. Whatever the script does
// (missing python3 or torch, an error, a crash, a hang, a bad result) changes the vendor cell
// only: the generated and hand-written figures are never lost. Protocol: docs/harness.md,
// "Vendor scripts".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sched2cu/harness/results.h"
#include "sched2cu/harness/subprocess.h"

namespace sched2cu::harness {

struct VendorScriptRun {
  std::string python = "python3";  // the interpreter (PATH lookup, or a path)
  double timeout_s = 600;
  unsigned long long seed = 0;  // the harness's --seed; the script mixes in the shape index
  double warmup_ms = 50, rep_ms = 200;
  std::string label;  // names the case in progress messages on stderr
};

// The script's command line for measurement `m` (without `--out FILE`): python, the script, then
// `--shapes 1x4x512,... --tol T --seed S --warmup-ms W --rep-ms R`, the timed shapes in `m`'s
// order (check-only shapes are left out, and their vendor figures are not expected).
std::vector<std::string> vendor_script_argv(const VendorScriptRun& run,
                                            const std::filesystem::path& script,
                                            const Measurement& m);

// Merges what the script child left (its result-file text and its exit) into `m` (a successful
// measurement): vendor timings, throughput from the spec's metric, vendor_ok per shape from the
// spec's per-output tolerances, and the script's versions under "vendor_info"; or only
// "vendor_unavailable" ("no torch", "no python3") or only "vendor_error". Never partial: a result
// missing a shape or an output is an error.
void merge_vendor_result(Measurement& m, const std::string& file_text, const ProcResult& proc,
                         const std::string& python);

// For a successful measurement of case directory `case_dir` that names a vendor script (its raw
// JSON's "vendor_script", which the measurement child writes in bench mode only): runs the
// script and merges its result, with progress on stderr. No-op otherwise.
void run_vendor_script(Measurement& m, const std::filesystem::path& case_dir,
                       const VendorScriptRun& run);

}  // namespace sched2cu::harness
