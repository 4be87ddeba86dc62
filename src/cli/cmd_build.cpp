// `sched2cu build [--cases a,b] [-j N]`: every case's kernels and specs built as check, bench and
// compare build them, with no GPU (build errors, ptxas's warnings; a warm cache). Only parses
// flags.
#include <memory>
#include <thread>

#include "command_registry.h"
#include "sched2cu/harness/build_cmd.h"
#include "sched2cu/harness/cli_args.h"

namespace {

sched2cu::cli::Registrar reg("build", 65, [](CLI::App& app) {
  auto a = std::make_shared<sched2cu::harness::CliArgs>();
  auto jobs =
      std::make_shared<int>(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  CLI::App* sub = app.add_subcommand(
      "build",
      "Build every case's bench_spec.cpp, generated.cu and handwritten.cu as check and bench do, "
      "with no GPU (exit 1 on a build error; ptxas's spill and wgmma warnings are reported)");
  a->add_common(sub, /*gpu=*/false);
  sub->add_option("--cache-dir", a->cache_dir,
                  "where compiled .so files are cached (default: $SCHED2CU_CACHE_DIR or "
                  "<root>/.cache/sched2cu)");
  sub->add_option("-j,--jobs", *jobs, "builds at once (default: the CPU count)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  return std::function<int()>(
      [a, jobs]() { return sched2cu::harness::run_build(a->options(), *jobs); });
});

}  // namespace
