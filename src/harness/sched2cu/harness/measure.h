// The measurement child: loads a compiled bench spec, the generated / hand-written kernel
// modules and, for the Triton column, Triton's compile of the case's kernel.py, and for every
// shape fills inputs, computes the reference, checks every output of every kernel (each kernel
// writes its own NaN-filled buffers), then times them. Runs inside `sched2cu __measure`, one
// process per measurement, so that a fault or a hang costs one cell. It writes one JSON object
// (see docs/harness.md) and never prints to stdout.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sched2cu/harness/bench_spec_api.h"

namespace sched2cu::harness {

enum class MeasureMode { check, compare, bench };

struct MeasureRequest {
  std::string spec_so;
  std::string gen_so;  // empty: no generated kernel
  std::string hw_so;   // empty: no hand-written kernel
  // Triton's compile of kernel.py: the launch plan file (triton_launch.h); empty: none. Its
  // failures are the Triton cell's alone where the CUDA context survives them ("triton_error"),
  // else the child fails with "triton_failed" so that the parent measures again without it.
  std::string triton_plan;
  MeasureMode mode = MeasureMode::compare;
  unsigned long long seed = 0;
  double warmup_ms = 50, rep_ms = 200;
  std::string label;  // progress prefix on stderr
};

// Runs the measurement in this process. Never throws: errors become {"error": "..."}.
nlohmann::json run_measurement(const MeasureRequest& req);

// {"name","cc","major","minor","sm_count","pci_bus_id","memory_bytes","shared_optin_bytes"} of the
// current device, or {"error": ...}.
nlohmann::json probe_device();

// Argument checks of the Host services that take several tensors (pure, no GPU): empty when the
// call is well-formed, else the message the spec's call fails with.
std::string add_to_f32_error(const spec::Tensor& dst_f32, const spec::Tensor& src);
std::string vendor_addmm_error(const spec::Tensor& a, const spec::Tensor& b,
                               const spec::Tensor& bias, const spec::Tensor& out, long long M,
                               long long N, long long K);

MeasureMode parse_mode(const std::string& s);
const char* mode_name(MeasureMode m);

}  // namespace sched2cu::harness
