// `sched2cu list`: the cases under examples/ and which files each holds. Needs no GPU.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/cli_args.h"
#include "sched2cu/harness/runner.h"

namespace {

sched2cu::cli::Registrar reg("list", 100, [](CLI::App& app) {
  auto a = std::make_shared<sched2cu::harness::CliArgs>();
  CLI::App* sub = app.add_subcommand("list", "List the cases under examples/ and what each holds");
  a->add_common(sub, /*gpu=*/false);
  return std::function<int()>([a]() { return sched2cu::harness::run_list(a->options()); });
});

}  // namespace
