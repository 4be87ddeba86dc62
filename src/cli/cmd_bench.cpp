// `sched2cu bench [--cases a,b]`: absolute throughput of generated, handwritten, Triton (the
// case's kernel.py compiled by Triton) and vendor (cuBLAS, cuBLASLt, or a case's Python vendor
// script) kernels per shape, with ratios. Only parses flags.
#include <memory>

#include "command_registry.h"
#include "sched2cu/harness/cli_args.h"

namespace {

sched2cu::cli::Registrar reg("bench", 80, [](CLI::App& app) {
  auto a = std::make_shared<sched2cu::harness::CliArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Throughput of generated, handwritten, Triton and vendor kernels per case and shape");
  a->add_common(sub, /*gpu=*/true);
  a->add_markdown(sub);
  a->add_html(sub);
  sub->add_option("--python", a->python,
                  "Python for the Triton column (Triton 3.6) and for the cases whose vendor "
                  "baseline is a script (case3_FA: PyTorch with cuDNN)")
      ->capture_default_str();
  return std::function<int()>([a]() { return sched2cu::harness::run_bench(a->options()); });
});

}  // namespace
