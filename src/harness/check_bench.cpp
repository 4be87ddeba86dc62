// `sched2cu check` (correctness only, non-zero exit on any failure), `sched2cu bench` (absolute
// throughput of generated, hand-written, Triton and vendor kernels with ratios) and `sched2cu
// list` (what each case holds; no GPU).
#include <algorithm>
#include <cstdio>

#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/html_report.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

using nlohmann::json;

namespace {

bool any_fail(const Measurement& m, bool gen, bool hw) {
  if (!m.error.empty()) return true;
  for (auto& s : m.shapes) {
    if ((gen && !s.ok) || (hw && !s.hw_ok)) return true;
  }
  return false;
}

json rows_json(const char* command, const std::vector<CaseRow>& rows,
               const std::vector<std::string>& header, const json& device) {
  json cases = json::array();
  for (auto& r : rows) {
    json c = {{"case", r.name}, {"failed", r.failed}, {"cells", json::object()}};
    for (size_t i = 1; i < header.size() && i < r.cells.size(); ++i)
      c["cells"][header[i]] = r.cells[i];
    if (r.m) c["result"] = r.m->error.empty() ? r.m->raw : json{{"error", r.m->error}};
    cases.push_back(c);
  }
  return {{"command", command}, {"device", device}, {"cases", cases}};
}

// The rows' cells cut to the header's columns.
Table to_table(const std::vector<std::string>& header, const std::vector<CaseRow>& rows) {
  Table t;
  t.header = header;
  for (auto& r : rows) {
    t.rows.emplace_back(r.cells.begin(),
                        r.cells.begin() + std::ptrdiff_t(std::min(r.cells.size(), header.size())));
  }
  return t;
}

}  // namespace

std::vector<CaseRow> check_rows(const RunOptions& opt, const MeasureFn& measure,
                                const RowSink& after_each) {
  std::vector<CaseRow> rows;
  auto names = select_cases(opt.examples, opt.cases_arg);
  size_t k = 0;
  for (auto& name : names) {
    std::fprintf(stderr, "[%zu/%zu] %s\n", ++k, names.size(), name.c_str());
    CaseFiles c = inspect_case(opt.examples, name);
    CaseRow r;
    r.name = name;
    if (interrupt_requested()) {
      // Stopped by a signal: the cases checked so far still reach the table and the JSON.
      const std::string cell = "(not run: interrupted by " + interrupt_text() + ")";
      r.cells = {name, cell, cell};
      r.failed = true;
    } else if (!c.exists) {
      r.cells = {name, "(no such case dir)", "(no such case dir)"};
      r.failed = true;
    } else if (!c.spec) {
      r.cells = {name, "(no bench_spec)", "(no bench_spec)"};
    } else if (!c.generated && !c.handwritten) {
      r.cells = {name, "(no generated.cu)", "-"};
    } else {
      r.m = measure(c, c.generated ? c.dir / "generated.cu" : std::filesystem::path(), "check",
                    name, false);
      std::string gen = c.generated ? check_cell(*r.m) : "(no generated.cu)";
      std::string hw = c.handwritten ? check_cell(*r.m, "hw") : "-";
      if (!c.generated && !r.m->error.empty()) gen = "(error: " + r.m->error + ")";
      r.cells = {name, gen, hw};
      r.failed = any_fail(*r.m, c.generated, c.handwritten);
    }
    rows.push_back(std::move(r));
    if (after_each) after_each(rows);
  }
  return rows;
}

