// Loading a compiled bench spec (bench_spec.cpp built to a shared object) into this process, and
// what a spec says of its shapes' launch arguments without a GPU. Used by the measurement child
// (measure.h) and by `__measure --shape-args`, the child the parent asks for the arguments Triton's
// JIT would specialize on (triton_build.h). Never allocates device memory or calls the GPU.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sched2cu/harness/bench_spec_api.h"

namespace sched2cu::harness {

// dlopens `spec_so` (kept loaded for the process), checks its spec API version and creates the
// spec. Throws sched2cu::Error naming what failed.
std::unique_ptr<spec::BenchSpec> load_bench_spec(const std::string& spec_so);

// "4096x4096x4096": a shape's extents joined by 'x'.
std::string shape_label(const spec::Shape& s);

// {"shapes": [{"label": L, "args": [bits, ...]}, ...]}: every shape's kernel_args with each
// buffer at a stand-in address (distinct, 256-byte aligned like cudaMalloc's, never dereferenced:
// kernel_args only packs them), each argument's 64 bits as a signed integer. Pointers keep their
// alignment modulo 256, integers their values, floats their bits. Never throws: errors become
// {"error": "..."}.
nlohmann::json list_shape_args(const std::string& spec_so);

}  // namespace sched2cu::harness
