// `sched2cu emit schedule_graph.json -o generated.cu`: reads and validates a schedule graph and
// writes the generated CUDA file. Only flag parsing and file I/O live here; the lowering is in
// src/emit.
#include "command_registry.h"

// The emit library exists only once its dependencies (ttgir, sgraph) are built; until then the
// subcommand is simply absent instead of breaking the whole binary.
#if __has_include("sched2cu/emit/emit.h")
#include <cstdio>
#include <memory>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/verify/verify.h"

namespace {

struct EmitArgs {
  std::string graph;
  std::string out;
  bool no_verify = false;
  std::string mutate;
};

sched2cu::cli::Registrar reg("emit", 30, [](CLI::App& app) {
  auto args = std::make_shared<EmitArgs>();
  CLI::App* sub = app.add_subcommand("emit", "Lower a schedule_graph.json into generated.cu");
  sub->add_option("graph", args->graph, "schedule_graph.json to lower")->required();
  sub->add_option("-o,--output", args->out, "generated .cu file to write (default: stdout)");
  sub->add_flag("--no-verify", args->no_verify,
                "write the kernel without proving its synchronization protocol (sched2cu verify)");
  sub->add_option("--mutate", args->mutate,
                  "break the protocol with this mutant of `sched2cu verify --list-mutants` (for "
                  "testing the checker on a GPU; needs --no-verify to be written)");
  return std::function<int()>([args]() {
    sched2cu::refuse_output_over_input(args->graph, args->out, "emit");
    auto g = sched2cu::sgraph::read_schedule_graph(args->graph);
    sched2cu::emit::Options opts;
    opts.graph_path = args->graph;
    sched2cu::emit::Program p = sched2cu::emit::lower_program(g, opts);
    if (!args->mutate.empty()) p = sched2cu::verify::mutate(p, args->mutate);
    if (!args->no_verify) {
      const auto r = sched2cu::verify::verify(p, g);
      if (!r.ok)
        throw sched2cu::Error(args->graph +
                              ": error: the emitted synchronization protocol fails verification "
                              "(nothing written; --no-verify writes it anyway)\n" +
                              r.failure);
    }
    std::string text = sched2cu::emit::print_program(p);
    if (args->out.empty() || args->out == "-") {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      sched2cu::write_file_atomic(args->out, text);
    }
    return 0;
  });
});

}  // namespace

#endif