std::vector<CaseRow> bench_rows(const RunOptions& opt, const MeasureFn& measure,
                                const RowSink& after_each) {
  std::vector<CaseRow> rows;
  auto names = select_cases(opt.examples, opt.cases_arg);
  size_t k = 0;
  for (auto& name : names) {
    std::fprintf(stderr, "[%zu/%zu] %s\n", ++k, names.size(), name.c_str());
    CaseFiles c = inspect_case(opt.examples, name);
    CaseRow r;
    r.name = name;
    auto fill = [&](const std::string& cell) {
      r.cells = {name, "-", cell, cell, cell, cell, "-", "-", "-", "-", "-", "-", "-"};
    };
    if (interrupt_requested()) {
      // Stopped by a signal: the cases measured so far still reach the table and the JSON.
      fill("(not run: interrupted by " + interrupt_text() + ")");
      r.failed = true;
    } else if (!c.exists) {
      fill("(no such case dir)");
    } else if (!c.spec) {
      fill("(no bench_spec)");
    } else {
      r.m = measure(c, c.generated ? c.dir / "generated.cu" : std::filesystem::path(), "bench",
                    name, true);
      const Measurement& m = *r.m;
      if (!m.error.empty()) {
        fill("(error: " + m.error + ")");
        r.cells[3] = r.cells[4] = r.cells[5] = "-";
      } else {
        r.cells = {name,
                   bench_shapes_cell(m),
                   c.generated ? bench_cell(m, "gen") : "(no generated.cu)",
                   c.handwritten ? bench_cell(m, "hw") : "-",
                   bench_cell(m, "triton"),
                   bench_cell(m, "vendor"),
                   bench_ratio_cell(m, "gen", "hw"),
                   bench_ratio_cell(m, "gen", "triton"),
                   bench_ratio_cell(m, "gen", "vendor"),
                   bench_ratio_cell(m, "hw", "vendor"),
                   bench_cell(m, "copy"),
                   bench_ratio_cell(m, "gen", "copy"),
                   bench_ratio_cell(m, "hw", "copy")};
      }
      r.failed = any_fail(m, c.generated, c.handwritten);
    }
    rows.push_back(std::move(r));
    if (after_each) after_each(rows);
  }
  return rows;
}

std::vector<std::string> bench_header(const std::vector<CaseRow>& rows) {
  std::vector<std::string> h = {"case",   "shapes", "generated",  "handwritten", "triton",
                                "vendor", "gen/hw", "gen/triton", "gen/vendor",  "hw/vendor"};
  for (auto& r : rows) {
    if (r.m && r.m->error.empty() && r.m->has_copy) {
      h.insert(h.end(), {"copy", "gen/copy", "hw/copy"});
      break;
    }
  }
  return h;
}

Table bench_table(const std::vector<CaseRow>& rows) { return to_table(bench_header(rows), rows); }

json bench_json(const std::vector<CaseRow>& rows, const json& device) {
  return rows_json("bench", rows, bench_header(rows), device);
}

int interrupted_exit(const char* command) {
  if (!interrupt_requested()) return 0;
  std::fprintf(stderr,
               "%s: interrupted by %s: the table above (and --json, --html where given) holds "
               "what was measured before it; the cases after it were not run\n",
               command, interrupt_text().c_str());
  return 128 + interrupt_signal();
}

int run_check(const RunOptions& opt) {
  install_interrupt_handlers();
  GpuMeasurer gpu(opt);
  if (GpuMeasurer::any_to_measure(opt)) gpu.ensure_gpu();
  std::vector<std::string> header = {"case", "generated", "handwritten"};
  auto rows = check_rows(opt, std::ref(gpu), [&](const std::vector<CaseRow>& so_far) {
    if (!opt.json_path.empty())
      write_json(opt.json_path, partial_json(rows_json("check", so_far, header, gpu.device())));
  });
  std::fputs(render_table(to_table(header, rows), false).c_str(), stdout);
  int failed = 0;
  for (auto& r : rows) failed += r.failed;
  std::printf("\n%d of %zu case(s) failed\n", failed, rows.size());
  std::fflush(stdout);
  if (!opt.json_path.empty())
    write_json(opt.json_path, rows_json("check", rows, header, gpu.device()));
  if (const int rc = interrupted_exit("check")) return rc;
  return failed ? 1 : 0;
}

std::string bench_note(const Table& table) {
  std::string out =
      "throughput per shape (median of do_bench-style timings, L2 flushed before each call);\n"
      "FAIL after a figure = that kernel failed its correctness check at that shape; FAIL (...)\n"
      "= it failed at those check-only shapes (checked, never timed).\n"
      "triton = the case's kernel.py compiled by Triton with its DUMP config, on the generated\n"
      "kernel's grid; (stages N) = it ran with N pipeline stages, fewer than DUMP's, to fit in\n"
      "shared memory; (N/SM) = kernel.py strides by tl.num_programs, so its grid is free: it\n"
      "ran with N programs per SM, the fastest of 1, 2, 4, 8, 16 timed briefly at that shape.\n";
  if (table.header.size() > 10)
    out +=
        "copy = a device-to-device cudaMemcpyAsync moving the bytes the case's metric counts,\n"
        "timed with the kernels (the bandwidth roofline); gen/copy = copy time / kernel time.\n";
  return out;
}

