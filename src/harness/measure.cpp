// The measurement child's work (see measure.h). Host implements the spec API's services over
// sched2cu_bench. Buffers are freed per shape; any CUDA error ends the measurement with an error
// naming the kernel and shape, since a sticky fault leaves the context unusable. The one
// exception is Triton's kernel: an error of its own that leaves the context usable drops it
// from the measurement ("triton_error"), the others' figures unharmed.
#include "sched2cu/harness/measure.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "sched2cu/bench/blas.h"
#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/bench/device_ops.h"
#include "sched2cu/bench/gpu.h"
#include "sched2cu/bench/kernel_module.h"
#include "sched2cu/bench/timing.h"
#include "sched2cu/bench/triton_module.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/bench_spec_api.h"
#include "sched2cu/harness/results.h"
#include "sched2cu/harness/spec_loader.h"
#include "sched2cu/harness/triton_launch.h"

namespace sched2cu::harness {

namespace b = sched2cu::bench;
namespace sp = sched2cu::spec;
using nlohmann::json;

static_assert(static_cast<int>(sp::DType::e4m3) == static_cast<int>(b::DType::e4m3) &&
              static_cast<int>(sp::DType::i32) == static_cast<int>(b::DType::i32));

MeasureMode parse_mode(const std::string& s) {
  if (s == "check") return MeasureMode::check;
  if (s == "bench") return MeasureMode::bench;
  if (s == "compare") return MeasureMode::compare;
  throw Error("unknown measurement mode '" + s + "'");
}

const char* mode_name(MeasureMode m) {
  return m == MeasureMode::check ? "check" : m == MeasureMode::bench ? "bench" : "compare";
}

std::string add_to_f32_error(const sp::Tensor& dst, const sp::Tensor& src) {
  if (dst.dtype != sp::DType::f32) return "add_to_f32: the destination must be f32";
  if (src.numel != dst.numel)
    return "add_to_f32: " + std::to_string(src.numel) + " elements added to " +
           std::to_string(dst.numel);
  return "";
}

std::string vendor_addmm_error(const sp::Tensor& a, const sp::Tensor& bm, const sp::Tensor& bias,
                               const sp::Tensor& out, long long M, long long N, long long K) {
  const auto f16ish = [](sp::DType t) { return t == sp::DType::f16 || t == sp::DType::bf16; };
  if (M <= 0 || N <= 0 || K <= 0) return "vendor_addmm: M, N and K must be positive";
  if (!f16ish(a.dtype) || a.dtype != bm.dtype)
    return "vendor_addmm: A and B must both be f16 or both bf16";
  if (!(f16ish(out.dtype) || out.dtype == sp::DType::f32) || bias.dtype != out.dtype)
    return "vendor_addmm: bias and out must be of one type (f16, bf16 or f32)";
  if (a.numel < M * K || bm.numel < K * N || bias.numel < M * N || out.numel < M * N)
    return "vendor_addmm: a buffer is smaller than the GEMM shape";
  return "";
}

namespace {

// A failure that came with Triton's kernel and left the CUDA context unusable (or happened while
// it was timed with the others): the child fails with "triton_failed", and the parent measures
// again without Triton (triton_build.h).
struct TritonFault : Error {
  using Error::Error;
};

b::DType bt(sp::DType t) { return static_cast<b::DType>(static_cast<int>(t)); }

class HostImpl final : public sp::Host {
 public:
  HostImpl(int sms, b::Blas& blas) : sms_(sms), blas_(blas) {}
  int sm_count() const override { return sms_; }
  int fill_normal(const sp::Tensor& t, uint64_t seed, float mean, float sd) override {
    return guard([&] { b::fill_normal(t.ptr, size_t(t.numel), bt(t.dtype), seed, mean, sd); });
  }
  int fill_uniform(const sp::Tensor& t, uint64_t seed, float lo, float hi) override {
    return guard([&] { b::fill_uniform(t.ptr, size_t(t.numel), bt(t.dtype), seed, lo, hi); });
  }
  int fill_value(const sp::Tensor& t, double v) override {
    return guard([&] { b::fill_value(t.ptr, size_t(t.numel), bt(t.dtype), v); });
  }
  int gemm_ref_f32(const sp::Tensor& a, bool at, const sp::Tensor& bm, bool btr,
                   const sp::Tensor& out, long long M, long long N, long long K) override {
    if (out.dtype != sp::DType::f32) return fail("gemm_ref_f32: output must be f32");
    if (a.numel < M * K || bm.numel < K * N || out.numel < M * N)
      return fail("gemm_ref_f32: a buffer is smaller than the GEMM shape");
    return guard([&] {
      blas_.gemm_ref_f32({a.ptr, bt(a.dtype), at}, {bm.ptr, bt(bm.dtype), btr},
                         static_cast<float*>(out.ptr), M, N, K);
    });
  }
  int vendor_gemm(const sp::Tensor& a, bool at, const sp::Tensor& bm, bool btr,
                  const sp::Tensor& out, long long M, long long N, long long K) override {
    int s = blas_.gemm({a.ptr, bt(a.dtype), at}, {bm.ptr, bt(bm.dtype), btr}, out.ptr,
                       bt(out.dtype), M, N, K);
    if (s != 0) return fail(("cuBLAS GEMM: " + b::Blas::status_name(s)).c_str());
    return 0;
  }
  int add_to_f32(const sp::Tensor& dst, const sp::Tensor& src) override {
    std::string err = add_to_f32_error(dst, src);
    if (!err.empty()) return fail(err.c_str());
    return guard([&] {
      b::add_to_f32(static_cast<float*>(dst.ptr), src.ptr, bt(src.dtype), size_t(dst.numel));
    });
  }
  int vendor_addmm(const sp::Tensor& a, bool at, const sp::Tensor& bm, bool btr,
                   const sp::Tensor& bias, const sp::Tensor& out, long long M, long long N,
                   long long K) override {
    std::string err = vendor_addmm_error(a, bm, bias, out, M, N, K);
    if (!err.empty()) return fail(err.c_str());
    int s = blas_.addmm({a.ptr, bt(a.dtype), at}, {bm.ptr, bt(bm.dtype), btr}, bias.ptr, out.ptr,
                        bt(out.dtype), M, N, K);
    if (s != 0) return fail(("cuBLASLt addmm: " + b::Blas::status_name(s)).c_str());
    return 0;
  }
  int fail(const char* m) override {
    msg_ = m ? m : "unknown spec error";
    return 1;
  }
  std::string take_message() {
    std::string m = msg_.empty() ? "the spec reported an error" : msg_;
    msg_.clear();
    return m;
  }

