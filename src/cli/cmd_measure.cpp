// Hidden subcommands of the harness's child protocol: `__measure` runs one measurement (see
// src/harness/sched2cu/harness/measure.h) and writes its JSON to --out, or with --shape-args
// only lists the spec's launch arguments per shape, no GPU touched (spec_loader.h);
// `__gpu-probe` prints the current device as JSON. Users never call these; the parent process does,
// one child each.
#include <cstdio>
#include <memory>

#include "command_registry.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/measure.h"
#include "sched2cu/harness/spec_loader.h"

namespace {

struct MeasureArgs {
  sched2cu::harness::MeasureRequest req;
  std::string mode = "compare", out;
  bool shape_args = false;
};

sched2cu::cli::Registrar reg_measure("__measure", 1000, [](CLI::App& app) {
  auto a = std::make_shared<MeasureArgs>();
  CLI::App* sub = app.add_subcommand("__measure", "internal: one measurement child");
  sub->group("");  // hidden from --help
  sub->add_option("--spec", a->req.spec_so)->required();
  sub->add_option("--gen", a->req.gen_so);
  sub->add_option("--hw", a->req.hw_so);
  sub->add_option("--triton", a->req.triton_plan);
  sub->add_option("--mode", a->mode);
  sub->add_option("--seed", a->req.seed);
  sub->add_option("--warmup-ms", a->req.warmup_ms);
  sub->add_option("--rep-ms", a->req.rep_ms);
  sub->add_option("--label", a->req.label);
  sub->add_option("--out", a->out)->required();
  sub->add_flag("--shape-args", a->shape_args);
  return std::function<int()>([a]() {
    nlohmann::json j;
    try {
      if (a->shape_args) {
        j = sched2cu::harness::list_shape_args(a->req.spec_so);
      } else {
        a->req.mode = sched2cu::harness::parse_mode(a->mode);
        j = sched2cu::harness::run_measurement(a->req);
      }
    } catch (const std::exception& e) {
      j = {{"error", e.what()}};
    }
    // Plain write (not atomic): the parent treats a truncated file as a dead child.
    std::FILE* f = std::fopen(a->out.c_str(), "w");
    if (!f) return 1;
    std::string text = j.dump() + "\n";
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return j.contains("error") ? 1 : 0;
  });
});

sched2cu::cli::Registrar reg_probe("__gpu-probe", 1001, [](CLI::App& app) {
  CLI::App* sub = app.add_subcommand("__gpu-probe", "internal: print the current GPU as JSON");
  sub->group("");
  return std::function<int()>([]() {
    nlohmann::json j = sched2cu::harness::probe_device();
    std::printf("%s\n", j.dump().c_str());
    return j.contains("error") ? 1 : 0;
  });
});

}  // namespace
