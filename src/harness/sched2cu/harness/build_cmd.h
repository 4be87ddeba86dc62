// `sched2cu build`: every selected case's bench_spec.cpp, generated.cu and handwritten.cu built
// by nvcc exactly as check, bench and compare build them (module_cache.h), several at once, into
// the same cache, with no GPU: build errors and ptxas's performance warnings per case on a machine
// without one, and a warm cache for the commands that measure. Must never touch a GPU or the GPU
// lock.
#pragma once

#include <vector>

#include "sched2cu/harness/runner.h"

namespace sched2cu::harness {

// One row per case: the case, then a cell per source ("ok", "ok (ptxas: ...)", "(error: ...)",
// "-" where the case has no such file). `jobs` builds run at once (at least 1).
std::vector<CaseRow> build_rows(const RunOptions& opt, int jobs);

// The command: the table on stdout, exit 1 when any source does not build (ptxas's warnings do not
// fail).
int run_build(const RunOptions& opt, int jobs);

}  // namespace sched2cu::harness
