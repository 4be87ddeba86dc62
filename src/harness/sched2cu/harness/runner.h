// The harness commands: compare, check, bench, list (regen is in regen.h). Each builds the
// modules a case needs (cached nvcc builds), runs every measurement in its own child process with
// a timeout, holds the GPU lock while measuring, renders one box-drawing table on stdout, reports
// progress on stderr and optionally writes every figure to a JSON file.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

struct RunOptions {
  std::filesystem::path root;      // repository root
  std::filesystem::path examples;  // the corpus (default <root>/examples)
  std::string cases_arg;           // --cases
  std::string rev = "origin/main";
  double timeout_s = 600;  // per measurement child
  std::string json_path;
  bool allow_busy_gpu = false;
  bool no_lock = false;
  unsigned long long seed = 0;
  double warmup_ms = 50, rep_ms = 200;
  std::string python = "python3";  // for vendor scripts and Triton's compile (bench)
  bool markdown = false;           // compare, bench: print the table as GitHub Markdown
  bool triton = false;             // compare --triton: the Triton column for the branch side
  std::string html_path;           // compare, bench: also write the table and bars as HTML
  BuildConfig build;
};

// How compare and bench print their table: box drawing, or GitHub Markdown (--markdown).
enum class TableFormat { Box, Markdown };

// Fills root (git toplevel of the cwd, else the source tree sched2cu was built from), examples,
// and the build config defaults. Throws sched2cu::Error when no repository is found.
RunOptions default_run_options(const std::string& root_arg, const std::string& examples_arg);

// Measures one case's kernels: `gen` is the generated.cu to use (empty: none), `mode` is
// "check", "compare" or "bench", `label` names the measurement in progress messages, `triton`
// asks for the Triton column too (Triton's compile of the case's kernel.py, where it has one;
// triton_build.h).
using MeasureFn =
    std::function<Measurement(const CaseFiles& c, const std::filesystem::path& gen,
                              const std::string& mode, const std::string& label, bool triton)>;

// The real MeasureFn: nvcc builds (and for the Triton column Triton's compile) + a `sched2cu
// __measure` child, after the GPU guard (probe child, Hopper check, GPU lock, idle check) has
// passed once, then in bench mode the case's vendor script child if its spec names one
// (vendor_script.h). A child that failed with Triton's kernel in it is run again without it
// (triton_build.h). It keeps the lock until destroyed.
class GpuMeasurer {
 public:
  explicit GpuMeasurer(const RunOptions& opt);
  ~GpuMeasurer();
  Measurement operator()(const CaseFiles& c, const std::filesystem::path& gen,
                         const std::string& mode, const std::string& label, bool triton);
  // The probed device ({} until the first measurement).
  const nlohmann::json& device() const { return device_; }
  // The GPU guard alone (probe, Hopper check, lock, idle check), once: commands call it before
  // building anything when some selected case will be measured, so that a machine without a GPU
  // says so at once instead of after minutes of nvcc builds.
  void ensure_gpu();
  // Whether any of the selected cases has a bench spec (something a GPU would measure).
  static bool any_to_measure(const RunOptions& opt);

 private:
  RunOptions opt_;
  nlohmann::json device_;
  struct Lock;
  std::unique_ptr<Lock> lock_;
};

struct CompareRow {
  std::string name;
  std::string status;  // no_dir, no_spec, no_generated, not_on_rev, unchanged, changed
  std::string left, right, improvement;
  std::string triton = "-", gen_triton = "-";  // compare --triton: the branch side's
  bool bold = false;
  std::optional<Measurement> left_m, right_m;
};

// The rows of `compare` (identity rule, not-on-rev, missing files), measuring through `measure`.
// Throws sched2cu::Error when `rev` is not a commit (callers exit 2).
// `after_each` gets the rows so far after each case (as check_rows' RowSink does).
using CompareRowSink = std::function<void(const std::vector<CompareRow>&)>;
std::vector<CompareRow> compare_rows(const RunOptions& opt, const MeasureFn& measure,
                                     const CompareRowSink& after_each = {});
// compare's table (the cells of the rows, re-measured branch cells bold; `triton`: with the
// columns triton and gen/triton) and the note printed under it.
Table compare_table(const std::vector<CompareRow>& rows, const std::string& rev,
                    bool triton = false);
std::string compare_note(const std::string& rev, bool triton = false);
// The table and the note under it. `use_bold` is the box table's bold policy
// (stdout_wants_bold()); Markdown always marks the re-measured branch cells **bold** (table.h).
// `triton` (compare --triton) adds the columns triton and gen/triton.
std::string render_compare(const std::vector<CompareRow>& rows, const std::string& rev,
                           bool use_bold, TableFormat format = TableFormat::Box,
                           bool triton = false);
nlohmann::json compare_json(const std::vector<CompareRow>& rows, const RunOptions& opt,
                            const nlohmann::json& device);

// Commands, returning the process exit code.
// After a command's table and files are written: 0, or, when a signal (SIGINT, SIGTERM, SIGHUP)
// stopped it, a line on stderr and 128 + the signal's number. Once a signal arrived the rows
// say "(not run: interrupted by SIG...)" for every case left, and the measuring child of the
// case in progress is stopped (subprocess.h), so nothing keeps running on the GPU.
int interrupted_exit(const char* command);
int run_compare(const RunOptions& opt);
int run_check(const RunOptions& opt);
int run_bench(const RunOptions& opt);
int run_list(const RunOptions& opt);

// Check and bench rows, exposed for tests.
struct CaseRow {
  std::string name;
  std::vector<std::string> cells;
  bool failed = false;
  std::optional<Measurement> m;
};
// Called with the rows so far after each case, so that a run's --json can be rewritten as it
// goes (with "partial": true until the end): a run killed even by SIGKILL keeps what it measured.
using RowSink = std::function<void(const std::vector<CaseRow>&)>;
std::vector<CaseRow> check_rows(const RunOptions& opt, const MeasureFn& measure,
                                const RowSink& after_each = {});
// Bench rows carry 13 cells: case, shapes, generated, handwritten, triton, vendor, gen/hw,
// gen/triton, gen/vendor, hw/vendor, copy, gen/copy, hw/copy. bench_header names the first 10,
// and the 3 roofline-copy columns too when some row's measurement has a copy
// (BenchSpec::roofline_copy_bytes): the table and the JSON cells show the header's columns
// only.
std::vector<CaseRow> bench_rows(const RunOptions& opt, const MeasureFn& measure,
                                const RowSink& after_each = {});
std::vector<std::string> bench_header(const std::vector<CaseRow>& rows);
// What `bench` prints (the table of bench_header's columns) and writes with --json.
Table bench_table(const std::vector<CaseRow>& rows);
// The note printed under bench's table (the copy columns explained when it has them).
std::string bench_note(const Table& table);
// bench_table rendered, with the note under it.
std::string render_bench(const std::vector<CaseRow>& rows, TableFormat format = TableFormat::Box);
nlohmann::json bench_json(const std::vector<CaseRow>& rows, const nlohmann::json& device);

// Writes `j` to `path` (atomically); throws sched2cu::Error on failure.
void write_json(const std::string& path, const nlohmann::json& j);
// `j` marked `"partial": true`: what a run rewrites after each case while it is still going.
nlohmann::json partial_json(nlohmann::json j);

}  // namespace sched2cu::harness
