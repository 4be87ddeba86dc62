// `sched2cu compare`: per case, the revision's generated.cu against the working tree's, both
// measured under the current build (spec, hand-written kernel, runtime headers). Implements the
// identity rule (byte-identical: measured once, "unchanged") and the per-case row rules of
// docs/harness.md, section `compare` (the table "Per case, the first matching rule wins").
// With --triton, the working tree's measurement also runs Triton's compile of kernel.py.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/git.h"
#include "sched2cu/harness/html_report.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A private temporary directory removed on scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "sched2cu-rev-XXXXXX").string();
    if (!mkdtemp(t.data())) throw Error("cannot create a temporary directory");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// compare --triton's cells from the measurement of the working tree's generated.cu.
void set_triton_cells(CompareRow& row, const Measurement& m) {
  if (!m.error.empty()) return;  // the row's own cell says it
  row.triton = bench_cell(m, "triton");
  row.gen_triton = bench_ratio_cell(m, "gen", "triton");
}

}  // namespace

std::vector<CompareRow> compare_rows(const RunOptions& opt, const MeasureFn& measure,
                                     const CompareRowSink& after_each) {
  if (!git_is_commit(opt.root, opt.rev)) {
    throw Error("error: --rev '" + opt.rev + "' is not a commit in this repo");
  }
  std::string label = rev_label(opt.rev);
  std::vector<std::string> names = select_cases(opt.examples, opt.cases_arg);
  std::vector<CompareRow> rows;
  size_t k = 0;
  for (const std::string& name : names) {
    ++k;
    std::fprintf(stderr, "[%zu/%zu] %s\n", k, names.size(), name.c_str());
    CaseFiles c = inspect_case(opt.examples, name);
    CompareRow row;
    row.name = name;
    row.improvement = "-";
    auto both = [&](const std::string& status, const std::string& cell) {
      row.status = status;
      row.left = row.right = cell;
    };
    if (interrupt_requested()) {
      // Stopped by a signal: the cases measured so far still reach the table and the JSON.
      both("not_run", "(not run: interrupted by " + interrupt_text() + ")");
    } else if (!c.exists) {
      both("no_dir", "(no such case dir)");
    } else if (!c.spec) {
      both("no_spec", "(no bench_spec)");
    } else if (!c.generated) {
      both("no_generated", "(no generated.cu)");
    } else {
      fs::path gen = c.dir / "generated.cu";
      fs::path real = fs::weakly_canonical(gen);
      fs::path rel = real.lexically_relative(opt.root);
      std::optional<std::string> old;
      if (!rel.empty() && *rel.begin() != "..")
        old = git_show(opt.root, opt.rev, rel.generic_string());
      if (!old) {
        row.status = "not_on_rev";
        row.left = "(not on " + opt.rev + ")";
        row.right_m = measure(c, gen, "compare", name + " (branch)", opt.triton);
        row.right = compare_cell(*row.right_m);
        if (opt.triton) set_triton_cells(row, *row.right_m);
        row.bold = true;
      } else if (*old == read_file(gen)) {
        row.status = "unchanged";
        // Measured once: this measurement is the branch's too.
        row.left_m = measure(c, gen, "compare", name, opt.triton);
        row.left = compare_cell(*row.left_m);
        row.right = "unchanged";
        if (opt.triton) set_triton_cells(row, *row.left_m);
      } else {
        row.status = "changed";
        TempDir tmp;
        fs::path old_path = tmp.path / "generated.cu";
        {
          std::ofstream f(old_path, std::ios::binary);
          f << *old;
          if (!f) throw Error("cannot write " + old_path.string());
        }
        std::string who = name + " (";
        who += label;
        who += ")";
        row.left_m = measure(c, old_path, "compare", who, false);
        row.right_m = measure(c, gen, "compare", name + " (branch)", opt.triton);
        row.left = compare_cell(*row.left_m);
        row.right = compare_cell(*row.right_m);
        if (opt.triton) set_triton_cells(row, *row.right_m);
        row.improvement = improvement_cell(*row.left_m, *row.right_m);
        row.bold = true;
      }
    }
    rows.push_back(std::move(row));
    if (after_each) after_each(rows);
  }
  return rows;
}

