// sched2cu_gemm_bench: times hand-written GEMM kernels (.so files exporting the launch ABI with
// args a, b, c, M, N, K [, six strides]) beside cuBLAS, in one process on the same inputs, after
// checking each against an f32 cuBLAS reference with C pre-filled with NaN. It is the tuning
// loop's tool, not the harness: no per-measurement process isolation (a watchdog exits 124 on a
// hang instead). Exit: 0 all correct, 1 a kernel failed its check, 2 usage or setup error,
// 77 no Hopper GPU, 124 a kernel hung. It must never report a time for a kernel without having
// checked its output.
#include <unistd.h>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sched2cu/bench/blas.h"
#include "sched2cu/bench/cuda_check.h"
#include "sched2cu/bench/device_ops.h"
#include "sched2cu/bench/gpu.h"
#include "sched2cu/bench/kernel_module.h"
#include "sched2cu/bench/timing.h"

namespace {

using namespace sched2cu::bench;
using sched2cu::Error;

struct Shape {
  long long M, N, K;
  std::string label() const {
    if (M == N && N == K) return std::to_string(M) + "^3";
    return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  }
};

std::vector<Shape> parse_shapes(const std::string& s) {
  std::vector<Shape> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    std::vector<long long> d;
    std::stringstream is(item);
    std::string tok;
    while (std::getline(is, tok, 'x')) {
      char* end = nullptr;
      long long v = std::strtoll(tok.c_str(), &end, 10);
      if (tok.empty() || *end != '\0' || v <= 0) throw Error("bad shape '" + item + "'");
      d.push_back(v);
    }
    if (d.size() == 1)
      out.push_back({d[0], d[0], d[0]});
    else if (d.size() == 3)
      out.push_back({d[0], d[1], d[2]});
    else
      throw Error("bad shape '" + item + "' (expected N or MxNxK)");
  }
  if (out.empty()) throw Error("no shapes given");
  return out;
}

// Watchdog: a hung kernel blocks the next synchronize forever; SIGALRM turns that into a message
// naming the kernel and shape, and exit status 124.
char g_current[256] = "startup";

void on_alarm(int) {
  const char pre[] = "\nsched2cu_gemm_bench: timed out in ";
  [[maybe_unused]] ssize_t w = write(2, pre, sizeof pre - 1);
  w = write(2, g_current, std::strlen(g_current));
  w = write(2, "\n", 1);
  _exit(124);
}

void arm(unsigned seconds, const std::string& what) {
  std::snprintf(g_current, sizeof g_current, "%s", what.c_str());
  alarm(seconds);
}

struct Buf {
  void* p = nullptr;
  explicit Buf(size_t bytes) { check_cuda(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~Buf() { cudaFree(p); }
};

struct Result {
  std::string error;
  double rel = NAN;
  long long nan = 0;
  bool ok = false;
  TimingStats t;
  double tflops = 0;
};

std::string fmt_num(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

}  // namespace

// Option setup can only throw on a programming error (a malformed option spec); every run-time
// failure below is caught and reported.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  CLI::App app{
      "Times GEMM kernel .so files (launch ABI: a, b, c, M, N, K [, strides]; f16 in/out, f32 "
      "accumulate, row-major) beside cuBLAS on the same inputs, after an f32 correctness check."};
  std::vector<std::string> kernels;
  std::string shapes_s = "1024,2048,4096,8192,8192x8192x256";
  std::string b_layout = "kn", nargs_s = "auto", json_path;
  double tol = 5e-3, warmup_ms = 50, rep_ms = 200;
  unsigned timeout_s = 120;
  unsigned long long seed = 0;
  bool no_cublas = false, allow_busy = false, no_lock = false;
  app.add_option("kernels", kernels, "kernel .so files")->check(CLI::ExistingFile);
  app.add_option("--shapes", shapes_s, "comma list of N (N^3) or MxNxK")->capture_default_str();
  app.add_option("--b-layout", b_layout, "kn: B is [K,N] row-major; nk: B is [N,K] row-major")
      ->check(CLI::IsMember({"kn", "nk"}))
      ->capture_default_str();
  app.add_option("--nargs", nargs_s, "launch args: 6 (a,b,c,M,N,K), 12 (+ six strides), auto")
      ->check(CLI::IsMember({"auto", "6", "12"}))
      ->capture_default_str();
  app.add_option("--tol", tol, "max relative error vs the f32 reference")->capture_default_str();
  app.add_option("--seed", seed, "input seed")->capture_default_str();
  app.add_option("--warmup-ms", warmup_ms)->capture_default_str();
  app.add_option("--rep-ms", rep_ms)->capture_default_str();
  app.add_option("--timeout", timeout_s, "seconds per kernel and shape before exit 124")
      ->capture_default_str();
  app.add_option("--json", json_path, "write every figure to this file");
  app.add_flag("--no-cublas", no_cublas, "skip the cuBLAS baseline");
  app.add_flag("--allow-busy-gpu", allow_busy, "measure even if another process uses the GPU");
  app.add_flag("--no-lock", no_lock, "do not take the sched2cu GPU lock");
  CLI11_PARSE(app, argc, argv);

