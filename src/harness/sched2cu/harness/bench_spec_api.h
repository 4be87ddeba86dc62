// The bench-spec API: what a case's bench_spec.cpp implements and what the harness offers it.
// The harness compiles bench_spec.cpp with nvcc (this directory and runtime/ on the include
// path) into its own shared object, loads it in a measurement child and calls the factory that
// SCHED2CU_BENCH_SPEC defines. Header-only and self-contained: a spec links nothing of sched2cu.
// Only plain data and virtual calls cross the module boundary: never exceptions, std::string or
// containers, because the spec and the harness may use different C++ runtimes.
// Bump SCHED2CU_SPEC_API_VERSION with any layout or signature change. See docs/adding_a_case.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sched2cu/abi.h"

// 2: Host::add_to_f32 and Host::vendor_addmm. 3: BenchSpec::vendor_script.
// 4: BenchSpec::check_only and BenchSpec::roofline_copy_bytes.
#define SCHED2CU_SPEC_API_VERSION 4

namespace sched2cu::spec {

// Element types; values equal sched2cu::bench::DType.
enum class DType : int { f16 = 0, bf16 = 1, f32 = 2, e4m3 = 3, e5m2 = 4, i32 = 5 };

inline size_t dtype_size(DType t) {
  return t == DType::f16 || t == DType::bf16 ? 2 : (t == DType::f32 || t == DType::i32) ? 4 : 1;
}

// One problem size: up to 6 integers, shown as "d0xd1x..." in the JSON (e.g. M, N, K).
struct Shape {
  int rank = 0;
  long long d[6] = {};
};

inline Shape shape_of(long long a, long long b = -1, long long c = -1, long long e = -1) {
  Shape s;
  for (long long v : {a, b, c, e}) {
    if (v >= 0) s.d[s.rank++] = v;
  }
  return s;
}

// Throughput = work / seconds / scale, shown in `unit`: {2.0*M*N*K, 1e12, "TFLOPS"} or
// {bytes, 1e9, "GB/s"}. `unit` must be a string literal.
struct Metric {
  double work = 0;
  double scale = 1;
  const char* unit = "";
};

// A device buffer the harness allocated for the spec (inputs, or one kernel's outputs).
struct Tensor {
  void* ptr = nullptr;
  DType dtype = DType::f32;
  long long numel = 0;
  const char* name = "";
};

constexpr int kMaxBuffers = 16;

struct BufferDecl {
  char name[32] = {};
  DType dtype = DType::f32;
  long long numel = 0;
  double tol = 0;  // outputs only: 0 = the spec's tolerance()
};

// Filled by BenchSpec::declare: the inputs (allocated once per shape, shared by every kernel)
// and the outputs. The harness allocates a separate set of outputs for the generated, the
// hand-written and the vendor kernel, plus an f32 set for the reference, and pre-fills every
// kernel output with NaN, so no two kernels ever write the same buffer.
struct Layout {
  int n_inputs = 0;
  int n_outputs = 0;
  BufferDecl inputs[kMaxBuffers];
  BufferDecl outputs[kMaxBuffers];

  void input(const char* name, DType t, long long numel) {
    add(inputs, n_inputs, name, t, numel, 0);
  }
  void output(const char* name, DType t, long long numel, double tol = 0) {
    add(outputs, n_outputs, name, t, numel, tol);
  }

 private:
  static void add(BufferDecl* list, int& n, const char* name, DType t, long long numel,
                  double tol) {
    if (n >= kMaxBuffers) return;  // the harness reports an over-full layout (n stays at max)
    std::strncpy(list[n].name, name, sizeof(list[n].name) - 1);
    list[n].dtype = t;
    list[n].numel = numel;
    list[n].tol = tol;
    ++n;
  }
};

constexpr int kMaxArgs = 64;

// The launch-ABI argument list for one kernel call (see runtime/sched2cu/abi.h).
struct ArgList {
  int n = 0;
  sched2cu_arg a[kMaxArgs];
  void ptr(const void* p) { push().ptr = const_cast<void*>(p); }
  void i(long long v) { push().i = v; }
  void f(double v) { push().f = v; }

