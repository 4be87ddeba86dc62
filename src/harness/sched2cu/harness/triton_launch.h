// The Triton column inside the measurement child: the launch plan the parent wrote (Triton's
// compile metadata, its cubin, and the schedule graph's launch grid), the grid of one launch
// evaluated from the case's ABI arguments exactly as the generated launcher evaluates it, and one
// shape's launch with its packed parameters and Triton's global scratch buffer. It never
// compiles anything (the parent did, triton_build.h) and never decides a cell.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sched2cu/abi.h"
#include "sched2cu/bench/timing.h"
#include "sched2cu/bench/triton_module.h"
#include "sched2cu/sgraph/grid_expr.h"

namespace sched2cu::harness {

struct TritonPlan {
  std::string cubin;  // absolute path of the cached cubin
  bench::TritonKernelInfo kernel;
  std::vector<std::string> param_names;  // kernel.py's signature, in order (the ABI's order)
  int num_stages = 0, dump_num_stages = 0;
  std::vector<sgraph::GridExpr> grid;  // launch.grid of schedule_graph.json: x, y, z
  int ctas_per_sm = 1;                 // launch.ctas_per_sm: num_sms stands for this many per SM
  // What the kernel was compiled assuming of each argument (jit_hints); empty: nothing.
  std::vector<std::string> hints;
};

// Triton's JIT compiles a kernel per specialization of its arguments; the harness compiles one
// variant per specialization its shapes need, and each shape runs its own (shape_variant[i] is
// shape i's index into variants).
struct TritonPlans {
  std::vector<TritonPlan> variants;
  std::vector<int> shape_variant;
};

// What Triton 3.6's JIT assumes of each argument of a call (pure): for a parameter of `types`
// (DUMP's signature), "1" for an integer equal to 1 (compiled as a constexpr), "D" for an integer,
// or a pointer's address, that is a multiple of 16 (tt.divisibility 16), "" otherwise and for
// floats and tensor descriptors (BaseBackend.get_int_specialization / get_tensor_specialization
// and the constexpr 1 of native_specialize_impl). `args` are the launch-ABI arguments, a tensor
// descriptor's base, extents and strides included (bench::abi_positions). Throws
// sched2cu::Error when the counts differ.
std::vector<std::string> jit_hints(const std::vector<std::string>& types, const sched2cu_arg* args,
                                   int nargs);

// "D,D,,1": hints as triton_compile.py's --hints takes them (and as messages print them).
std::string hints_text(const std::vector<std::string>& hints);

// Parses a plan (triton_build.h writes it: the compile's result JSON plus "cubin", "grid" in the
// text form of grid_expr.h and "ctas_per_sm"). Throws sched2cu::Error naming the missing or
// malformed field.
TritonPlan triton_plan_from_json(const nlohmann::json& j);

// Parses the plans file the parent writes ({"variants": [plan, ...], "shape_variant": [i, ...]}).
// Throws sched2cu::Error for a malformed one or a shape naming no variant.
TritonPlans triton_plans_from_json(const nlohmann::json& j);

// The programs of one launch (pure): plan.grid with every parameter the value of its ABI
// argument (an integer parameter of the signature; its `.i`) and num_sms = ctas_per_sm *
// sm_count, as the generated launcher computes it, so that Triton runs the generated kernel's
// programs. Throws sched2cu::Error for a parameter that is not an integer parameter, too few
// arguments, or an extent beyond what CUDA launches (x < 2^31, y and z < 65536); an extent <= 0
// means no programs (the launch does nothing, like the generated launcher's).
std::array<long long, 3> triton_grid(const TritonPlan& plan, const sched2cu_arg* args, int nargs,
                                     int sm_count);

// Whether Triton's program count is free: the grid has a num_sms term, which the scheduler
// derives only from a kernel that strides by tl.num_programs, so any program count computes the
// same result (a kernel striding by a constexpr NUM_SMS gets a literal grid instead).
bool triton_grid_is_free(const TritonPlan& plan);

// The programs per SM a free grid is timed at (pure): 1, 2, 4, 8 and 16 where that many blocks of
// 32 * num_warps threads and `shared` bytes (plus the 1 KB each block reserves) fit on one SM of
// sm_90 (2048 threads, 228 KB), and the plan's own count in any case, without repeats.
std::vector<int> triton_ctas_candidates(int num_warps, long long shared, int plan_ctas_per_sm);

// The programs per SM (num_sms = that many x sm_count) at which Triton's kernel runs fastest at
// this shape: each of triton_ctas_candidates launched once and then timed side by side with
// `brief`. Triton's launcher leaves the grid to the user, and the generated kernel's occupancy
// is no reason to hold Triton's kernel to it. Returns plan.ctas_per_sm when the grid is not
// free. Throws what a launch throws.
int fastest_triton_ctas_per_sm(const bench::TritonModule& module, const TritonPlan& plan,
                               const sched2cu_arg* args, int nargs, int sm_count,
                               const bench::BenchOptions& brief);

// One shape's Triton launch: the parameters packed once, the grid, and the global (and
// profile) scratch Triton's kernel writes its device-side tensor descriptors to (size per program
// x programs, as Triton's launcher allocates it), freed on destruction.
class TritonLaunch {
 public:
  TritonLaunch(const bench::TritonModule& module, const TritonPlan& plan, const sched2cu_arg* args,
               int nargs, int sm_count);
  ~TritonLaunch();
  TritonLaunch(const TritonLaunch&) = delete;
  TritonLaunch& operator=(const TritonLaunch&) = delete;

  // On the legacy default stream, without synchronizing. Returns the CUresult (0 = success).
  int launch();
  const std::array<long long, 3>& grid() const { return grid_; }

 private:
  const bench::TritonModule& module_;
  bench::TritonParams params_;
  std::array<long long, 3> grid_{};
  void* global_scratch_ = nullptr;
  void* profile_scratch_ = nullptr;
};

}  // namespace sched2cu::harness
