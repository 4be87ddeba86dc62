// Loading and evaluating the target table (targets/<name>.json). Validates the table strictly so
// that a typo in a calibration paste is an error naming the field, never a silent zero cost.
#include "sched2cu/ddg/target_model.h"

#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"

namespace sched2cu::ddg {
namespace {

using J = nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw Error("target model " + file + ": " + what);
}

Formula formula(const J& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) fail(file, where + " must be an object");
  static const char* kKeys[] = {"base", "per_kb", "per_kelem",  "per_kelem_wg", "per_tc_cycle",
                                "min",  "max",    "calibrated", "note"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : kKeys) ok |= it.key() == k;
    if (!ok) fail(file, where + ": unknown key '" + it.key() + "'");
  }
  Formula f;
  f.present = true;
  auto num = [&](const char* k, double& dst) {
    if (!j.contains(k)) return;
    if (!j[k].is_number()) fail(file, where + "." + k + " must be a number");
    dst = j[k].get<double>();
  };
  num("base", f.base);
  num("per_kb", f.per_kb);
  num("per_kelem", f.per_kelem);
  num("per_kelem_wg", f.per_kelem_wg);
  num("per_tc_cycle", f.per_tc_cycle);
  num("min", f.min);
  num("max", f.max);
  if (j.contains("calibrated")) f.calibrated = j["calibrated"].get<bool>();
  if (j.contains("note")) f.note = j["note"].get<std::string>();
  return f;
}

}  // namespace

const char* pipe_name(Pipe p) {
  switch (p) {
    case Pipe::TMA:
      return "TMA";
    case Pipe::TC:
      return "TC";
    case Pipe::CUDA:
      return "CUDA";
    case Pipe::SFU:
      return "SFU";
    case Pipe::NONE:
      return "NONE";
  }
  return "NONE";
}

Pipe pipe_from_name(const std::string& s) {
  for (Pipe p : {Pipe::TMA, Pipe::TC, Pipe::CUDA, Pipe::SFU, Pipe::NONE})
    if (s == pipe_name(p)) return p;
  throw Error("unknown pipeline '" + s + "' (expected TMA, TC, CUDA, SFU or NONE)");
}

TargetModel TargetModel::load(const std::filesystem::path& path) {
  TargetModel t = from_json_text(read_file(path), path.string());
  t.source = path.string();
  return t;
}

TargetModel TargetModel::from_json_text(const std::string& text, const std::string& file) {
  J j;
  try {
    j = J::parse(text);
  } catch (const J::parse_error& e) {
    fail(file, std::string("invalid JSON: ") + e.what());
  }
  try {
    if (j.value("schema", "") != "sched2cu.target") fail(file, "schema must be 'sched2cu.target'");
    TargetModel t;
    t.schema_version = j.at("schema_version").get<int>();
    if (t.schema_version != 1)
      fail(file, "unsupported schema_version " + std::to_string(t.schema_version));
    t.name = j.at("target").get<std::string>();
    const J& b = j.at("budgets");
    t.budgets.smem_bytes_per_block = b.at("smem_bytes_per_block").get<int64_t>();
    t.budgets.regs_per_sm = b.at("regs_per_sm").get<int64_t>();
    t.budgets.max_regs_per_thread = b.at("max_regs_per_thread").get<int>();
    t.budgets.setmaxnreg_granularity = b.at("setmaxnreg_granularity").get<int>();
    t.budgets.setmaxnreg_min = b.at("setmaxnreg_min").get<int>();
    t.budgets.setmaxnreg_max = b.at("setmaxnreg_max").get<int>();
    t.budgets.threads_per_warpgroup = b.at("threads_per_warpgroup").get<int>();
    t.budgets.max_threads_per_block = b.at("max_threads_per_block").get<int>();
    t.budgets.mbarrier_bytes = b.at("mbarrier_bytes").get<int64_t>();
    t.budgets.producer_regs = b.at("producer_regs").get<int>();
    t.budgets.hbm_bytes_per_clk_sm = b.value("hbm_bytes_per_clk_sm", 0.0);
    if (t.budgets.hbm_bytes_per_clk_sm < 0) fail(file, "hbm_bytes_per_clk_sm must be >= 0");
    if (t.budgets.setmaxnreg_granularity <= 0) fail(file, "setmaxnreg_granularity must be > 0");
    for (auto it = j.at("tc_flop_per_clk").begin(); it != j.at("tc_flop_per_clk").end(); ++it) {
      double r = it.value().get<double>();
      if (r <= 0) fail(file, "tc_flop_per_clk." + it.key() + " must be > 0");
      t.tc_flop_per_clk[it.key()] = r;
    }
    const J& streams = j.at("streams");
    for (const J& c : j.at("classes")) {
      OpClass oc;
      oc.name = c.at("name").get<std::string>();
      const std::string where = "class '" + oc.name + "'";
      try {
        oc.pipe = pipe_from_name(c.at("pipe").get<std::string>());
      } catch (const Error& e) {
        fail(file, where + ": " + e.what());
      }
      std::string stream_key = c.value("stream", std::string(pipe_name(oc.pipe)));
      if (!streams.contains(stream_key)) {
        std::string msg = where + ": no stream for '";
        msg += stream_key;
        msg += "'";
        fail(file, msg);
      }
      oc.stream = streams.at(stream_key).get<std::string>();
      oc.ops = c.at("ops").get<std::vector<std::string>>();
      std::string operand = c.value("operand", "any");
      if (operand == "any")
        oc.operand = OpClass::Operand::Any;
      else if (operand == "tensor")
        oc.operand = OpClass::Operand::Tensor;
      else if (operand == "scalar")
        oc.operand = OpClass::Operand::Scalar;
      else
        fail(file, where + ": operand must be any, tensor or scalar");
      oc.latency = formula(c.at("latency"), file, where + ".latency");
      oc.latency_tail = c.contains("latency_tail")
                            ? formula(c["latency_tail"], file, where + ".latency_tail")
                            : oc.latency;
      oc.issue = formula(c.at("issue"), file, where + ".issue");
      oc.occupancy = formula(c.at("occupancy"), file, where + ".occupancy");
      oc.min_warps = c.value("min_warps", 1);
      t.classes.push_back(std::move(oc));
    }
    return t;
  } catch (const J::exception& e) {
    fail(file, std::string("malformed table: ") + e.what());
  }
}

