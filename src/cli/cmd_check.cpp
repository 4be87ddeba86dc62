// `sched2cu check [--cases a,b]`: correctness only (generated and handwritten vs the reference
// and each other, every output); non-zero exit on any failure. Only parses flags.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/cli_args.h"

namespace {

sched2cu::cli::Registrar reg("check", 70, [](CLI::App& app) {
  auto a = std::make_shared<sched2cu::harness::CliArgs>();
  CLI::App* sub =
      app.add_subcommand("check", "Correctness of every case's kernels (exit 1 on any failure)");
  a->add_common(sub, /*gpu=*/true);
  return std::function<int()>([a]() { return sched2cu::harness::run_check(a->options()); });
});

}  // namespace
