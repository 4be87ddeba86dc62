// `sched2cu regen [--cases a,b] [--check]`: rebuilds pre_modulo.ttgir, schedule_graph.json and
// generated.cu and reports which changed; --check writes nothing and fails on a stale fixture.
// Only parses flags.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/regen.h"
#include "sched2cu/harness/runner.h"

namespace {

struct RegenArgs {
  std::string cases, root, examples, json, python = "python3";
  bool check = false, skip_ttgir = false;
  double timeout_s = 600;
};

sched2cu::cli::Registrar reg("regen", 90, [](CLI::App& app) {
  auto a = std::make_shared<RegenArgs>();
  CLI::App* sub = app.add_subcommand(
      "regen", "Regenerate pre_modulo.ttgir, schedule_graph.json and generated.cu per case");
  sub->add_option("--cases", a->cases, "comma-separated case dirs relative to examples/");
  sub->add_flag("--check", a->check, "write nothing; exit 1 when a committed fixture is stale");
  sub->add_flag("--skip-ttgir", a->skip_ttgir, "keep the committed pre_modulo.ttgir");
  sub->add_option("--python", a->python, "Python with Triton 3.6 for tools/dump_ttgir.py")
      ->capture_default_str();
  sub->add_option("--timeout", a->timeout_s, "seconds per stage")->capture_default_str();
  sub->add_option("--json", a->json, "write the per-case report to this JSON file");
  sub->add_option("--root", a->root, "repository root (default: the git checkout of the cwd)");
  sub->add_option("--examples", a->examples, "corpus dir (default: <root>/examples)");
  return std::function<int()>([a]() {
    auto r = sched2cu::harness::default_run_options(a->root, a->examples);
    sched2cu::harness::RegenOptions o;
    o.root = r.root;
    o.examples = r.examples;
    o.cases_arg = a->cases;
    o.check = a->check;
    o.skip_ttgir = a->skip_ttgir;
    o.python = a->python;
    o.timeout_s = a->timeout_s;
    o.json_path = a->json;
    return sched2cu::harness::run_regen(o);
  });
});

}  // namespace
