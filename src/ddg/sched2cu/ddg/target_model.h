// The per-target cost model as data: op classes with their pipeline, issue stream and three
// distinct costs (latency, issue cost, engine occupancy) as small linear formulas of the op's
// tile shape and dtype, plus the budgets of the target. Loaded from targets/<target>.json at run
// time. Must never hard-code a cost in code: every number comes from the table.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace sched2cu::ddg {

enum class Pipe { TMA, TC, CUDA, SFU, NONE };
const char* pipe_name(Pipe p);
Pipe pipe_from_name(const std::string& s);  // throws sched2cu::Error

// What a formula is evaluated on. All sizes are of the op's main tensor: the loaded tile for a
// load, the stored tile for a store, the input of a reduction, the result otherwise.
struct OpShape {
  int64_t bytes = 0;         // tile bytes
  int64_t elems = 0;         // tile elements (whole CTA)
  int64_t elems_per_wg = 0;  // elements one consumer warpgroup handles (issue costs)
  int64_t flops = 0;         // 2*M*N*K for MMA, else 0
  std::string dtype;         // MMA operand dtype ("f16", "bf16", "f8E4M3FN", ...)
};

// value = clamp(base + per_kb*KB + per_kelem*E/1024 + per_kelem_wg*Ewg/1024 + per_tc_cycle*T,
//               min, max), rounded to the nearest integer; T = flops / tc_flop_per_clk[dtype].
struct Formula {
  double base = 0, per_kb = 0, per_kelem = 0, per_kelem_wg = 0, per_tc_cycle = 0;
  double min = 0, max = std::numeric_limits<double>::infinity();
  bool calibrated = false;
  bool present = false;  // written in the table (latency_tail defaults to latency)
  std::string note;
};

struct OpClass {
  std::string name;
  Pipe pipe = Pipe::NONE;
  std::string stream;  // issue stream ("producer", "consumer", "none"), from the table's streams
  std::vector<std::string> ops;
  enum class Operand { Any, Tensor, Scalar } operand = Operand::Any;
  Formula latency, latency_tail, issue, occupancy;
  int min_warps = 1;
};

struct Costs {
  int64_t latency = 0;       // issue -> result usable (dependence edges, lifetimes)
  int64_t latency_tail = 0;  // loaded (tail) latency: only sizes ring depth
  int64_t issue = 0;         // cycles blocking the issuing warp's stream (reservation table)
  int64_t occupancy = 0;     // cycles the engine is held (ResMII)
};

struct Budgets {
  int64_t smem_bytes_per_block = 0;
  int64_t regs_per_sm = 0;
  int max_regs_per_thread = 0;
  int setmaxnreg_granularity = 8;
  int setmaxnreg_min = 24;
  int setmaxnreg_max = 256;
  int threads_per_warpgroup = 128;
  int max_threads_per_block = 1024;
  int64_t mbarrier_bytes = 8;
  int producer_regs = 24;
  // Sustained HBM bytes per clock per SM with the whole chip streaming (the load-path model's
  // ceiling); 0 = unknown (optional in the table).
  double hbm_bytes_per_clk_sm = 0;
};

class TargetModel {
 public:
  static TargetModel load(const std::filesystem::path& path);  // throws sched2cu::Error
  static TargetModel from_json_text(const std::string& text, const std::string& file);
  // targets/sm_90a.json under SCHED2CU_SOURCE_DIR, else next to the binary
  // (<exe dir>/../targets or <exe dir>/targets); throws when none exists.
  static std::filesystem::path default_path(const std::string& target = "sm_90a");

  // The class of `op` (first class listing it whose operand kind matches), or nullptr.
  const OpClass* classify(const std::string& op, bool has_tensor) const;
  Costs costs(const OpClass& c, const OpShape& s) const;
  int64_t eval(const Formula& f, const OpShape& s) const;
  double tc_rate(const std::string& dtype) const;  // FLOP/clk/SM; throws for an unknown dtype

  std::string name;
  int schema_version = 0;
  std::string source;  // path it was loaded from
  Budgets budgets;
  std::map<std::string, double> tc_flop_per_clk;
  std::vector<OpClass> classes;
};

}  // namespace sched2cu::ddg