Table compare_table(const std::vector<CompareRow>& rows, const std::string& rev, bool triton) {
  std::string label = rev_label(rev);
  Table t;
  t.header = {"case", label + " (gen/hw)", "branch (gen/hw)", "improvement"};
  if (triton) t.header.insert(t.header.end(), {"triton", "gen/triton"});
  for (auto& r : rows) {
    t.rows.push_back({r.name, r.left, r.right, r.improvement});
    t.bold.push_back({false, false, r.bold, false});
    if (triton) t.rows.back().insert(t.rows.back().end(), {r.triton, r.gen_triton});
  }
  return t;
}

std::string compare_note(const std::string& rev, bool triton) {
  const std::string triton_note =
      triton ? "triton = the case's kernel.py compiled by Triton (DUMP's config, the generated\n"
               "kernel's grid), timed with the branch side: absolute throughput per shape, and\n"
               "gen/triton = branch generated / Triton.\n"
             : "";
  return "cells: per-shape generated/handwritten throughput ratios (raw generated throughput\n"
         "when the case has no handwritten kernel), in shape order; both columns are built and\n"
         "run under the current tree (runtime headers, bench_spec.cpp, handwritten.cu); only\n"
         "generated.cu differs. improvement = branch generated throughput vs " +
         rev_label(rev) +
         ", per shape,\nnormalized by the handwritten kernel timed alongside each side (cancels "
         "drift between\nthe two measurements); 'unchanged' = byte-identical generated.cu "
         "(measured once).\n" +
         triton_note;
}

std::string render_compare(const std::vector<CompareRow>& rows, const std::string& rev,
                           bool use_bold, TableFormat format, bool triton) {
  const Table t = compare_table(rows, rev, triton);
  return (format == TableFormat::Markdown ? render_markdown(t) : render_table(t, use_bold)) + "\n" +
         compare_note(rev, triton);
}

json compare_json(const std::vector<CompareRow>& rows, const RunOptions& opt, const json& device) {
  json cases = json::array();
  for (auto& r : rows) {
    json c = {{"case", r.name},
              {"status", r.status},
              {"cells", {{"left", r.left}, {"right", r.right}, {"improvement", r.improvement}}}};
    if (opt.triton) {
      c["cells"]["triton"] = r.triton;
      c["cells"]["gen/triton"] = r.gen_triton;
    }
    auto side = [](const std::optional<Measurement>& m) {
      if (!m) return json();
      if (!m->error.empty()) return json{{"error", m->error}};
      return m->raw;
    };
    c["left"] = side(r.left_m);
    c["right"] = side(r.right_m);
    cases.push_back(c);
  }
  return {{"command", "compare"},
          {"rev", opt.rev},
          {"rev_label", rev_label(opt.rev)},
          {"device", device},
          {"cases", cases}};
}

int run_compare(const RunOptions& opt) {
  if (!git_is_commit(opt.root, opt.rev)) {
    std::fprintf(stderr, "error: --rev '%s' is not a commit in this repo\n", opt.rev.c_str());
    return 2;
  }
  install_interrupt_handlers();
  GpuMeasurer gpu(opt);
  // Before the other revision's worktree and its nvcc builds.
  if (GpuMeasurer::any_to_measure(opt)) gpu.ensure_gpu();
  auto rows = compare_rows(opt, std::ref(gpu), [&](const std::vector<CompareRow>& so_far) {
    if (!opt.json_path.empty())
      write_json(opt.json_path, partial_json(compare_json(so_far, opt, gpu.device())));
  });
  std::fputs(render_compare(rows, opt.rev, stdout_wants_bold(),
                            opt.markdown ? TableFormat::Markdown : TableFormat::Box, opt.triton)
                 .c_str(),
             stdout);
  std::fflush(stdout);
  if (!opt.json_path.empty()) write_json(opt.json_path, compare_json(rows, opt, gpu.device()));
  if (!opt.html_path.empty())
    write_file_atomic(opt.html_path, compare_html(rows, opt.rev, gpu.device(), opt.triton));
  return interrupted_exit("compare");
}

}  // namespace sched2cu::harness
