// A reusable bench spec for row-major f16 GEMMs C[M,N] = A[M,K]·B[K,N] with f32 accumulation and
// the launch args (a, b, c, M, N, K): inputs N(0,1) with a fixed seed, an f32 cuBLAS reference,
// 2MNK TFLOPS, cuBLAS as the vendor baseline. A case's bench_spec.cpp only lists its shapes and
// tolerance. Compiled into specs by nvcc; must include nothing but the spec API.
#pragma once

#include "sched2cu/harness/bench_spec_api.h"

namespace sched2cu::spec {

class RowMajorF16Gemm : public BenchSpec {
 public:
  struct Mnk {
    long long m, n, k;
  };
  // `shapes` must outlive the spec (a static array in the case's spec).
  RowMajorF16Gemm(const Mnk* shapes, int count, double tol)
      : shapes_(shapes), count_(count), tol_(tol) {}

  double tolerance() const override { return tol_; }
  int num_shapes() const override { return count_; }
  Shape shape(int i) const override { return shape_of(shapes_[i].m, shapes_[i].n, shapes_[i].k); }
  Metric metric(const Shape& s) const override {
    return {2.0 * double(s.d[0]) * double(s.d[1]) * double(s.d[2]), 1e12, "TFLOPS"};
  }
  void declare(const Shape& s, Layout& l) const override {
    long long M = s.d[0], N = s.d[1], K = s.d[2];
    l.input("a", DType::f16, M * K);
    l.input("b", DType::f16, K * N);
    l.output("c", DType::f16, M * N);
  }
  int init_inputs(const Shape&, const Tensor* in, uint64_t seed, Host& h) const override {
    if (int rc = h.fill_normal(in[0], seed * 2 + 1, 0.f, 1.f)) return rc;
    return h.fill_normal(in[1], seed * 2 + 2, 0.f, 1.f);
  }
  int reference(const Shape& s, const Tensor* in, const Tensor* ref, Host& h) const override {
    return h.gemm_ref_f32(in[0], false, in[1], false, ref[0], s.d[0], s.d[1], s.d[2]);
  }
  int kernel_args(const Shape& s, const Tensor* in, const Tensor* out, ArgList& a) const override {
    a.ptr(in[0].ptr);
    a.ptr(in[1].ptr);
    a.ptr(out[0].ptr);
    a.i(s.d[0]);
    a.i(s.d[1]);
    a.i(s.d[2]);
    return 0;
  }
  bool has_vendor() const override { return true; }
  const char* vendor_name() const override { return "cuBLAS"; }
  int vendor(const Shape& s, const Tensor* in, const Tensor* out, Host& h) const override {
    return h.vendor_gemm(in[0], false, in[1], false, out[0], s.d[0], s.d[1], s.d[2]);
  }

 private:
  const Mnk* shapes_;
  int count_;
  double tol_;
};

}  // namespace sched2cu::spec
