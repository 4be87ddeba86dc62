// `sched2cu verify schedule_graph.json...`: lowers each graph as emit does and proves the
// emitted synchronization protocol (src/verify, docs/verify.md); `--mutants` runs the mutation
// suite on it. Only flag parsing and output live here.
#include "command_registry.h"

#if __has_include("sched2cu/verify/verify.h")
#include <chrono>
#include <cstdio>
#include <memory>

#include "sched2cu/common/diag.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/verify/verify.h"

namespace {

struct VerifyArgs {
  std::vector<std::string> graphs;
  long long max_states = sched2cu::verify::Options{}.max_states;
  bool mutants = false, list = false, events = false;
  std::string mutate;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

int run(const VerifyArgs& a) {
  int rc = 0;
  for (const std::string& path : a.graphs) {
    auto g = sched2cu::sgraph::read_schedule_graph(path);
    sched2cu::emit::Options eo;
    eo.graph_path = path;
    sched2cu::emit::Program p = sched2cu::emit::lower_program(g, eo);
    if (!a.mutate.empty()) p = sched2cu::verify::mutate(p, a.mutate);
    sched2cu::verify::Options vo;
    vo.max_states = a.max_states;
    vo.dump_events = a.events;
    if (a.list) {
      for (const auto& m : sched2cu::verify::mutants(p))
        std::printf("%s\t%s\n", m.name.c_str(), m.what.c_str());
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = sched2cu::verify::verify(p, g, vo);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok) {
      std::printf("%s: protocol violation\n  %s\n", path.c_str(), r.failure.c_str());
      rc = 1;
      continue;
    }
    std::printf("%s: proven (%d scenarios, %lld states, %.2f s)\n", path.c_str(), r.scenarios,
                r.states, s);
    if (!a.mutants) continue;
    int caught = 0, total = 0;
    for (const auto& m : sched2cu::verify::mutants(p)) {
      ++total;
      const auto mr = sched2cu::verify::verify(sched2cu::verify::mutate(p, m.name), g, vo);
      if (!mr.ok) {
        ++caught;
        std::printf("  caught  %s: %s\n", m.name.c_str(), first_line(mr.failure).c_str());
        const auto nl = mr.failure.find('\n');
        if (nl != std::string::npos)
          std::printf("          %s\n", first_line(mr.failure.substr(nl + 1)).c_str());
      } else {
        std::printf("  MISSED  %s: %s\n", m.name.c_str(), m.what.c_str());
        rc = 1;
      }
    }
    std::printf("  %d of %d mutants caught\n", caught, total);
  }
  std::fflush(stdout);
  if (std::ferror(stdout)) throw sched2cu::Error("verify: error: cannot write to stdout");
  return rc;
}

sched2cu::cli::Registrar reg("verify", 35, [](CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Prove the synchronization protocol emit would write for each schedule graph");
  sub->add_option("graphs", args->graphs, "schedule_graph.json files")->required();
  sub->add_option("--max-states", args->max_states,
                  "states per scenario before giving up (an error, never a pass)");
  sub->add_flag("--mutants", args->mutants,
                "also run the mutation suite: every mutant must be caught");
  sub->add_flag("--list-mutants", args->list, "list the mutants of each graph's protocol");
  sub->add_flag("--events", args->events,
                "print each scenario's per-warpgroup event sequence (the model) on stderr");
  sub->add_option("--mutate", args->mutate,
                  "check this mutant of the protocol instead (shows its counterexample)");
  return std::function<int()>([args]() { return run(*args); });
});

}  // namespace

#endif
