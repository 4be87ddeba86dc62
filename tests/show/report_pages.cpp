// Writes the pages `sched2cu compare --html` and `sched2cu bench --html` would write, from fixture
// results instead of a GPU, for the browser test (browser_test.py): a temporary git repository
// holds one case directory per fixture case (its generated.cu changed, unchanged or new since the
// commit, as the fixture says), compare_rows and bench_rows make the rows as the commands do, and
// the measuring function hands out the fixture's results, parsed like a measurement child's.
// Usage: sched2cu_report_pages FIXTURE.json OUT_DIR  (writes OUT_DIR/compare.html, bench.html)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/html_report.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"

namespace fs = std::filesystem;
namespace h = sched2cu::harness;
using nlohmann::json;

namespace {

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  sched2cu::write_file_atomic(p, text);
}

void git(const fs::path& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-c", "user.name=fixture", "-c", "user.email=f@f"};
  argv.insert(argv.end(), args.begin(), args.end());
  h::ProcOptions o;
  o.cwd = repo.string();
  const auto r = h::run_process(argv, o);
  if (!r.ok())
    throw sched2cu::Error("git " + args.at(0) + ": " + h::describe_exit(r) + ": " + r.err);
}

h::Measurement result(const json& j) {
  if (j.contains("error")) {
    h::Measurement m;
    m.error = j["error"].get<std::string>();
    return m;
  }
  return h::parse_measurement(j);
}

int run(const fs::path& fixture, const fs::path& out) {
  const json fx = json::parse(sched2cu::read_file(fixture));
  const fs::path repo = out / "repo";
  fs::remove_all(repo);
  put(repo / "runtime/README", "fixture\n");
  for (const json& c : fx.at("cases")) {
    const fs::path dir = repo / "examples" / c.at("case").get<std::string>();
    const std::string how = c.at("compare");
    put(dir / "handwritten.cu", "// fixture\n");
    if (how != "no_spec") put(dir / "bench_spec.cpp", "// fixture\n");
    if (how != "not_on_rev") put(dir / "generated.cu", "// at the revision\n");
  }
  git(repo, {"init", "-q", "-b", "main"});
  git(repo, {"add", "-A"});
  git(repo, {"commit", "-q", "-m", "fixture"});
  for (const json& c : fx.at("cases")) {
    const std::string how = c.at("compare");
    if (how == "changed" || how == "not_on_rev")
      put(repo / "examples" / c.at("case").get<std::string>() / "generated.cu", "// branch\n");
  }
  h::RunOptions opt = h::default_run_options(repo.string(), "");
  opt.rev = "main";
  opt.triton = true;  // compare --triton: the fixture's branch results carry Triton's figures
  for (const json& c : fx.at("cases"))
    opt.cases_arg += (opt.cases_arg.empty() ? "" : ",") + c.at("case").get<std::string>();
  h::MeasureFn measure = [&](const h::CaseFiles& cf, const fs::path&, const std::string& mode,
                             const std::string& label, bool) {
    for (const json& c : fx.at("cases")) {
      if (c.at("case") != cf.name) continue;
      if (mode == "bench") return result(c.at("bench"));
      const bool branch = label.ends_with(" (branch)") && c.contains("branch");
      return result(c.at(branch ? "branch" : "rev"));
    }
    throw sched2cu::Error("no fixture result for " + cf.name);
  };
  const json& device = fx.at("device");
  sched2cu::write_file_atomic(
      out / "compare.html", h::compare_html(h::compare_rows(opt, measure), opt.rev, device, true));
  sched2cu::write_file_atomic(out / "bench.html",
                              h::bench_html(h::bench_rows(opt, measure), device));
  fs::remove_all(repo);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FIXTURE.json OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_pages: %s\n", e.what());
    return 1;
  }
}
