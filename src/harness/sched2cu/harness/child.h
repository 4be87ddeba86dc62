// The parent's side of the child protocol: run one measurement command with a timeout, give it
// a fresh result file (`--out FILE` is appended), and turn whatever happened (result, error
// JSON, hang, signal, nothing written, truncated JSON) into a Measurement. The child's stdout
// goes to our stderr so that only the table reaches stdout.
#pragma once

#include <string>
#include <vector>

#include "sched2cu/harness/results.h"

namespace sched2cu::harness {

Measurement run_measure_child(std::vector<std::string> argv, double timeout_s);

// A fresh, empty result file in the temporary directory (the caller removes it); throws
// sched2cu::Error when none can be created.
std::string make_result_file();

}  // namespace sched2cu::harness
