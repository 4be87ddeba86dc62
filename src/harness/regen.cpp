// Fixture regeneration (see regen.h). Every stage writes into a private temporary directory
// first; only then are the committed files compared and (without --check) replaced atomically.
#include "sched2cu/harness/regen.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"
#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;

namespace {

// The most telling line of a stage's stderr: the first one naming an error, else the last.
std::string telling_line(const std::string& s) {
  std::istringstream in(s);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("rror") != std::string::npos || line.find("not expected") != std::string::npos)
      return line;
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

RegenStep make_step(std::string file, std::string status, std::string detail,
                    std::string log = "") {
  return {std::move(file), std::move(status), std::move(detail), std::move(log)};
}

// `s` without trailing white space on any line and without leading or trailing empty lines.
std::string trim_lines(const std::string& s) {
  std::istringstream in(s);
  std::string line, out, pending;
  while (std::getline(in, line)) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) {
      if (!out.empty()) pending += "\n";
      continue;
    }
    if (!out.empty()) {
      out += pending;
      out += '\n';
    }
    out += line;
    pending.clear();
  }
  return out;
}

bool triton_available(const std::string& python) {
  ProcOptions o;
  o.timeout_s = 120;
  auto r = run_process({python, "-c",
                        "import triton, sys; sys.exit(0 if triton.__version__.startswith('3.6') "
                        "else 1)"},
                       o);
  return r.ok();
}

