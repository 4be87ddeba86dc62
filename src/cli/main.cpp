// Entry point of the `sched2cu` binary: builds the CLI from the registered subcommands and turns
// every user-facing error (sched2cu::Error) into one line on stderr and exit status 1; any other
// exception, even one thrown while building the CLI, is one "internal error" line and status 3;
// standard output that could not be written is an error too.
// It never holds pipeline logic.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "command_registry.h"
#include "sched2cu/common/diag.h"

namespace {

int run_cli(int argc, char** argv) {
  using namespace sched2cu::cli;
  CLI::App app{
      "sched2cu: modulo-schedule Triton TTGIR into warp-specialized CUDA for sm_90a, "
      "and prove and measure every generated kernel"};
  app.require_subcommand(1);
  auto& cmds = commands();
  std::sort(cmds.begin(), cmds.end(),
            [](const Command& a, const Command& b) { return a.order < b.order; });
  std::map<std::string, std::function<int()>> run;
  for (auto& c : cmds) run[c.name] = c.setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto* sub : app.get_subcommands()) return run.at(sub->get_name())();
  return 2;
}

}  // namespace

// Output a command printed but the system could not take (a full disk, a closed pipe) is lost
// output: an error, never exit 0.
int checked_stdout(int rc) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "sched2cu: error: writing standard output failed: %s\n",
                 std::strerror(errno));
    return rc == 0 ? 1 : rc;
  }
  return rc;
}

int main(int argc, char** argv) {
  try {
    return checked_stdout(run_cli(argc, argv));
  } catch (const sched2cu::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sched2cu: internal error: %s\n", e.what());
    return 3;
  } catch (...) {
    std::fprintf(stderr, "sched2cu: internal error: unknown exception\n");
    return 3;
  }
}