std::filesystem::path TargetModel::default_path(const std::string& target) {
  namespace fs = std::filesystem;
  const std::string leaf = "targets/" + target + ".json";
  std::vector<fs::path> tried;
#ifdef SCHED2CU_SOURCE_DIR
  tried.push_back(fs::path(SCHED2CU_SOURCE_DIR) / leaf);
#endif
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    tried.push_back(exe.parent_path() / leaf);
    tried.push_back(exe.parent_path().parent_path() / leaf);
  }
  for (const auto& p : tried)
    if (fs::exists(p)) return p;
  std::string list;
  for (const auto& p : tried) list += " " + p.string();
  throw Error("no target model for " + target + " (looked at:" + list + "); pass --target FILE");
}

const OpClass* TargetModel::classify(const std::string& op, bool has_tensor) const {
  for (const auto& c : classes) {
    if (c.operand == OpClass::Operand::Tensor && !has_tensor) continue;
    if (c.operand == OpClass::Operand::Scalar && has_tensor) continue;
    for (const auto& o : c.ops)
      if (o == op) return &c;
  }
  return nullptr;
}

double TargetModel::tc_rate(const std::string& dtype) const {
  auto it = tc_flop_per_clk.find(dtype);
  if (it == tc_flop_per_clk.end()) {
    std::string have;
    for (const auto& [d, rate] : tc_flop_per_clk) have += (have.empty() ? "" : ", ") + d;
    throw Error("target model " + name + ": no tensor-core rate for dtype '" + dtype +
                "' (it has rates for " + have + ")");
  }
  return it->second;
}

int64_t TargetModel::eval(const Formula& f, const OpShape& s) const {
  double tc = 0;
  if (f.per_tc_cycle != 0 && s.flops > 0) tc = static_cast<double>(s.flops) / tc_rate(s.dtype);
  double v = f.base + f.per_kb * static_cast<double>(s.bytes) / 1024.0 +
             f.per_kelem * static_cast<double>(s.elems) / 1024.0 +
             f.per_kelem_wg * static_cast<double>(s.elems_per_wg) / 1024.0 + f.per_tc_cycle * tc;
  v = std::min(std::max(v, f.min), f.max);
  return static_cast<int64_t>(std::llround(v));
}

Costs TargetModel::costs(const OpClass& c, const OpShape& s) const {
  Costs k;
  k.latency = eval(c.latency, s);
  k.latency_tail = std::max(k.latency, eval(c.latency_tail, s));
  k.issue = eval(c.issue, s);
  k.occupancy = eval(c.occupancy, s);
  return k;
}

}  // namespace sched2cu::ddg