  try {
    auto shapes = parse_shapes(shapes_s);
    std::signal(SIGALRM, on_alarm);
    DeviceInfo dev;
    try {
      dev = query_device();
      require_hopper(dev);
    } catch (const Error& e) {
      std::fprintf(stderr, "sched2cu_gemm_bench: %s\n", e.what());
      return 77;  // no usable GPU: ctest reports the GPU test as skipped
    }
    std::unique_ptr<GpuLock> lock;
    if (!no_lock) lock = std::make_unique<GpuLock>(gpu_lock_key(dev.pci_bus_id));
    if (!allow_busy) require_idle_gpu(dev.pci_bus_id, {static_cast<long long>(getpid())});
    std::fprintf(stderr, "device: %s, %d SMs, cc %d.%d\n", dev.name.c_str(), dev.sm_count,
                 dev.major, dev.minor);

    struct K {
      std::string name;
      std::unique_ptr<KernelModule> mod;
      int nargs;
    };
    std::vector<K> ks;
    for (auto& path : kernels) {
      std::string name = std::filesystem::path(path).stem().string();
      int n = nargs_s == "auto" ? 0 : std::stoi(nargs_s);
      ks.push_back({name, std::make_unique<KernelModule>(path), n});
    }
    Blas blas;
    BenchOptions bo;
    bo.warmup_ms = warmup_ms;
    bo.rep_ms = rep_ms;
    bool b_nk = b_layout == "nk";

    nlohmann::json jout = {{"device",
                            {{"name", dev.name},
                             {"sm_count", dev.sm_count},
                             {"cc", std::to_string(dev.major) + "." + std::to_string(dev.minor)}}},
                           {"tol", tol},
                           {"b_layout", b_layout},
                           {"shapes", nlohmann::json::array()}};
    // Header
    std::printf("%-16s", "shape");
    if (!no_cublas) std::printf(" | %14s", "cuBLAS TFLOPS");
    for (auto& k : ks) std::printf(" | %-32s", (k.name + " TFLOPS (x cuBLAS) err").c_str());
    std::printf("\n");
    std::fflush(stdout);

    int failures = 0;
    for (const Shape& s : shapes) {
      size_t mk = size_t(s.M) * s.K, kn = size_t(s.K) * s.N, mn = size_t(s.M) * s.N;
      Buf a(mk * 2), b(kn * 2), ref(mn * 4), c(mn * 2);
      fill_normal(a.p, mk, DType::f16, seed * 2 + 1);
      fill_normal(b.p, kn, DType::f16, seed * 2 + 2);
      blas.gemm_ref_f32({a.p, DType::f16}, {b.p, DType::f16, b_nk}, static_cast<float*>(ref.p), s.M,
                        s.N, s.K);
      double flop =
          2.0 * static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K);
      auto measure = [&](const std::string& who, const std::function<int()>& launch) {
        Result r;
        try {
          arm(timeout_s, who + " at " + s.label());
          fill_nan(c.p, mn, DType::f16);
          int rc = launch();
          if (rc != 0) throw Error("launch returned " + cuda_error_name(rc));
          check_cuda(cudaDeviceSynchronize(), "kernel");
          RelError e = rel_error(c.p, DType::f16, ref.p, DType::f32, mn);
          r.rel = e.rel;
          r.nan = e.nan_a;
          r.ok = e.nan_a == 0 && e.rel <= tol;
          alarm(0);
        } catch (const std::exception& ex) {
          alarm(0);
          r.error = ex.what();
          // A sticky fault poisons the context: nothing after it can be trusted.
          cudaError_t st = cudaDeviceSynchronize();
          if (st != cudaSuccess) {
            std::fprintf(stderr, "%s at %s: %s; the CUDA context is lost, stopping\n", who.c_str(),
                         s.label().c_str(), r.error.c_str());
            std::exit(1);
          }
        }
        return r;
      };
      // Correctness first, kernel by kernel; then every kernel that launched is timed
      // interleaved with the others (do_bench_interleaved: a fixed order biased results by up
      // to 8% on the power-capped H200).
      std::vector<std::function<int()>> launches;
      Result cub;
      if (!no_cublas) {
        launches.emplace_back([&] {
          return blas.gemm({a.p, DType::f16}, {b.p, DType::f16, b_nk}, c.p, DType::f16, s.M, s.N,
                           s.K);
        });
        cub = measure("cuBLAS", launches.back());
      }
      std::vector<Result> rs;
      for (auto& k : ks) {
        sched2cu_arg args[12];
        args[0].ptr = a.p;
        args[1].ptr = b.p;
        args[2].ptr = c.p;
        args[3].i = s.M;
        args[4].i = s.N;
        args[5].i = s.K;
        args[6].i = s.K;             // stride_am
        args[7].i = 1;               // stride_ak
        args[8].i = b_nk ? 1 : s.N;  // stride_bk
        args[9].i = b_nk ? s.K : 1;  // stride_bn
        args[10].i = s.N;            // stride_cm
        args[11].i = 1;              // stride_cn
        // --nargs auto: a launcher rejects a wrong count with cudaErrorInvalidValue before
        // launching; try 6, then 12, and keep the first count that launches.
        auto launch = [&]() -> int {
          if (k.nargs) return k.mod->launch(args, k.nargs);
          int rc = k.mod->launch(args, 6);
          if (rc == cudaErrorInvalidValue && k.mod->launch(args, 12) == 0) {
            k.nargs = 12;
            rc = 0;
          } else if (rc == 0) {
            k.nargs = 6;
          }
          if (k.nargs) std::fprintf(stderr, "%s: using %d launch args\n", k.name.c_str(), k.nargs);
          return rc;
        };
        rs.push_back(measure(k.name, launch));
        launches.emplace_back([&k, args]() mutable { return k.mod->launch(args, k.nargs); });
      }
      std::vector<Result*> timed;
      std::vector<LaunchFn> fns;
      if (!no_cublas && cub.error.empty()) {
        timed.push_back(&cub);
        fns.push_back(launches[0]);
      }
      for (size_t i = 0; i < rs.size(); ++i)
        if (rs[i].error.empty()) {
          timed.push_back(&rs[i]);
          fns.push_back(launches[i + (no_cublas ? 0 : 1)]);
        }
      try {
        arm(timeout_s * static_cast<unsigned>(fns.size() + 1), "timing at " + s.label());
        std::vector<TimingStats> ts = do_bench_interleaved(fns, bo);
        alarm(0);
        for (size_t i = 0; i < ts.size(); ++i) {
          timed[i]->t = ts[i];
          timed[i]->tflops = flop / (ts[i].median_ms * 1e-3) / 1e12;
        }
      } catch (const std::exception& ex) {
        alarm(0);
        for (Result* r : timed) r->error = std::string("timing: ") + ex.what();
      }
      // Row
      std::printf("%-16s", s.label().c_str());
      auto jshape = nlohmann::json{{"M", s.M}, {"N", s.N}, {"K", s.K}, {"kernels", {}}};
      auto jres = [&](const Result& r) {
        nlohmann::json j = {{"ok", r.ok}, {"nan", r.nan}};
        j["rel"] = std::isnan(r.rel) ? nlohmann::json() : nlohmann::json(r.rel);
        if (!r.error.empty())
          j["error"] = r.error;
        else {
          j["ms"] = {{"median", r.t.median_ms},
                     {"min", r.t.min_ms},
                     {"max", r.t.max_ms},
                     {"count", r.t.count}};
          j["tflops"] = r.tflops;
        }
        return j;
      };
      if (!no_cublas) {
        std::printf(" | %14s", cub.error.empty() ? fmt_num(cub.tflops, 1).c_str() : "error");
        jshape["cublas"] = jres(cub);
      }
      for (size_t i = 0; i < ks.size(); ++i) {
        const Result& r = rs[i];
        std::string cell;
        if (!r.error.empty()) {
          cell = "error";
        } else {
          cell = fmt_num(r.tflops, 1);
          if (!no_cublas && cub.error.empty() && cub.tflops > 0)
            cell += " (" + fmt_num(r.tflops / cub.tflops, 2) + "x)";
          cell += " " + (std::isnan(r.rel) ? std::string("nan") : fmt_num(r.rel, 5)) +
                  (r.ok ? "" : " FAIL");
        }
        if (!r.ok) ++failures;
        std::printf(" | %-32s", cell.c_str());
        jshape["kernels"][ks[i].name] = jres(r);
      }
      std::printf("\n");
      for (size_t i = 0; i < ks.size(); ++i) {
        if (!rs[i].error.empty())
          std::printf("  %s at %s: %s\n", ks[i].name.c_str(), s.label().c_str(),
                      rs[i].error.c_str());
        else if (!rs[i].ok)
          std::printf("  %s at %s: FAIL (rel %.3g, %lld NaN; tol %.3g)\n", ks[i].name.c_str(),
                      s.label().c_str(), rs[i].rel, rs[i].nan, tol);
      }
      std::fflush(stdout);
      jout["shapes"].push_back(jshape);
    }
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << jout.dump(2) << "\n";
      if (!f) throw Error("cannot write " + json_path);
    }
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sched2cu_gemm_bench: %s\n", e.what());
    return 2;
  }
}
