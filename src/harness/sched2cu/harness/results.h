// What one measurement child reported, and how it becomes table cells: per-shape gen/hw ratios
// ("0.97x"), raw throughput where there is no hand-written kernel ("612 TFLOPS"), one trailing
// FAIL, one-line "(error: ...)", and the per-shape improvement of generated throughput
// ("+20.5%"). Pure functions of the parsed JSON; never measures anything.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sched2cu/harness/subprocess.h"

namespace sched2cu::harness {

struct KernelTiming {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int count = 0;
  double throughput = 0;  // work / (median s) / scale
};

struct ShapeResult {
  std::vector<long long> shape;
  std::string label;  // "1024x1024x1024"
  std::string unit;
  bool ok = false;    // generated vs reference and vs hand-written, every output, no NaN
  bool hw_ok = true;  // hand-written vs reference (informational)
  bool vendor_ok = true;
  int triton_ctas_per_sm = 0;  // programs per SM Triton ran with on a free grid (0: the plan's)
  bool triton_ok = true;       // Triton's compile of kernel.py vs reference, every output, no NaN
  bool timed = true;           // false: a check-only shape (BenchSpec::check_only), never timed
  std::optional<KernelTiming> gen, hw, vendor;
  std::optional<KernelTiming> triton;  // the Triton column (triton_build.h)
  std::optional<KernelTiming> copy;    // the roofline copy (BenchSpec::roofline_copy_bytes)
};

// False positive below: the implicit default constructor is noexcept because nlohmann::json's
// (nullptr) one is, and clang-tidy 14 sees a throw in a switch branch that null never takes.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Measurement {
  std::string error;  // non-empty: the whole cell is "(error: ...)"
  bool has_generated = false;
  bool has_hw = false;
  std::string vendor_name;
  // A vendor script's outcome when it gave no figures (vendor_script.h); either makes the vendor
  // cell alone "(no torch)" or "(error: ...)".
  std::string vendor_unavailable;  // "no torch", "no python3"
  std::string vendor_error;
  bool has_copy = false;  // some shape was timed next to the roofline copy
  // The Triton column (triton_build.h): whether the child ran Triton's kernel, the pipeline
  // stages it was compiled with and the ones kernel.py's DUMP asked for (fewer when Triton's
  // kernel did not fit in shared memory), and, when it gave no figures, why: either makes the
  // Triton cell alone "(no triton)" or "(error: ...)".
  bool has_triton = false;
  int triton_stages = 0, triton_dump_stages = 0;
  std::string triton_unavailable;  // "no triton"
  std::string triton_error;
  // What ptxas warned of in generated.cu and handwritten.cu (BuildResult::ptxas): every cell
  // of that kernel says so beside its figures.
  std::string gen_ptxas, hw_ptxas;
  std::vector<ShapeResult> shapes;
  nlohmann::json raw;  // the child's JSON, for --json
};

// An error message squeezed onto one line, whole unless `max` is given (then cut to `max`
// characters with "..."). Cells keep errors whole: the table shortens them for display and lists
// the whole text under it (table.h).
std::string one_line(const std::string& msg, size_t max = std::string::npos);

// Interprets a finished measurement child: its result-file text and exit. A child that timed
// out, died by a signal, wrote nothing or wrote truncated JSON gives an error measurement; so
// does a JSON object with "error".
Measurement interpret_child(const std::string& file_text, const ProcResult& proc);

// Parses a well-formed child JSON object (throws nlohmann::json::exception when malformed).
Measurement parse_measurement(const nlohmann::json& j);

// The kernels a shape can time, in the order the reports list them: "gen" (generated), "hw"
// (hand-written), "triton" (Triton's compile of kernel.py), "vendor" (the spec's baseline),
// "copy" (the roofline copy).
inline constexpr const char* kTimedKinds[] = {"gen", "hw", "triton", "vendor", "copy"};

// The timing of one kind (kTimedKinds) at a shape, and whether that kernel passed its check
// there (the roofline copy is never checked: always true).
const std::optional<KernelTiming>& timing_of(const ShapeResult& s, const std::string& kind);
bool passed_check(const ShapeResult& s, const std::string& kind);

// "612 TFLOPS", "2874 GB/s": throughput rounded to an integer, then the unit.
std::string format_throughput(double value, const std::string& unit);

// Check-only shapes (ShapeResult::timed false) have no figure in any throughput cell below: a
// compare or improvement cell skips them (a failure still gives compare's trailing FAIL), a
// bench cell ends with one "FAIL (shape, ...)" naming those that failed.

// The compare cell of one measurement (see the header comment); "-" for no shapes.
std::string compare_cell(const Measurement& m);

// Per-shape "+20.5%" of right vs left generated throughput; FAIL for a shape failing on either
// side; "-" when either side is an error or nothing matches.
std::string improvement_cell(const Measurement& left, const Measurement& right);

// bench's shapes cell: the timed shapes' labels, then "(+2 check-only)" when there are any; "-"
// for none at all.
std::string bench_shapes_cell(const Measurement& m);

// The check cell of the generated ("gen") or hand-written ("hw") kernel: "ok" or "FAIL (shape,
// shape)" or "(error: ...)", with ptxas's warnings of that kernel (with_ptxas).
std::string check_cell(const Measurement& m, const std::string& kind = "gen");
// `cell` with " (ptxas: <warnings>)" appended when ptxas warned (Measurement::gen_ptxas).
std::string with_ptxas(const std::string& cell, const std::string& warnings);

// Bench cells: "612 TFLOPS, 640 TFLOPS" for one kind ("gen", "hw", "triton", "vendor", or
// "copy": the roofline copy, never checked); a shape failing its check gets " FAIL" after its
// figure; "-" where that kernel does not exist; for "vendor" also "(no torch)" or "(error: ...)"
// from a vendor script; for "triton" also "(no triton)" or "(error: ...)", and " (stages 3)"
// after the figures when Triton ran with fewer pipeline stages than kernel.py's DUMP asked for.
std::string bench_cell(const Measurement& m, const std::string& kind);
// "0.96x, 1.01x" = num / den throughput per shape (the kinds of bench_cell); "-" where either is
// missing.
std::string bench_ratio_cell(const Measurement& m, const std::string& num_kind,
                             const std::string& den_kind);

}  // namespace sched2cu::harness
