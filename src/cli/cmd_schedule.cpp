// `sched2cu schedule IN.ttgir -o schedule_graph.json [--target FILE] [--exact-budget-ms N]
// [--report] ...`: modulo-schedule a TTGIR kernel into a schedule graph. Only parses flags into
// the scheduler's options struct and calls the library, from the repository root so that the
// graph records its input path the same way from any working directory.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "command_registry.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/json_io.h"

namespace {

namespace fs = std::filesystem;

// Runs in `dir` for its lifetime, then returns to the previous working directory.
class InDirectory {
 public:
  explicit InDirectory(const fs::path& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ~InDirectory() {
    std::error_code ec;
    fs::current_path(old_, ec);
  }
  InDirectory(const InDirectory&) = delete;
  InDirectory& operator=(const InDirectory&) = delete;

 private:
  fs::path old_;
};

// The graph records the path it is given (kernel.source, every IR location): give it the
// input's repository-relative name (common/file_util.h), read from the repository root, so that
// `sched2cu schedule pre_modulo.ttgir` inside a case directory writes the bytes `sched2cu regen`
// writes from the root. Paths of the other options are made absolute first.
std::string schedule_anywhere(const std::string& in, const std::string& out,
                              sched2cu::sched::KernelOptions o,
                              std::vector<std::string>* warnings) {
  std::error_code ec;
  if (!fs::is_regular_file(in, ec)) return sched2cu::sched::schedule_file(in, out, o, warnings);
  if (!o.sched.target_path.empty())
    o.sched.target_path = fs::absolute(o.sched.target_path).string();
  const std::string abs_out = fs::absolute(out).string();
  const std::string name = sched2cu::repo_relative_name(in);
  auto root = sched2cu::repo_root_of(in);
  if (!root) return sched2cu::sched::schedule_file(name, abs_out, o, warnings);  // absolute
  InDirectory at(*root);
  return sched2cu::sched::schedule_file(name, abs_out, o, warnings);
}

struct Args {
  std::string in, out;
  bool report = false;
  sched2cu::sched::KernelOptions o;
};

sched2cu::cli::Registrar reg("schedule", 10, [](CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "schedule",
      "Modulo-schedule a TTGIR kernel (roles, rings, buffers) into schedule_graph.json");
  auto& so = a->o.sched;
  sub->add_option("input", a->in, "pre_modulo.ttgir")->required();
  sub->add_option("-o,--output", a->out, "schedule_graph.json to write")->required();
  sub->add_option("--target", so.target_path, "target model table (default targets/sm_90a.json)");
  sub->add_option("--exact-budget-ms", so.exact_budget_ms,
                  "wall-clock budget of the exact method per loop (0 = off)")
      ->capture_default_str();
  sub->add_option("--exact-budget-nodes", so.exact_budget_nodes,
                  "search-node budget of the exact method per loop (deterministic)")
      ->capture_default_str();
  sub->add_option("--ims-budget", so.ims_budget_per_node, "IMS placement attempts per node and II")
      ->capture_default_str();
  sub->add_option("--max-ii-factor", so.max_ii_factor, "give up above this multiple of MII")
      ->capture_default_str();
  sub->add_option("--max-ring-depth", so.max_ring_depth, "cap of any ring's depth")
      ->capture_default_str();
  sub->add_option("--max-stages", so.max_stages,
                  "most pipeline stages of a loop whose trip count is a run-time value (0 = no "
                  "cap; docs/scheduler.md, \"Stage cap\")")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  sub->add_option("--max-ii", so.max_ii,
                  "largest II in cycles the scheduler works at (its tables grow with II)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  sub->add_flag("!--no-tail-depth", so.tail_depth,
                "size rings on mean latency only (no tail-latency slack)");
  sub->add_option("--grid", a->o.grid,
                  "launch grid X,Y,Z, each an expression of kernel parameters such as "
                  "'cdiv(N_CTX, 128),Z * H,1' (overrides the derived one)");
  sub->add_flag("!--no-split", a->o.split,
                "never let the launcher split a loop over a CTA cluster (docs/scheduler.md, "
                "\"Split loops\")");
  sub->add_option("--raster-group", a->o.raster_group,
                  "CTA rasterization group of a 2D grid (0 = launch the grid as is)")
      ->capture_default_str();
  sub->add_option_function<std::string>(
         "--loads", [a](const std::string& v) { a->o.loads = sched2cu::sched::parse_load_mode(v); },
         "how a memory-bound kernel's tile loads reach registers: auto (the faster predicted "
         "schedule), tma (producer warpgroup, rings) or global (plain loads, no producer)")
      ->check(CLI::IsMember({"auto", "tma", "global"}))
      ->default_str("auto");
  sub->add_flag("--report", a->report, "print II, MII, optimality, stages, depths, partition");
  return std::function<int()>([a]() {
    sched2cu::refuse_output_over_input(a->in, a->out, "schedule");
    std::vector<std::string> warnings;
    std::string rep = schedule_anywhere(a->in, a->out, a->o, &warnings);
    if (a->report) std::fputs(rep.c_str(), stdout);
    // Warnings reach stderr whether or not --report prints them too: the graph is written, but
    // its kernel will not run as the schedule models it.
    for (const auto& w : warnings)
      std::fprintf(stderr, "%s: warning: %s\n", a->in.c_str(), w.c_str());
    // The scheduler models ops the emitter may not lower: say so now, not at `emit`.
    const auto g = sched2cu::sgraph::read_schedule_graph(a->out);
    const auto missing = sched2cu::emit::unsupported_ops(g.ir, g.kernel.name);
    for (const auto& m : missing)
      std::fprintf(stderr, "%s: warning: emit has no lowering for %s (docs/supported_ops.md)\n",
                   m.where.c_str(), m.what.c_str());
    return 0;
  });
});

}  // namespace