 private:
  template <class F>
  int guard(F&& f) {
    try {
      f();
      return 0;
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  int sms_;
  b::Blas& blas_;
  std::string msg_;
};

struct DeviceBuffers {
  std::vector<void*> ptrs;
  std::vector<sp::Tensor> tensors;
  DeviceBuffers(const sp::BufferDecl* decl, int n, bool as_f32, bool nan_fill) {
    for (int i = 0; i < n; ++i) {
      sp::Tensor t;
      t.dtype = as_f32 ? sp::DType::f32 : decl[i].dtype;
      t.numel = decl[i].numel;
      t.name = decl[i].name;
      size_t bytes = size_t(t.numel) * sp::dtype_size(t.dtype);
      void* p = nullptr;
      b::check_cuda(
          cudaMalloc(&p, bytes ? bytes : 1),
          std::string("allocating ") + decl[i].name + " (" + std::to_string(bytes) + " bytes)");
      ptrs.push_back(p);
      t.ptr = p;
      if (nan_fill) b::fill_nan(p, size_t(t.numel), bt(t.dtype));
      tensors.push_back(t);
    }
  }
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  const sp::Tensor* data() const { return tensors.empty() ? nullptr : tensors.data(); }
  // Every buffer set to zero on the legacy default stream (the kernels' and the timing's).
  int zero() const {
    for (const auto& t : tensors) {
      const cudaError_t e =
          cudaMemsetAsync(t.ptr, 0, size_t(t.numel) * sp::dtype_size(t.dtype), nullptr);
      if (e != cudaSuccess) return static_cast<int>(e);
    }
    return 0;
  }
};

// The roofline copy's two device buffers (BenchSpec::roofline_copy_bytes), freed on every path.
struct CopyBuffers {
  void* src = nullptr;
  void* dst = nullptr;
  size_t bytes = 0;
  explicit CopyBuffers(size_t n) : bytes(n) {
    const std::string what = " the roofline copy's buffers (2 x " + std::to_string(n) + " bytes)";
    b::check_cuda(cudaMalloc(&src, n), "allocating" + what);
    b::check_cuda(cudaMalloc(&dst, n), "allocating" + what);
    b::check_cuda(cudaMemset(src, 0, n), "filling" + what);
  }
  ~CopyBuffers() {
    if (src) cudaFree(src);
    if (dst) cudaFree(dst);
  }
  CopyBuffers(const CopyBuffers&) = delete;
  CopyBuffers& operator=(const CopyBuffers&) = delete;
  // On the legacy default stream, like the kernels and the timing events.
  int launch() const {
    return static_cast<int>(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nullptr));
  }
};

// The kernel a shape runs was compiled for the JIT's specialization of the arguments the parent
// listed without a GPU; the real ones must specialize alike (a pointer assumed 16-byte aligned
// must be, an argument compiled as 1 must be 1), or Triton's figure would be some other call's.
void check_triton_hints(const TritonPlan& plan, const sp::ArgList& args, const std::string& at) {
  if (plan.hints.empty()) return;
  const std::vector<std::string> h = jit_hints(plan.kernel.param_types, args.a, args.n);
  if (h == plan.hints) return;
  throw Error("the arguments at " + at + " specialize as [" + hints_text(h) +
              "], Triton's kernel was compiled for [" + hints_text(plan.hints) + "]" +
              " (from the arguments listed without a GPU)");
}

json rel_json(double v) { return std::isnan(v) ? json() : json(v); }

json timing_json(const b::TimingStats& t, const sp::Metric& m) {
  return {{"median_ms", t.median_ms},
          {"min_ms", t.min_ms},
          {"max_ms", t.max_ms},
          {"count", t.count},
          {"warmup", t.warmup},
          {"estimate_ms", t.estimate_ms},
          {"throughput", m.work / (t.median_ms * 1e-3) / m.scale}};
}

void progress(const MeasureRequest& req, const std::string& msg) {
  std::fprintf(stderr, "  %s%s\n", req.label.empty() ? "" : (req.label + ": ").c_str(),
               msg.c_str());
  std::fflush(stderr);
}

}  // namespace

json probe_device() {
  try {
    b::DeviceInfo d = b::query_device();
    return {{"name", d.name},
            {"cc", std::to_string(d.major) + "." + std::to_string(d.minor)},
            {"major", d.major},
            {"minor", d.minor},
            {"sm_count", d.sm_count},
            {"pci_bus_id", d.pci_bus_id},
            {"memory_bytes", d.memory_bytes},
            {"shared_optin_bytes", d.shared_optin_bytes}};
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

json run_measurement(const MeasureRequest& req) {
  json out;
  std::string where = "setup";
  try {
    b::DeviceInfo dev = b::query_device();
    b::require_hopper(dev);
    out["device"] = {{"name", dev.name},
                     {"cc", std::to_string(dev.major) + "." + std::to_string(dev.minor)},
                     {"sm_count", dev.sm_count}};
    out["mode"] = mode_name(req.mode);
    out["seed"] = req.seed;

    std::unique_ptr<sp::BenchSpec> spec = load_bench_spec(req.spec_so);

    std::unique_ptr<b::KernelModule> gen, hw;
    where = "loading generated.cu";
    if (!req.gen_so.empty()) gen = std::make_unique<b::KernelModule>(req.gen_so);
    where = "loading handwritten.cu";
    if (!req.hw_so.empty()) hw = std::make_unique<b::KernelModule>(req.hw_so);
    // The Triton column: a plan or cubin that does not load is Triton's cell alone. One module
    // per variant (the JIT's specializations the shapes need), all loaded before any shape.
    std::unique_ptr<TritonPlans> tplans;
    std::vector<std::unique_ptr<b::TritonModule>> tmodules;
    std::string triton_error;
    if (!req.triton_plan.empty()) {
      try {
        tplans = std::make_unique<TritonPlans>(
            triton_plans_from_json(json::parse(read_file(req.triton_plan))));
        if (static_cast<int>(tplans->shape_variant.size()) != spec->num_shapes())
          throw Error("the launch plans cover " + std::to_string(tplans->shape_variant.size()) +
                      " shapes, the spec has " + std::to_string(spec->num_shapes()));
        // The driver API loads into the current context: make the runtime's primary one.
        b::check_cuda(cudaFree(nullptr), "creating the CUDA context");
        for (const TritonPlan& v : tplans->variants)
          tmodules.push_back(std::make_unique<b::TritonModule>(v.cubin, v.kernel));
      } catch (const std::exception& e) {
        tmodules.clear();
        triton_error = std::string("loading Triton's kernel: ") + e.what();
      }
    }
    bool timing = req.mode != MeasureMode::check;
    const char* script = spec->vendor_script();
    bool has_script = script && *script;
    if (has_script && spec->has_vendor())
      throw Error("the bench spec names both a C++ vendor baseline and a vendor script");
    bool want_vendor = req.mode == MeasureMode::bench && spec->has_vendor();
    bool want_script = req.mode == MeasureMode::bench && has_script;
    out["has_generated"] = bool(gen);
    out["has_hw"] = bool(hw);
    out["has_triton"] = !tmodules.empty();
    if (tplans && !tplans->variants.empty()) {
      const TritonPlan& p0 = tplans->variants[0];
      json grid = json::array();
      for (const auto& g : p0.grid) grid.push_back(sgraph::to_text(g));
      // The fewest stages any variant fits in: what the table's "(stages N)" tells.
      int stages = p0.num_stages;
      json variants = json::array();
      for (const TritonPlan& v : tplans->variants) {
        stages = std::min(stages, v.num_stages);
        variants.push_back(
            {{"hints", v.hints}, {"num_stages", v.num_stages}, {"shared", v.kernel.shared}});
      }
      out["triton"] = {{"kernel", p0.kernel.name},
                       {"num_stages", stages},
                       {"dump_num_stages", p0.dump_num_stages},
                       {"num_warps", p0.kernel.num_warps},
                       {"shared", p0.kernel.shared},
                       {"grid", grid},
                       {"ctas_per_sm", p0.ctas_per_sm},
                       {"variants", variants}};
    }
    out["vendor_name"] = want_vendor || want_script ? spec->vendor_name() : "";
    // The parent runs the script after this child (vendor_script.h); we only name it.
    if (want_script) out["vendor_script"] = script;
    out["tol"] = spec->tolerance();

    b::Blas blas;
    HostImpl host(dev.sm_count, blas);
    b::BenchOptions bo;
    bo.warmup_ms = req.warmup_ms;
    bo.rep_ms = req.rep_ms;
    auto spec_call = [&](int rc, const std::string& what) {
      if (rc != 0) throw Error(what + ": " + host.take_message());
    };

    json shapes = json::array();
    bool any_copy = false;
    int nshapes = spec->num_shapes();
    for (int si = 0; si < nshapes; ++si) {
      sp::Shape s = spec->shape(si);
      std::string label = shape_label(s);
      where = "shape " + label;
      const bool timed_shape = !spec->check_only(si);
      // The roofline copy: bench only (compare's cells are gen/hw ratios, check times nothing).
      const long long copy_bytes =
          req.mode == MeasureMode::bench && timed_shape ? spec->roofline_copy_bytes(s) : 0;
      if (copy_bytes < 0) throw Error("roofline_copy_bytes is negative at " + label);
      sp::Metric metric = spec->metric(s);
      sp::Layout layout;
      spec->declare(s, layout);
      if (layout.n_outputs == 0) throw Error("the spec declares no outputs for " + label);
      DeviceBuffers in(layout.inputs, layout.n_inputs, false, false);
      DeviceBuffers ref(layout.outputs, layout.n_outputs, true, true);
      std::unique_ptr<DeviceBuffers> gout, hout, vout;
      uint64_t seed = req.seed * 1000003ull + uint64_t(si);
      spec_call(spec->init_inputs(s, in.data(), seed, host), "init_inputs at " + label);
      spec_call(spec->reference(s, in.data(), ref.data(), host), "reference at " + label);
      b::check_cuda(cudaDeviceSynchronize(), "reference at " + label);

      auto launcher = [&](b::KernelModule& k, DeviceBuffers& o, const char* who) {
        auto args = std::make_shared<sp::ArgList>();
        spec_call(spec->kernel_args(s, in.data(), o.data(), *args), std::string(who) + " args");
        if (args->n >= sp::kMaxArgs) throw Error("too many kernel arguments");
        if (spec->zero_outputs())
          return std::function<int()>([&k, &o, args] {
            const int rc = o.zero();
            return rc != 0 ? rc : k.launch(args->a, args->n, nullptr);
          });
        return std::function<int()>([&k, args] { return k.launch(args->a, args->n, nullptr); });
      };
      auto run_once = [&](const std::function<int()>& fn, const std::string& who) {
        int rc = fn();
        if (rc != 0) {
          std::string msg = who + " launch at ";
          msg += label;
          msg += " returned ";
          msg += b::cuda_error_name(rc);
          throw Error(msg);
        }
        std::string at = who + " at ";
        at += label;
        b::check_cuda(cudaDeviceSynchronize(), at);
      };
      json outputs = json::array();
      bool ok = true, hw_ok = true, vendor_ok = true, triton_ok = true;
      std::function<int()> gen_fn, hw_fn, vendor_fn, triton_fn;
      std::unique_ptr<DeviceBuffers> tout;
      std::unique_ptr<TritonLaunch> tlaunch;
      int triton_per_sm = 0;  // the programs per SM chosen for a free grid, else 0
      json triton_hints;      // the JIT specialization Triton's kernel ran with here
      if (gen) {
        gout = std::make_unique<DeviceBuffers>(layout.outputs, layout.n_outputs, false, true);
        gen_fn = launcher(*gen, *gout, "generated");
        run_once(gen_fn, "generated");
      }
      if (hw) {
        hout = std::make_unique<DeviceBuffers>(layout.outputs, layout.n_outputs, false, true);
        hw_fn = launcher(*hw, *hout, "handwritten");
        run_once(hw_fn, "handwritten");
      }
      if (!tmodules.empty()) {
        where = "Triton at " + label;
        try {
          tout = std::make_unique<DeviceBuffers>(layout.outputs, layout.n_outputs, false, true);
          sp::ArgList args;
          spec_call(spec->kernel_args(s, in.data(), tout->data(), args), "Triton args");
          if (args.n >= sp::kMaxArgs) throw Error("too many kernel arguments");
          const auto vi = static_cast<size_t>(tplans->shape_variant[static_cast<size_t>(si)]);
          TritonPlan plan = tplans->variants[vi];
          const b::TritonModule& triton = *tmodules[vi];
          check_triton_hints(plan, args, label);
          triton_hints = plan.hints;
          if (timing && timed_shape && triton_grid_is_free(plan)) {
            b::BenchOptions brief = bo;
            brief.warmup_ms = std::min(bo.warmup_ms, 5.0);
            brief.rep_ms = std::min(bo.rep_ms, 20.0);
            plan.ctas_per_sm =
                fastest_triton_ctas_per_sm(triton, plan, args.a, args.n, dev.sm_count, brief);
            triton_per_sm = plan.ctas_per_sm;
          }
          tlaunch = std::make_unique<TritonLaunch>(triton, plan, args.a, args.n, dev.sm_count);
          const bool zero = spec->zero_outputs();
          triton_fn = [t = tlaunch.get(), o = tout.get(), zero, label] {
            if (zero)
              b::check_cuda(static_cast<cudaError_t>(o->zero()), "zeroing Triton's outputs");
            const int rc = t->launch();
            if (rc != 0)
              throw Error("Triton launch at " + label + " returned " +
                          b::TritonModule::error_name(rc));
            return 0;
          };
          run_once(triton_fn, "Triton");
        } catch (const std::exception& e) {
          triton_fn = nullptr;
          tlaunch.reset();
          tout.reset();
          // A launch refused, a spec argument Triton cannot take: the context survives, and
          // Triton leaves this measurement alone. A fault does not: the child fails for the
          // parent to measure again without Triton.
          cudaGetLastError();
          if (cudaDeviceSynchronize() != cudaSuccess) throw TritonFault(e.what());
          triton_error = e.what();
          tmodules.clear();
          std::string note = label + ": Triton dropped: ";
          note += triton_error;
          progress(req, note);
        }
        where = "shape " + label;
      }
      if (want_vendor) {
        vout = std::make_unique<DeviceBuffers>(layout.outputs, layout.n_outputs, false, true);
        vendor_fn = [&, vo = vout.get()] {
          int rc = spec->vendor(s, in.data(), vo->data(), host);
          return rc == 0 ? 0 : static_cast<int>(cudaErrorUnknown);
        };
        int rc = spec->vendor(s, in.data(), vout->data(), host);
        spec_call(rc, "vendor at " + label);
        b::check_cuda(cudaDeviceSynchronize(), "vendor at " + label);
      }
      for (int oi = 0; oi < layout.n_outputs; ++oi) {
        const sp::BufferDecl& d = layout.outputs[oi];
        double tol = d.tol > 0 ? d.tol : spec->tolerance();
        size_t n = size_t(d.numel);
        json o = {{"name", d.name}, {"tol", tol}};
        b::RelError rr = b::rel_error(ref.ptrs[oi], b::DType::f32, ref.ptrs[oi], b::DType::f32, n);
        if (rr.nan_b)
          throw Error(std::string("the reference of ") + d.name + " has NaN at " + label);
        if (gen) {
          b::RelError e = b::rel_error(gout->ptrs[oi], bt(d.dtype), ref.ptrs[oi], b::DType::f32, n);
          o["rel_ref"] = rel_json(e.rel);
          o["nan"] = e.nan_a;
          ok &= e.nan_a == 0 && e.rel <= tol;
        }
        if (hw) {
          b::RelError e = b::rel_error(hout->ptrs[oi], bt(d.dtype), ref.ptrs[oi], b::DType::f32, n);
          o["rel_hw_vs_ref"] = rel_json(e.rel);
          o["hw_nan"] = e.nan_a;
          hw_ok &= e.nan_a == 0 && e.rel <= tol;
          if (gen) {
            b::RelError g =
                b::rel_error(gout->ptrs[oi], bt(d.dtype), hout->ptrs[oi], bt(d.dtype), n);
            o["rel_gen_vs_hw"] = rel_json(g.rel);
            ok &= g.rel <= tol;  // NaN compares false: a NaN anywhere fails
          }
        }
        if (tout) {
          b::RelError e = b::rel_error(tout->ptrs[oi], bt(d.dtype), ref.ptrs[oi], b::DType::f32, n);
          o["rel_triton_vs_ref"] = rel_json(e.rel);
          o["triton_nan"] = e.nan_a;
          triton_ok &= e.nan_a == 0 && e.rel <= tol;
        }
        if (vout) {
          b::RelError e = b::rel_error(vout->ptrs[oi], bt(d.dtype), ref.ptrs[oi], b::DType::f32, n);
          o["rel_vendor_vs_ref"] = rel_json(e.rel);
          vendor_ok &= e.nan_a == 0 && e.rel <= tol;
        }
        outputs.push_back(o);
      }
      json js = {{"shape", std::vector<long long>(s.d, s.d + s.rank)},
                 {"label", label},
                 {"unit", metric.unit},
                 {"work", metric.work},
                 {"scale", metric.scale},
                 {"outputs", outputs},
                 {"ok", ok},
                 {"hw_ok", hw ? hw_ok : true},
                 {"vendor_ok", vendor_ok},
                 {"triton_ok", tout ? triton_ok : true},
                 {"triton_ctas_per_sm", tout ? triton_per_sm : 0},
                 {"triton_hints", tout ? triton_hints : json()},
                 {"timed", timed_shape}};
      progress(req,
               label + (gen ? (ok ? ": generated correct" : ": generated FAILS its check") : "") +
                   (hw ? (hw_ok ? ", handwritten correct" : ", handwritten FAILS its check") : "") +
                   (tout ? (triton_ok ? ", Triton correct" : ", Triton FAILS its check") : "") +
                   (timed_shape ? "" : " (check only)"));
      if (timing && timed_shape) {
        // Each kernel on its own buffers. Generated, hand-written, Triton and the roofline copy
        // are timed interleaved, one call each in turn (see do_bench_interleaved: a fixed order
        // biased the ratio by up to 8% on the power-capped H200).
        std::unique_ptr<CopyBuffers> copy;
        std::vector<b::LaunchFn> fns;
        std::vector<const char*> keys;
        std::string names;
        auto add = [&](const b::LaunchFn& fn, const char* key, const char* name) {
          fns.push_back(fn);
          keys.push_back(key);
          if (!names.empty()) names += ", ";
          names += name;
        };
        if (gen) add(gen_fn, "gen", "generated");
        if (hw) add(hw_fn, "hw", "handwritten");
        if (triton_fn) add(triton_fn, "triton", "Triton");
        if (copy_bytes > 0) {
          where = "the roofline copy at " + label;
          copy = std::make_unique<CopyBuffers>(size_t(copy_bytes));
          add([c = copy.get()] { return c->launch(); }, "copy", "the roofline copy");
        }
        if (!fns.empty()) {
          where = "timing " + names;
          where += " at " + label;
          std::vector<b::TimingStats> t;
          try {
            t = b::do_bench_interleaved(fns, bo);
          } catch (const std::exception& e) {
            // Which kernel failed is unknown: with Triton among them, measure again without it.
            if (triton_fn) throw TritonFault(where + ": " + e.what());
            throw;
          }
          for (size_t k = 0; k < fns.size(); ++k) js[keys[k]] = timing_json(t[k], metric);
        }
        if (copy) {
          js["copy"]["bytes"] = copy_bytes;
          any_copy = true;
        }
        copy.reset();  // freed before the vendor is timed
        if (vendor_fn) {
          where = "timing " + std::string(spec->vendor_name()) + " at " + label;
          js["vendor"] = timing_json(b::do_bench(vendor_fn, bo), metric);
        }
      }
      shapes.push_back(js);
    }
    out["shapes"] = shapes;
    out["has_copy"] = any_copy;
    if (!triton_error.empty()) out["triton_error"] = one_line(triton_error);
    b::release_flush_buffer();
  } catch (const TritonFault& e) {
    std::string msg = e.what();
    if (msg.find(" at ") == std::string::npos) msg = where + ": " + msg;
    return {{"error", msg}, {"triton_failed", true}};
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.find(" at ") == std::string::npos && where != "setup") msg = where + ": " + msg;
    return {{"error", msg}};
  }
  return out;
}

}  // namespace sched2cu::harness
