// `sched2cu new NAME [--from CASE]`: scaffolds examples/NAME from an existing case (kernel.py
// with its DUMP block, bench_spec.cpp, a README skeleton; see scaffold.h). Only parses flags.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/scaffold.h"

namespace {

struct NewArgs {
  std::string root, examples;
  sched2cu::harness::ScaffoldOptions o;
};

sched2cu::cli::Registrar reg("new", 95, [](CLI::App& app) {
  auto a = std::make_shared<NewArgs>();
  CLI::App* sub = app.add_subcommand(
      "new",
      "Scaffold a new case examples/NAME from an existing one (kernel.py, bench_spec.cpp, "
      "README.md)");
  sub->add_option("name", a->o.name, "the new case's directory name under examples/")->required();
  sub->add_option("--from", a->o.from, "the case to copy and rename")->capture_default_str();
  sub->add_option("--root", a->root, "repository root (default: the git checkout of the cwd)");
  sub->add_option("--examples", a->examples, "corpus dir (default: <root>/examples)");
  return std::function<int()>([a]() {
    auto r = sched2cu::harness::default_run_options(a->root, a->examples);
    a->o.examples = r.examples;
    return sched2cu::harness::run_new(a->o);
  });
});

}  // namespace
