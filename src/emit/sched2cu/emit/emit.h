// `sched2cu emit`: lowers a schedule graph, op by op, into one self-contained CUDA C++ file for
// sm_90a (a warp-specialized __global__ kernel plus the extern "C" launcher of docs/abi.md).
// One algorithm for every kernel: it must never branch on kernel names or shapes, and a
// construct it cannot lower is a sched2cu::Error naming the op and its TTGIR line, never a
// silent drop. See docs/emitter.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sched2cu/emit/stmt.h"
#include "sched2cu/sgraph/schedule_graph.h"

namespace sched2cu::emit {

struct Options {
  // Path of the graph, for error messages only (the output never contains it).
  std::string graph_path = "schedule_graph.json";
};

// What a graph lowers to: the __global__ body as statements whose every name is resolved (the
// protocol checker, src/verify, reads exactly what the printer prints), between fixed text.
struct Program {
  std::string before;      // header comment, includes, the __global__ signature and "{"
  std::vector<Stmt> body;  // the kernel body
  std::string after;       // "}" and the host launcher
  int warpgroups = 0;
  std::vector<std::string> int_params;     // the kernel's integer parameters, as named in `body`
  std::map<int, long long> buffer_offset;  // schedule-graph buffer -> its shared-memory offset
};

// Validates the graph (sgraph::validate; its target's budgets against the target table,
// sgraph::check_target on targets/<target>.json; check_coverage) and lowers it; throws
// sched2cu::Error.
Program lower_program(const sgraph::ScheduleGraph& g, const Options& opts);
// The generated.cu text of a program.
std::string print_program(const Program& p);

// The generated.cu text (print_program of lower_program). Validates the graph first
// (sgraph::validate), then its target's budgets against the target table (sgraph::check_target),
// then that the op table lowers every op of the kernel (check_coverage); throws sched2cu::Error.
std::string emit_cuda(const sgraph::ScheduleGraph& g, const Options& opts);

// An op the op table has no lowering for: its TTGIR location ("file:line:col") and "op N 'name'
// (from kernel.py:L:C)".
struct UnsupportedOp {
  std::string where, what;
};
// Every such op of `kernel`, in op order (empty when the emitter covers the kernel).
std::vector<UnsupportedOp> unsupported_ops(const ttgir::Module& m, const std::string& kernel);
// Throws one sched2cu::Error naming the first such op and listing every other.
void check_coverage(const ttgir::Module& m, const std::string& kernel);
// docs/supported_ops.md: the op table's ops as Markdown, grouped by lowering.
std::string supported_ops_markdown();

}  // namespace sched2cu::emit
