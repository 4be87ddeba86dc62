// HAND-WRITTEN case1 schedule graph, the emitter's development input until `sched2cu schedule`
// produces real graphs. The IR part comes from parsing tests/emit/case1_input.ttgir (a copy of
// examples/case1_simple_gemm/pre_modulo.ttgir); every schedule decision below (roles, cycles,
// II, ring depth 4, staging boxes) is written by hand after examples/case1_simple_gemm/
// handwritten.cu. tests/emit/case1_handwritten.schedule_graph.json is this graph written out;
// a test fails when the two disagree (SCHED2CU_UPDATE_GOLDEN=1 rewrites it). Never use it as a
// scheduler result.
#pragma once

#include <string>

#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::testing {

sgraph::ScheduleGraph case1_handwritten_graph(const std::string& ttgir_path,
                                              const std::string& source_label);

}  // namespace sched2cu::testing
