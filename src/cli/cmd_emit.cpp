// `sched2cu emit schedule_graph.json -o generated.cu`: reads and validates a schedule graph and
// writes the generated CUDA file. Only flag parsing and file I/O live here; the lowering is in
// src/emit.
#include "command_registry.h"

// The emit library exists only once its dependencies (ttgir, sgraph) are built; until then the
// subcommand is simply absent instead of breaking the whole binary.
#if __has_include("sched2cu/emit/emit.h")
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

// A graph names its target and carries that target's budgets, which the emitter plans with: a
// graph edited to claim more than the real target (targets/<name>.json) would be planned into
// shared memory or registers the GPU does not have. Checked against the table, not trusted.
void check_target(const sched2cu::sgraph::ScheduleGraph& g, const std::string& path) {
  using sched2cu::Error;
  const auto t =
      sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path(g.target.name));
  const auto& b = t.budgets;
  auto over = [&](const char* what, long long claimed, long long real) {
    if (claimed > real)
      throw Error(path + ": error: the graph's target " + g.target.name + " claims " +
                  std::to_string(claimed) + " " + what + "; the target table has " +
                  std::to_string(real) + " (targets/" + g.target.name + ".json)");
  };
  over("B of shared memory per block", g.target.smem_bytes, b.smem_bytes_per_block);
  over("registers per SM", g.target.regs_per_sm, b.regs_per_sm);
  over("registers per thread", g.target.max_regs_per_thread, b.max_regs_per_thread);
  over("threads per block", g.target.max_threads_per_block, b.max_threads_per_block);
  long long regs = 0;
  for (const auto& r : g.launch.roles) {
    over("registers per thread in a role (setmaxnreg)", r.regs, b.setmaxnreg_max);
    regs += 1LL * r.regs * b.threads_per_warpgroup * static_cast<long long>(r.warpgroups.size());
  }
  over("registers per SM over its roles and CTAs", regs * std::max(1, g.launch.ctas_per_sm),
       b.regs_per_sm);
}

struct EmitArgs {
  std::string graph;
  std::string out;
};

sched2cu::cli::Registrar reg("emit", 30, [](CLI::App& app) {
  auto args = std::make_shared<EmitArgs>();
  CLI::App* sub = app.add_subcommand("emit", "Lower a schedule_graph.json into generated.cu");
  sub->add_option("graph", args->graph, "schedule_graph.json to lower")->required();
  sub->add_option("-o,--output", args->out, "generated .cu file to write (default: stdout)");
  return std::function<int()>([args]() {
    if (!args->out.empty() && args->out != "-") {
      std::error_code ec;
      if (std::filesystem::equivalent(args->graph, args->out, ec))
        throw sched2cu::Error("emit: error: -o " + args->out +
                              " is the input graph itself; refusing to overwrite it");
    }
    auto g = sched2cu::sgraph::read_schedule_graph(args->graph);
    check_target(g, args->graph);
    sched2cu::emit::Options opts;
    opts.graph_path = args->graph;
    std::string text = sched2cu::emit::emit_cuda(g, opts);
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