std::string render_bench(const std::vector<CaseRow>& rows, TableFormat format) {
  const Table table = bench_table(rows);
  return (format == TableFormat::Markdown ? render_markdown(table) : render_table(table, false)) +
         "\n" + bench_note(table);
}

int run_bench(const RunOptions& opt) {
  install_interrupt_handlers();
  GpuMeasurer gpu(opt);
  if (GpuMeasurer::any_to_measure(opt)) gpu.ensure_gpu();
  auto rows = bench_rows(opt, std::ref(gpu), [&](const std::vector<CaseRow>& so_far) {
    if (!opt.json_path.empty())
      write_json(opt.json_path, partial_json(bench_json(so_far, gpu.device())));
  });
  std::fputs(render_bench(rows, opt.markdown ? TableFormat::Markdown : TableFormat::Box).c_str(),
             stdout);
  std::fflush(stdout);
  if (!opt.json_path.empty()) write_json(opt.json_path, bench_json(rows, gpu.device()));
  if (!opt.html_path.empty()) write_file_atomic(opt.html_path, bench_html(rows, gpu.device()));
  if (const int rc = interrupted_exit("bench")) return rc;
  // A name that is no case is a typo (unlike compare, there is no other revision it could be
  // in): the table says so in its row, and the exit status does too.
  std::string missing;
  for (const auto& r : rows)
    if (!inspect_case(opt.examples, r.name).exists)
      missing += (missing.empty() ? "" : ", ") + r.name;
  if (!missing.empty()) {
    std::fprintf(stderr, "bench: error: no such case dir under %s: %s\n",
                 opt.examples.string().c_str(), missing.c_str());
    return 1;
  }
  return 0;
}

int run_list(const RunOptions& opt) {
  std::vector<std::string> header = {
      "case",         "kernel.py",      "pre_modulo.ttgir", "schedule_graph.json",
      "generated.cu", "handwritten.cu", "bench_spec.cpp",   "README.md"};
  Table t;
  t.header = header;
  json cases = json::array();
  bool any_no_spec = false;
  for (auto& name : select_cases(opt.examples, opt.cases_arg)) {
    CaseFiles c = inspect_case(opt.examples, name);
    auto yn = [&](bool b) { return c.exists ? (b ? "yes" : "-") : "(no such case dir)"; };
    // Not a case the harness can check or measure yet: said so, as compare, check and bench do.
    const bool no_spec = c.exists && !c.spec;
    any_no_spec |= no_spec;
    const std::string gen = c.schedule_only && !c.generated ? "(schedule-only)" : yn(c.generated);
    t.rows.push_back({name, yn(c.kernel_py), yn(c.ttgir), yn(c.graph), gen, yn(c.handwritten),
                      no_spec ? "(no bench_spec)" : yn(c.spec), yn(c.readme)});
    cases.push_back({{"case", name},
                     {"status", !c.exists ? "no_dir"
                                : no_spec ? "no_spec"
                                          : "case"},
                     {"exists", c.exists},
                     {"kernel_py", c.kernel_py},
                     {"pre_modulo_ttgir", c.ttgir},
                     {"schedule_graph_json", c.graph},
                     {"generated_cu", c.generated},
                     {"handwritten_cu", c.handwritten},
                     {"bench_spec_cpp", c.spec},
                     {"readme", c.readme},
                     {"schedule_only", c.schedule_only}});
  }
  std::fputs(render_table(t, false).c_str(), stdout);
  if (any_no_spec)
    std::fputs(
        "\n(no bench_spec): compare, check and bench list it but cannot check or measure it "
        "until it has\na bench_spec.cpp (docs/adding_a_case.md).\n",
        stdout);
  if (!opt.json_path.empty()) write_json(opt.json_path, {{"command", "list"}, {"cases", cases}});
  return 0;
}

}  // namespace sched2cu::harness
