// Host side of generated.cu: the extern "C" launcher of docs/abi.md (arguments in kernel
// parameter order, TMA descriptors encoded on the host with the boxes the kernel lowering fixed,
// grid from the graph's grid expressions (checked for emptiness before any map is built), block and
// dynamic shared memory from the plan), plus the file assembly (header, includes, kernel
// signature). Never decides anything about the schedule.
#include <algorithm>
#include <cctype>

#include "lower.h"
#include "sched2cu/common/diag.h"

namespace sched2cu::emit {
namespace {

std::string tma_dtype(const Ctx& c, const std::string& e, int op) {
  if (e == "f16") return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  if (e == "bf16") return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  if (e == "f32") return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
  if (e == "f8E4M3FN" || e == "f8E5M2" || e == "i8") return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
  c.fail(op, "no TMA data type for " + e);
}

// C++ type of a kernel parameter on the device.
std::string param_ctype(const Ctx& c, const sgraph::Param& p) {
  const ttgir::Type& t = c.type(p.value);
  // A host tensor descriptor argument is its base pointer in the ABI (docs/abi.md); the kernel
  // reads the map built from it, never the pointer.
  if (t.kind == ttgir::Type::Kind::Ptr || t.kind == ttgir::Type::Kind::TensorDesc) return "void*";
  if (t.kind == ttgir::Type::Kind::Integer && t.bits == 32) return "int";
  if (t.kind == ttgir::Type::Kind::Integer && t.bits == 64) return "long long";
  if (t.kind == ttgir::Type::Kind::Float && t.name == "f32") return "float";
  throw Error("emit: kernel parameter " + p.name + " has unsupported type " + p.type);
}

std::string desc_note(const Ctx& c, const Desc& d) {
  return d.op >= 0 ? c.note(d.op) : "tensor descriptor argument " + c.ident(d.value);
}

}  // namespace

std::string lower_host(Ctx& c, const std::string& kname) {
  const auto& params = c.g.kernel.params;
  std::string o;
  o += "extern \"C\" int sched2cu_abi_version(void) { return SCHED2CU_ABI_VERSION; }\n\n";
  o += "extern \"C\" int sched2cu_launch(const sched2cu_arg* args, int nargs, cudaStream_t stream) "
       "{\n";
  o += "  if (args == nullptr || nargs != " + S(static_cast<long long>(params.size())) +
       ") return cudaErrorInvalidValue;\n";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string ct = param_ctype(c, params[i]);
    std::string idx = S(static_cast<long long>(i));
    if (ct == "void*")
      o += "  void* const arg_" + params[i].name + " = args[" + idx + "].ptr;\n";
    else if (ct == "float")
      o += "  const double arg_" + params[i].name + " = args[" + idx + "].f;\n";
    else
      o += "  const long long arg_" + params[i].name + " = args[" + idx + "].i;\n";
    if (ct == "int")
      o += "  if (arg_" + params[i].name + " < -2147483648LL || arg_" + params[i].name +
           " > 2147483647LL) return cudaErrorInvalidValue;\n";
  }
  o += "  cudaError_t e = cudaSuccess;\n";
  bool sms_grid = false;  // a persistent grid (num_sms in an expression)
  for (const auto& e : c.g.launch.grid) sms_grid |= sgraph::uses_num_sms(e);
  if (sms_grid || c.split_loop >= 0) {  // the split decision counts idle SMs
    o += "  int dev = 0, num_sms = 0;\n";
    o += "  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;\n";
    o += "  if ((e = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, dev)) != "
         "cudaSuccess) return e;\n";
  }
  // The dynamic shared memory attribute, once per process: before the occupancy query below
  // (which counts the dynamic shared memory a launch may take only once it is allowed).
  auto smem_attr = [&] {
    o += "  static bool smem_attr_set = false;\n";
    o += "  if (!smem_attr_set) {\n";
    o += "    if ((e = cudaFuncSetAttribute(" + kname +
         ", cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemAlloc)) != cudaSuccess)\n";
    o += "      return e;\n    smem_attr_set = true;\n  }\n";
  };
  // Programs per SM of a persistent grid. With setmaxnreg (several roles) the register split
  // is fixed at launch.ctas_per_sm, so exactly that many. With one role the launch bounds only
  // cap the registers at ctas_per_sm's share: the kernel ptxas compiled may use fewer (the
  // scheduler's estimate cannot see its registers), so the grid takes every CTA the compiled
  // kernel keeps resident, as the occupancy calculator reports it for this device
  // (docs/emitter.md, "Launch"), never fewer than one per SM.
  std::string per_sm = c.g.launch.ctas_per_sm > 1 ? "(" + S(c.g.launch.ctas_per_sm) + " * num_sms)"
                                                  : std::string("num_sms");
  const bool occupancy_grid = sms_grid && c.g.launch.roles.size() == 1 && c.split_loop < 0;
  if (occupancy_grid) {
    smem_attr();
    o += "  int resident = 0;  // CTAs per SM of the compiled kernel (registers, shared memory)\n";
    o += "  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, " + kname +
         ", kThreads, kSmemAlloc)) != cudaSuccess)\n    return e;\n";
    o += "  if (resident < 1) resident = 1;\n";
    per_sm = "(resident * num_sms)";
    // Atomics contend at their addresses: more CTAs than the scheduler's count only queue more
    // of them (col_atomic on an H100, 2026-12-08: 12 CTAs per SM 48 GB/s, 4 CTAs 59).
    if (c.f.has_atomics()) {
      o += "  if (resident > " + S(c.g.launch.ctas_per_sm) +
           ") resident = " + S(c.g.launch.ctas_per_sm) +
           ";  // atomics contend: no more CTAs than the schedule's\n";
    }
  }
  const char* axes[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k)
    o += "  const long long grid_" + std::string(axes[k]) + " = " +
         sgraph::to_cxx(c.g.launch.grid.at(static_cast<size_t>(k)), "arg_", per_sm) + ";\n";
  o += "  if (grid_x <= 0 || grid_y <= 0 || grid_z <= 0) return cudaSuccess;  // no programs\n";
  const bool raster = c.g.launch.raster_group > 0;
  if (raster)
    o += "  if (grid_x * grid_y > 2147483647LL) return cudaErrorInvalidValue;\n";
  else
    o += "  if (grid_x > 2147483647LL || grid_y > 65535 || grid_z > 65535) return "
         "cudaErrorInvalidValue;\n";
  // A tensor map cannot describe an empty tensor. Skipping the launch is right only when every
  // output is empty (nothing to write); an empty input with a non-empty output (K = 0 of a GEMM,
  // whose C is the bias or zero) is refused instead of silently left unwritten (docs/abi.md).
  {
    bool pointer_stores = false;
    for (const auto& x : c.f.ops) pointer_stores |= x.name == "tt.store";
    std::string all_empty;
    for (auto& [key, d] : c.descs) {
      bool stored = false;
      for (int u : c.f.value(d.value).users) stored |= ttgir::is_descriptor_store(c.op(u).name);
      if (!stored || d.box.empty()) continue;
      std::string any_zero;
      for (size_t k = 0; k < d.block.size(); ++k)
        any_zero += (k ? " || " : "") + host_expr(c, d.shape[k], d.where) + " == 0";
      all_empty += (all_empty.empty() ? "(" : " && (") + any_zero + ")";
    }
    if (pointer_stores || all_empty.empty()) all_empty = "false";
    if (!c.descs.empty())  // read by each tensor map's empty-extent test below
      o += "  const bool outputs_empty = " + all_empty +
           ";  // a launch is skipped only when every output is empty\n";
  }
  for (auto& [key, d] : c.descs) {
    const int op = d.where;
    if (d.box.empty()) {
      o += "  // " + desc_note(c, d) + ": not used by the kernel\n";
      continue;
    }
    size_t rank = d.block.size();
    const ttgir::Op* base = c.f.def_op(d.base);
    std::string ptr;
    for (const auto& p : params)
      if (p.value == d.base) ptr = "arg_" + p.name;
    if (base != nullptr || ptr.empty())
      c.fail(op, "descriptor base must be a kernel pointer argument");
    const std::string inner = host_expr(c, d.strides[rank - 1], op);
    const bool inner_one = inner == "(1)" || inner == "(1LL)";
    if (!inner_one && !host_computable(c, d.strides[rank - 1]))
      c.fail(op,
             "innermost stride must be 1: the constant, or kernel arguments the launcher checks");
    o += "  CUtensorMap " + d.map + ";  // " + desc_note(c, d) + "\n  {\n";
    // A tensor map reads its last dimension contiguous: a stride given at launch must be 1
    // (Triton asserts the same of a descriptor; a pointer tile lifted to one needs it).
    if (!inner_one)
      o += "    if (" + inner + " != 1) return cudaErrorInvalidValue;  // innermost stride\n";
    // TMA needs a 16-byte aligned global base: a bad pointer is the caller's error, not the
    // driver's (cuTensorMapEncodeTiled would report it as a failed API call).
    o += "    if (";
    o += ptr;
    o += " == nullptr || reinterpret_cast<uintptr_t>(";
    o += ptr;
    o += ") % 16 != 0) return cudaErrorInvalidValue;\n";
    // TMA dimension 0 is the innermost (last IR dimension).
    std::string dims, strides, box;
    for (size_t k = 0; k < rank; ++k) {
      size_t ir = rank - 1 - k;
      std::string ext = host_expr(c, d.shape[ir], op);
      // A folded map (Desc::fold) views [M, C] as [M * fold, C / fold].
      if (d.fold > 1 && ir == 1) ext = S(d.block[1] / d.fold);
      if (d.fold > 1 && ir == 0) ext = std::string("(").append(ext).append(") * ") + S(d.fold);
      dims += k ? ", static_cast<long long>(" : "static_cast<long long>(";
      dims += ext;
      dims += ")";
      box += std::string(k ? ", " : "") + S(d.box[ir]) + "u";
      if (k + 1 < rank) {
        strides += k ? ", static_cast<uint64_t>(" : "static_cast<uint64_t>(";
        strides += d.fold > 1 ? S(d.block[1] / d.fold) : host_expr(c, d.strides[rank - 2 - k], op);
        strides += ") * " + S(d.elem_bytes) + "u";
      }
    }
    const std::string R = S(static_cast<long long>(rank));
    o += "    const long long ext[" + R + "] = {";
    o += dims;
    o += "};\n";
    // A negative extent (or one past TMA's 2^32) is the caller's error; cuTensorMapEncodeTiled
    // rejects a zero extent: nothing to do when every output is empty, else refused.
    o += "    for (long long x : ext) if (x < 0 || x > 4294967296LL) return "
         "cudaErrorInvalidValue;\n";
    o += "    for (long long x : ext) if (x == 0) return outputs_empty ? cudaSuccess : "
         "cudaErrorInvalidValue;  // an empty tensor\n";
    o += "    uint64_t dims[" + R + "];\n";
    o += "    for (int i = 0; i < " + R + "; ++i) dims[i] = static_cast<uint64_t>(ext[i]);\n";
    o += "    const uint64_t strides[" + S(static_cast<long long>(rank - 1)) + "] = {" + strides +
         "};\n";
    o += "    const uint32_t box[" + S(static_cast<long long>(rank)) + "] = {" + box + "};\n";
    o += "    if ((e = tma_make_map(&" + d.map + ", " + tma_dtype(c, d.elem, op) + ", " +
         S(static_cast<long long>(rank)) + ", " + ptr + ", dims, strides, box, TmaSwizzle::" +
         (d.swizzle == 0 ? std::string("none") : "b" + S(d.swizzle)) + ")) != cudaSuccess)\n";
    o += "      return e;\n  }\n";
  }
  if (!occupancy_grid) smem_attr();
  if (raster)
    o += "  // Linearized grid: the kernel maps CTAs to program ids in groups "
         "(launch.raster_group).\n"
         "  const dim3 grid(static_cast<unsigned>(grid_x * grid_y), 1u, 1u);\n";
  else
    o += "  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y), "
         "static_cast<unsigned>(grid_z));\n";
  std::string args;
  for (auto& [key, d] : c.descs)
    if (!d.box.empty()) args += (args.empty() ? "" : ", ") + d.map;
  for (const auto& p : params) {
    std::string ct = param_ctype(c, p);
    args += (args.empty() ? "" : ", ") +
            (ct == "void*" ? "arg_" + p.name : "static_cast<" + ct + ">(arg_" + p.name + ")");
  }
  args += ", static_cast<int>(grid_x), static_cast<int>(grid_y), static_cast<int>(grid_z)";
  if (c.split_loop >= 0) {
    // Split loops (docs/emitter.md): a cluster of `split` CTAs runs each program, sharing loop
    // N's iterations, where the programs alone leave half the SMs idle.
    // The launcher's rule (sched2cu_host_split, runtime/sched2cu/abi.h) needs the trip count where
    // it is computable here, and the loop's deepest ring as the least share a CTA may keep.
    const std::string li = S(c.split_loop);
    const sgraph::Loop& L = c.g.loops.at(static_cast<size_t>(c.split_loop));
    int depth = 1;
    for (const auto& r : L.rings) depth = std::max(depth, r.depth);
    std::string trip = "-1";
    if (host_computable(c, L.lb) && host_computable(c, L.ub) && host_computable(c, L.step)) {
      const std::string lb = host_expr(c, L.lb, L.op), ub = host_expr(c, L.ub, L.op),
                        st = host_expr(c, L.step, L.op);
      o += "  const long long split_trip = " + ub + " > " + lb + " && " + st + " > 0 ? (" + ub +
           " - " + lb + " + " + st + " - 1) / " + st + " : 0;  // loop " + li + "'s iterations\n";
      trip = "split_trip";
    }
    o += "  // CTAs per program, sharing loop " + li + "'s iterations\n";
    o += "  const unsigned split = sched2cu_host_split(grid_x * grid_y * grid_z, num_sms, " +
         S(L.split) + ", " + trip + ", " + S(depth) + ");\n";
    o += "  if (split > 1) {\n";
    o += "    cudaLaunchConfig_t cfg = {};\n";
    o += "    cfg.gridDim = dim3(grid.x * split, grid.y, grid.z);\n";
    o += "    cfg.blockDim = dim3(kThreads);\n";
    o += "    cfg.dynamicSmemBytes = kSmemAlloc;\n";
    o += "    cfg.stream = stream;\n";
    o += "    cudaLaunchAttribute attr[1] = {};\n";
    o += "    attr[0].id = cudaLaunchAttributeClusterDimension;\n";
    o += "    attr[0].val.clusterDim.x = split;\n";
    o += "    attr[0].val.clusterDim.y = 1;\n";
    o += "    attr[0].val.clusterDim.z = 1;\n";
    o += "    cfg.attrs = attr;\n";
    o += "    cfg.numAttrs = 1;\n";
    o += "    return cudaLaunchKernelEx(&cfg, " + kname + ", " + args + ");\n";
    o += "  }\n";
  }
  o += "  " + kname + "<<<grid, kThreads, kSmemAlloc, stream>>>(" + args + ");\n";
  o += "  return cudaGetLastError();\n}\n";
  return o;
}

// The __global__ signature: TMA maps first (grid constants), then every ABI argument.
std::string kernel_signature(Ctx& c, const std::string& kname) {
  // Minimum resident blocks: launch.ctas_per_sm (ptxas keeps the launch registers within it).
  std::string s = "__global__ void __launch_bounds__(kThreads, " + S(c.g.launch.ctas_per_sm) +
                  ")\n    " + kname + "(";
  std::string ps;
  for (auto& [key, d] : c.descs)
    if (!d.box.empty())
      ps += (ps.empty() ? "" : ",\n        ") +
            std::string("const __grid_constant__ CUtensorMap ") + d.map;
  for (const auto& p : c.g.kernel.params)
    ps += (ps.empty() ? "" : ",\n        ") + param_ctype(c, p) + " " + p.name;
  ps += ",\n        int num_programs_x, int num_programs_y, int num_programs_z";
  return s + ps + ")";
}

}  // namespace sched2cu::emit
