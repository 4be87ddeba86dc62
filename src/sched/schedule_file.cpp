// schedule_file: the `schedule` command's work on files (parse and check the TTGIR, load the
// target table, schedule, validate and write the graph, render the report). Never decides
// anything about the schedule itself (kernel.cpp does).
#include <filesystem>

#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/sgraph/validate.h"
#include "sched2cu/ttgir/parser.h"

namespace sched2cu::sched {

std::string schedule_file(const std::string& in, const std::string& out, const KernelOptions& o,
                          std::vector<std::string>* warnings) {
  ttgir::Module m = ttgir::parse_file(in);
  ttgir::check_supported(m);
  auto path = o.sched.target_path.empty() ? ddg::TargetModel::default_path("sm_90a")
                                          : std::filesystem::path(o.sched.target_path);
  ddg::TargetModel t = ddg::TargetModel::load(path);
  KernelSchedule ks = schedule_kernel(m, in, t, o);
  sgraph::validate(ks.graph, out);
  sgraph::write_schedule_graph(ks.graph, out);
  if (warnings != nullptr) *warnings = ks.warnings;
  return render_report(ks);
}

}  // namespace sched2cu::sched
