// Device-side helpers shared by the bench specs and the GEMM bench tool: seeded random fills,
// NaN pre-fill, dtype conversion to f32 and the relative-error check. All work runs on the legacy
// default stream and is synchronous from the caller's view for the functions returning results.
// Never draw random numbers on the host: inputs must be identical for any launch configuration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sched2cu::bench {

// Element types a bench buffer can hold. Values match sched2cu::spec::DType in the bench-spec
// API header (checked by a static_assert in the harness).
enum class DType : int { f16 = 0, bf16 = 1, f32 = 2, e4m3 = 3, e5m2 = 4, i32 = 5 };

size_t dtype_size(DType t);
const char* dtype_name(DType t);
// Parses "f16", "bf16", "f32", "e4m3", "e5m2", "i32"; throws sched2cu::Error otherwise.
DType parse_dtype(const std::string& s);

// Fills n elements with N(mean, stddev) (Box-Muller over a counter-based hash of (seed, index)),
// rounded to the element type; i32 gets round(value). Deterministic for a given seed.
void fill_normal(void* p, size_t n, DType t, uint64_t seed, float mean = 0.f, float stddev = 1.f);
// Fills n elements with U[lo, hi).
void fill_uniform(void* p, size_t n, DType t, uint64_t seed, float lo, float hi);
// Fills n elements with one value (NaN allowed for floating types; fp8 e4m3 has a NaN encoding).
void fill_value(void* p, size_t n, DType t, double value);
inline void fill_nan(void* p, size_t n, DType t) { fill_value(p, n, t, __builtin_nan("")); }
// Converts n elements to f32 into `dst` (device memory of n floats).
void convert_to_f32(const void* src, DType t, float* dst, size_t n);
// dst[i] += f32(src[i]) for n elements (dst device f32); e.g. a bias added to an f32 GEMM
// reference. Synchronizes.
void add_to_f32(float* dst, const void* src, DType t, size_t n);

struct RelError {
  double rel = 0;           // max|a-b| / max(max|b|, 1e-9); NaN when any NaN was met
  double max_abs_diff = 0;  // max|a-b| over non-NaN pairs
  double max_abs_ref = 0;   // max|b| over non-NaN b
  long long nan_a = 0;      // NaN elements in a (the output under test)
  long long nan_b = 0;      // NaN elements in b (the reference)
};

// Relative error of `a` against `b` (both n elements), computed in f32 on the device.
RelError rel_error(const void* a, DType ta, const void* b, DType tb, size_t n);

// Reads one element back as double (for tests and diagnostics).
double read_element(const void* p, DType t, size_t index);

}  // namespace sched2cu::bench
