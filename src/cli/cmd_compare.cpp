// `sched2cu compare [--rev REV] [--cases a,b]`: one row per case with the generated/handwritten
// throughput ratio per shape at REV and in the working tree, and the per-shape improvement.
// Exit 0 when the table printed, 2 when REV is not a commit. Only parses flags.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/cli_args.h"

namespace {

sched2cu::cli::Registrar reg("compare", 60, [](CLI::App& app) {
  auto a = std::make_shared<sched2cu::harness::CliArgs>();
  auto rev = std::make_shared<std::string>("origin/main");
  auto triton = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "compare", "Per-case gen/hw table: a git revision's generated.cu vs the working tree's");
  sub->add_option("--rev", *rev, "git revision for the left column")->capture_default_str();
  a->add_common(sub, /*gpu=*/true);
  a->add_markdown(sub);
  a->add_html(sub);
  sub->add_flag("--triton", *triton,
                "add the Triton column for the branch side: the case's kernel.py compiled by "
                "Triton, timed with the working tree's generated kernel");
  sub->add_option("--python", a->python, "Python with Triton 3.6, for --triton")
      ->capture_default_str();
  return std::function<int()>([a, rev, triton]() {
    auto o = a->options();
    o.rev = *rev;
    o.triton = *triton;
    return sched2cu::harness::run_compare(o);
  });
});

}  // namespace
