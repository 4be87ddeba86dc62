// `sched2cu build` (see build_cmd.h): the harness's nvcc builds, several at once, no GPU.
#include "sched2cu/harness/build_cmd.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/module_cache.h"
#include "sched2cu/harness/table.h"

namespace sched2cu::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSources[] = {"bench_spec.cpp", "generated.cu", "handwritten.cu"};

struct Job {
  size_t row = 0;
  size_t column = 0;  // index into kSources
  fs::path source;
  BuildResult result;
};

std::string cell_of(const BuildResult& r) {
  if (!r.error.empty()) return "(error: " + r.error + ")";
  return with_ptxas(r.cached ? "ok (cached)" : "ok", r.ptxas);
}

}  // namespace

std::vector<CaseRow> build_rows(const RunOptions& opt, int jobs) {
  std::vector<CaseRow> rows;
  std::vector<Job> work;
  for (const auto& name : select_cases(opt.examples, opt.cases_arg)) {
    const CaseFiles c = inspect_case(opt.examples, name);
    CaseRow r;
    r.name = name;
    r.cells = {name, "-", "-", "-"};
    if (!c.exists) {
      r.cells = {name, "(no such case dir)", "(no such case dir)", "(no such case dir)"};
      r.failed = true;
    } else {
      const bool has[] = {c.spec, c.generated, c.handwritten};
      for (size_t k = 0; k < 3; ++k)
        if (has[k]) work.push_back({rows.size(), k, c.dir / kSources[k], {}});
      if (!c.generated) r.cells[2] = "(no generated.cu)";
    }
    rows.push_back(std::move(r));
  }
  std::atomic<size_t> next{0};
  std::mutex out;
  auto worker = [&] {
    for (size_t i = next++; i < work.size(); i = next++) {
      Job& j = work[i];
      const std::string label = rows[j.row].name + "/" + kSources[j.column];
      j.result = build_module(opt.build, j.source, j.column == 0, kSources[j.column]);
      const std::lock_guard<std::mutex> lock(out);
      std::fprintf(stderr, "  %s: %s\n", label.c_str(), cell_of(j.result).c_str());
      if (!j.result.error.empty())
        std::fprintf(stderr, "  %s: log: %s\n", label.c_str(), j.result.log_path.c_str());
    }
  };
  const size_t n = std::min<size_t>(std::max(1, jobs), std::max<size_t>(1, work.size()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const Job& j : work) {
    rows[j.row].cells[j.column + 1] = cell_of(j.result);
    rows[j.row].failed |= !j.result.error.empty();
  }
  return rows;
}

int run_build(const RunOptions& opt, int jobs) {
  const auto rows = build_rows(opt, jobs);
  Table t;
  t.header = {"case", kSources[0], kSources[1], kSources[2]};
  json cases = json::array();
  int failed = 0;
  for (const auto& r : rows) {
    t.rows.push_back(r.cells);
    failed += r.failed;
    json cells = json::object();
    for (size_t k = 1; k < t.header.size(); ++k) cells[t.header[k]] = r.cells[k];
    cases.push_back({{"case", r.name}, {"failed", r.failed}, {"cells", cells}});
  }
  std::fputs(render_table(t, false).c_str(), stdout);
  std::printf("\n%d of %zu case(s) do not build (cache: %s)\n", failed, rows.size(),
              opt.build.cache_dir.string().c_str());
  std::fflush(stdout);
  if (!opt.json_path.empty()) write_json(opt.json_path, {{"command", "build"}, {"cases", cases}});
  return failed ? 1 : 0;
}

}  // namespace sched2cu::harness