struct Tmp {
  fs::path path;
  Tmp() {
    std::string t = (fs::temp_directory_path() / "sched2cu-regen-XXXXXX").string();
    if (!mkdtemp(t.data())) throw Error("cannot create a temporary directory");
    path = t;
  }
  ~Tmp() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

std::vector<RegenCase> regen_cases(const RegenOptions& opt) {
  install_interrupt_handlers();
  std::string self = opt.sched2cu.empty() ? self_exe() : opt.sched2cu;
  bool have_triton = !opt.skip_ttgir && triton_available(opt.python);
  throw_if_interrupted("regen");
  std::vector<std::string> names = select_cases(opt.examples, opt.cases_arg);
  std::vector<RegenCase> out;
  size_t k = 0;
  for (auto& name : names) {
    std::fprintf(stderr, "[%zu/%zu] %s\n", ++k, names.size(), name.c_str());
    CaseFiles c = inspect_case(opt.examples, name);
    RegenCase rc;
    rc.name = name;
    if (!c.exists) {
      rc.steps.push_back(make_step("-", "error", "no such case dir"));
      rc.failed = true;
      out.push_back(rc);
      continue;
    }
    Tmp tmp;
    ProcOptions po;
    po.timeout_s = opt.timeout_s;
    po.cwd = opt.root.string();
    // One stage: run `argv` to produce tmp/<file>, then compare with the committed file.
    auto stage = [&](const std::string& file, const std::vector<std::string>& argv) -> bool {
      fs::path produced = tmp.path / file;
      ProcResult r = run_process(argv, po);
      throw_if_interrupted("regen");  // unwinds: `tmp` is removed, nothing more is written
      auto fresh = read_file_if_exists(produced);
      if (!r.ok() || !fresh) {
        std::string why = telling_line(r.err);
        // The whole stderr too when it says more than its telling line.
        const std::string err = trim_lines(r.err);
        rc.steps.push_back(
            make_step(file, "error", one_line(describe_exit(r) + (why.empty() ? "" : ": " + why)),
                      err.empty() || err == why ? "" : describe_exit(r) + ":\n" + err));
        // Every stage that runs must succeed, whether or not the case commits its output (a
        // case whose emit failed and that had no generated.cu used to pass --check).
        rc.failed = true;
        return false;
      }
      auto old = read_file_if_exists(c.dir / file);
      std::string status = !old ? "new" : *old == *fresh ? "unchanged" : "changed";
      rc.steps.push_back(make_step(file, status, ""));
      if (status != "unchanged") {
        if (opt.check)
          rc.failed |= status == "changed";
        else
          write_file_atomic(c.dir / file, *fresh);
      }
      return true;
    };
    // Stages run in the repository root and read committed inputs through root-relative paths:
    // the schedule graph records its input path, so this is what makes it byte-stable.
    auto rel = [&](const std::string& file) {
      return fs::weakly_canonical(c.dir / file).lexically_relative(opt.root).generic_string();
    };
    std::string ttgir = rel("pre_modulo.ttgir");
    if (c.kernel_py && have_triton) {
      size_t before = rc.steps.size();
      bool ok =
          stage("pre_modulo.ttgir",
                {opt.python, (opt.root / "tools" / "dump_ttgir.py").string(),
                 (c.dir / "kernel.py").string(), "-o", (tmp.path / "pre_modulo.ttgir").string()});
      // With --check a changed TTGIR is not written, so the next stage reads the fresh copy.
      if (ok && opt.check && rc.steps[before].status != "unchanged") {
        ttgir = (tmp.path / "pre_modulo.ttgir").string();
      }
    } else {
      rc.steps.push_back(make_step("pre_modulo.ttgir", "skipped",
                                   !c.kernel_py     ? "no kernel.py"
                                   : opt.skip_ttgir ? "--skip-ttgir"
                                                    : "Triton 3.6 is not importable"));
    }
    if (!fs::exists(fs::path(ttgir).is_absolute() ? fs::path(ttgir) : opt.root / ttgir)) {
      rc.steps.push_back(make_step("schedule_graph.json", "skipped", "no pre_modulo.ttgir"));
      out.push_back(rc);
      continue;
    }
    fs::path graph = c.dir / "schedule_graph.json";
    std::vector<std::string> schedule = {self, "schedule", ttgir, "-o",
                                         (tmp.path / "schedule_graph.json").string()};
    if (!c.grid.empty()) schedule.insert(schedule.end(), {"--grid", c.grid});  // the GRID file
    if (stage("schedule_graph.json", schedule)) {
      graph = tmp.path / "schedule_graph.json";
    } else {
      rc.steps.push_back(make_step("generated.cu", "skipped", "no schedule graph"));
      out.push_back(rc);
      continue;
    }
    if (c.schedule_only) {
      if (c.generated) {
        rc.steps.push_back(make_step("generated.cu", "error",
                                     std::string("the case is schedule-only (") +
                                         kScheduleOnlyFile +
                                         ") but commits generated.cu: remove one of the two"));
        rc.failed = true;
      } else {
        rc.steps.push_back(make_step(
            "generated.cu", "skipped",
            "schedule-only" +
                (c.schedule_only_reason.empty() ? std::string() : ": " + c.schedule_only_reason)));
      }
      out.push_back(rc);
      continue;
    }
    // emit names the TTGIR recorded in the graph, not the graph's own path, so reading the
    // graph from the temporary directory keeps its output byte-stable.
    if (!stage("generated.cu",
               {self, "emit", graph.string(), "-o", (tmp.path / "generated.cu").string()}) &&
        !c.generated) {
      rc.hint = name;
      rc.hint +=
          ": emit failed and the case commits no generated.cu; fix the kernel or the emitter, or "
          "declare the case schedule-only: a file ";
      rc.hint += repo_relative_name(c.dir / kScheduleOnlyFile);
      rc.hint += " whose text says why (docs/harness.md, regen)";
    }
    out.push_back(rc);
  }
  return out;
}

Table regen_table(const std::vector<RegenCase>& cases) {
  Table t;
  t.header = {"case", "pre_modulo.ttgir", "schedule_graph.json", "generated.cu"};
  for (const auto& c : cases) {
    std::vector<std::string> row = {c.name, "-", "-", "-"};
    std::vector<std::string> notes(row.size());
    for (const auto& s : c.steps) {
      std::string cell = s.status + (s.detail.empty() ? "" : " (" + s.detail + ")");
      size_t col = s.file == "-" ? 1 : 0;
      for (size_t i = 1; i < t.header.size(); ++i) {
        if (t.header[i] == s.file) col = i;
      }
      if (!col) continue;
      row[col] = cell;
      notes[col] = s.log;
    }
    t.rows.push_back(row);
    t.notes.push_back(notes);
  }
  return t;
}

int run_regen(const RegenOptions& opt) {
  auto cases = regen_cases(opt);
  Table t = regen_table(cases);
  nlohmann::json j = nlohmann::json::array();
  int failed = 0;
  for (auto& c : cases) {
    nlohmann::json jc = {
        {"case", c.name}, {"failed", c.failed}, {"steps", nlohmann::json::array()}};
    if (!c.hint.empty()) jc["hint"] = c.hint;
    for (auto& s : c.steps) {
      nlohmann::json js = {{"file", s.file}, {"status", s.status}, {"detail", s.detail}};
      if (!s.log.empty()) js["log"] = s.log;
      jc["steps"].push_back(js);
    }
    failed += c.failed;
    j.push_back(jc);
  }
  std::fputs(render_table(t, false).c_str(), stdout);
  bool first_hint = true;
  for (const auto& c : cases) {
    if (c.hint.empty()) continue;
    std::printf("%s%s\n", first_hint ? "\n" : "", c.hint.c_str());
    first_hint = false;
  }
  std::printf("\n%s%d case(s) %s\n", opt.check ? "check: " : "", failed,
              opt.check ? "with stale or unreproducible fixtures" : "failed to regenerate");
  // A committed pre_modulo.ttgir that could not be re-dumped was not checked: say so, so that a
  // clean summary is never read as "kernel.py and its TTGIR agree".
  int unchecked = 0;
  std::string why;
  for (const auto& c : cases)
    for (const auto& st : c.steps)
      if (st.file == "pre_modulo.ttgir" && st.status == "skipped" && st.detail != "no kernel.py") {
        ++unchecked;
        why = st.detail;
      }
  if (unchecked > 0)
    std::printf(
        "%s: pre_modulo.ttgir of %d case(s) not %s (%s): the rest was built from the "
        "committed TTGIR\n",
        opt.check ? "check" : "regen", unchecked, opt.check ? "checked" : "re-dumped", why.c_str());
  if (!opt.json_path.empty())
    write_json(opt.json_path, {{"command", "regen"}, {"check", opt.check}, {"cases", j}});
  return failed ? 1 : 0;
}

}  // namespace sched2cu::harness