 private:
  sched2cu_arg& push() { return a[n < kMaxArgs ? n++ : kMaxArgs - 1]; }
};

// Services the harness implements for specs. Errors are reported by return value (non-zero)
// and the message is kept by the harness; a spec returns the non-zero status upward.
class Host {
 public:
  virtual int sm_count() const = 0;
  // Seeded device-side random fills (deterministic for a given seed, any launch configuration).
  virtual int fill_normal(const Tensor& t, uint64_t seed, float mean, float stddev) = 0;
  virtual int fill_uniform(const Tensor& t, uint64_t seed, float lo, float hi) = 0;
  virtual int fill_value(const Tensor& t, double value) = 0;
  // out_f32[M,N] = A·B in f32 (cuBLAS, no TF32). A is [M,K] row-major ([K,M] if a_trans), B is
  // [K,N] row-major ([N,K] if b_trans). Operands of any DType.
  virtual int gemm_ref_f32(const Tensor& a, bool a_trans, const Tensor& b, bool b_trans,
                           const Tensor& out_f32, long long M, long long N, long long K) = 0;
  // Vendor baseline GEMM (cuBLAS, f32 accumulate) into `out` (f16, bf16 or f32); asynchronous.
  virtual int vendor_gemm(const Tensor& a, bool a_trans, const Tensor& b, bool b_trans,
                          const Tensor& out, long long M, long long N, long long K) = 0;
  // dst_f32[i] += f32(src[i]) for every element (dst f32, src of any DType, equal numel): e.g. a
  // bias added to the f32 reference of gemm_ref_f32. Synchronous.
  virtual int add_to_f32(const Tensor& dst_f32, const Tensor& src) = 0;
  // Vendor baseline addmm (cuBLASLt, f32 compute): out[M,N] = A·B + bias[M,N] out of place
  // (beta = 1, C = bias, D = out); A and B f16 or bf16 of one type (layouts as gemm_ref_f32),
  // bias and out of one DType (f16, bf16 or f32). Asynchronous.
  virtual int vendor_addmm(const Tensor& a, bool a_trans, const Tensor& b, bool b_trans,
                           const Tensor& bias, const Tensor& out, long long M, long long N,
                           long long K) = 0;
  // Records an error message for the status the spec is about to return (copied).
  virtual int fail(const char* message) = 0;

 protected:
  ~Host() = default;
};

// A case's benchmark: shapes, tolerance, metric, buffers, inputs, reference and launches.
// Every method is called in the measurement child with a current CUDA context; methods
// returning int return 0 on success.
class BenchSpec {
 public:
  virtual ~BenchSpec() = default;
  // Relative-error tolerance: max|out-ref| / max(max|ref|, 1e-9) <= tol (per output overridable).
  virtual double tolerance() const = 0;
  virtual int num_shapes() const = 0;
  virtual Shape shape(int index) const = 0;
  virtual Metric metric(const Shape& s) const = 0;
  virtual void declare(const Shape& s, Layout& layout) const = 0;
  // Fills the inputs; `seed` is fixed per shape by the harness (same on both sides of compare).
  virtual int init_inputs(const Shape& s, const Tensor* inputs, uint64_t seed,
                          Host& host) const = 0;
  // Writes the f32 reference of every output (ref[i] is f32 with outputs[i].numel elements).
  virtual int reference(const Shape& s, const Tensor* inputs, const Tensor* ref,
                        Host& host) const = 0;
  // The ABI arguments of a generated or hand-written kernel writing into `outputs`.
  virtual int kernel_args(const Shape& s, const Tensor* inputs, const Tensor* outputs,
                          ArgList& args) const = 0;
  // Vendor baseline (cuBLAS) writing into `outputs`; asynchronous. Name it in vendor_name().
  virtual bool has_vendor() const { return false; }
  virtual const char* vendor_name() const { return ""; }
  virtual int vendor(const Shape& s, const Tensor* inputs, const Tensor* outputs,
                     Host& host) const {
    (void)s, (void)inputs, (void)outputs;
    return host.fail("this spec has no vendor baseline");
  }
  // Or a vendor baseline measured by a Python script instead (a library with no practical C++
  // route, e.g. cuDNN's fused attention through PyTorch): its path relative to the case
  // directory; "" for none. The harness runs it in its own child in bench mode after this spec's
  // measurement (docs/harness.md, "Vendor scripts"); a spec names at most one of the two vendors.
  virtual const char* vendor_script() const { return ""; }
  // A correctness-only shape (an edge such as a row count that is not a multiple of a tile):
  // checked in every mode like any other, never timed, left out of the throughput cells and of a
  // vendor script's shapes; a failure still shows (docs/harness.md, "Check-only shapes").
  virtual bool check_only(int index) const {
    (void)index;
    return false;
  }
  // Roofline baseline of a memory-bound case: when > 0, `bench` also times a device-to-device
  // cudaMemcpyAsync of this many bytes (it reads and writes them: choose the bytes so that the
  // copy moves what metric() counts), interleaved with the kernels, and shows it with the spec's
  // metric as the `copy` column and the gen/copy, hw/copy ratios (1.00x = the copy's speed).
  // 0 (the default): no copy column for this case.
  virtual long long roofline_copy_bytes(const Shape& s) const {
    (void)s;
    return 0;
  }
  // true: the kernels accumulate into their outputs (atomics), so the harness zeroes every
  // kernel's outputs before each of its calls, checked and timed (the zeroing counts in the
  // time, as it would in the user's program), instead of leaving the NaN pre-fill in place.
  virtual bool zero_outputs() const { return false; }
};

}  // namespace sched2cu::spec

// Defines the two entry points the harness looks up in the spec's shared object. The replacement
// is two function definitions, not an expression, so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SCHED2CU_BENCH_SPEC(SpecClass)                                                 \
  extern "C" int sched2cu_spec_api_version(void) { return SCHED2CU_SPEC_API_VERSION; } \
  extern "C" sched2cu::spec::BenchSpec* sched2cu_spec_create(void) { return new SpecClass(); }
// NOLINTEND(bugprone-macro-parentheses)
