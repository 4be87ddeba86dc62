// `sched2cu regen`: rebuilds a case's pre_modulo.ttgir (tools/dump_ttgir.py, when Triton 3.6 is
// importable), schedule_graph.json (`sched2cu schedule`) and generated.cu (`sched2cu emit`) by
// running those as child processes, and reports which committed fixtures changed. With --check it
// writes nothing and fails when any fixture is stale. Never touches a fixture whose regeneration
// failed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

struct RegenOptions {
  std::filesystem::path root;
  std::filesystem::path examples;
  std::string cases_arg;
  bool check = false;
  bool skip_ttgir = false;
  std::string python = "python3";
  std::string sched2cu;  // the binary to run for schedule/emit (default: ourselves)
  double timeout_s = 600;
  std::string json_path;
};

struct RegenStep {
  std::string file;    // pre_modulo.ttgir, schedule_graph.json, generated.cu
  std::string status;  // unchanged, changed, new, skipped, error
  std::string detail;  // one line, whole: why skipped, the error (how the stage exited and the
                       // telling line of its stderr)
  std::string log;     // error: how the stage exited and its whole stderr (every line), when
                       // that says more than `detail`; else ""
};

struct RegenCase {
  std::string name;
  std::vector<RegenStep> steps;
  bool failed = false;  // a committed fixture is stale (--check) or could not be regenerated
  std::string hint;     // what to do about a failure, when the table alone does not say
};

std::vector<RegenCase> regen_cases(const RegenOptions& opt);
// The table regen prints: one row per case, a column per fixture, cells "<status> (<detail>)";
// a failing stage's whole stderr is the cell's note (listed under the table, table.h).
Table regen_table(const std::vector<RegenCase>& cases);
int run_regen(const RegenOptions& opt);

}  // namespace sched2cu::harness
