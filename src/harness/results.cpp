// Measurement parsing and cell formatting (see results.h).
#include "sched2cu/harness/results.h"

#include <cmath>
#include <cstdio>

namespace sched2cu::harness {

using nlohmann::json;

std::string one_line(const std::string& msg, size_t max) {
  std::string s;
  bool space = false;
  for (char c : msg) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !s.empty();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) continue;
    if (space) s += ' ';
    space = false;
    s += c;
  }
  if (s.size() > max) {
    size_t cut = max > 3 ? max - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    s = s.substr(0, cut) + "...";
  }
  return s;
}

namespace {

std::optional<KernelTiming> timing(const json& shape, const char* key) {
  if (!shape.contains(key) || !shape[key].is_object()) return std::nullopt;
  const json& t = shape[key];
  KernelTiming k;
  k.median_ms = t.value("median_ms", 0.0);
  k.min_ms = t.value("min_ms", 0.0);
  k.max_ms = t.value("max_ms", 0.0);
  k.count = t.value("count", 0);
  k.throughput = t.value("throughput", 0.0);
  if (!(k.throughput > 0)) return std::nullopt;
  return k;
}

std::string fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string join(const std::vector<std::string>& parts) {
  if (parts.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace

const std::optional<KernelTiming>& timing_of(const ShapeResult& s, const std::string& kind) {
  return kind == "gen"      ? s.gen
         : kind == "hw"     ? s.hw
         : kind == "triton" ? s.triton
         : kind == "copy"   ? s.copy
                            : s.vendor;
}

bool passed_check(const ShapeResult& s, const std::string& kind) {
  return kind == "gen"      ? s.ok
         : kind == "hw"     ? s.hw_ok
         : kind == "vendor" ? s.vendor_ok
         : kind == "triton" ? s.triton_ok
                            : true;
}

Measurement parse_measurement(const json& j) {
  Measurement m;
  m.raw = j;
  if (j.contains("error") && !j["error"].is_null()) {
    m.error = one_line(j["error"].get<std::string>());
    if (m.error.empty()) m.error = "unknown error";
    return m;
  }
  m.has_generated = j.at("has_generated").get<bool>();
  m.has_hw = j.at("has_hw").get<bool>();
  m.vendor_name = j.value("vendor_name", "");
  m.vendor_unavailable = j.value("vendor_unavailable", "");
  m.vendor_error = j.value("vendor_error", "");
  m.has_copy = j.value("has_copy", false);
  m.has_triton = j.value("has_triton", false);
  m.triton_unavailable = j.value("triton_unavailable", "");
  m.triton_error = j.value("triton_error", "");
  m.gen_ptxas = j.value("gen_ptxas", "");
  m.hw_ptxas = j.value("hw_ptxas", "");
  if (j.contains("triton") && j["triton"].is_object()) {
    m.triton_stages = j["triton"].value("num_stages", 0);
    m.triton_dump_stages = j["triton"].value("dump_num_stages", 0);
  }
  for (const json& s : j.at("shapes")) {
    ShapeResult r;
    r.shape = s.at("shape").get<std::vector<long long>>();
    r.label = s.value("label", "");
    r.unit = s.value("unit", "");
    r.ok = s.at("ok").get<bool>();
    r.hw_ok = s.value("hw_ok", true);
    r.vendor_ok = s.value("vendor_ok", true);
    r.triton_ok = s.value("triton_ok", true);
    r.triton_ctas_per_sm = s.value("triton_ctas_per_sm", 0);
    r.timed = s.value("timed", true);
    r.gen = timing(s, "gen");
    r.hw = timing(s, "hw");
    r.vendor = timing(s, "vendor");
    // A Triton that failed somewhere gives no figures anywhere (its cell is the error), never
    // the figures of the shapes before the failure.
    if (m.triton_error.empty() && m.triton_unavailable.empty()) r.triton = timing(s, "triton");
    r.copy = timing(s, "copy");
    m.shapes.push_back(std::move(r));
  }
  return m;
}

Measurement interpret_child(const std::string& text, const ProcResult& proc) {
  Measurement m;
  if (proc.timed_out) {
    m.error = "measurement " + describe_exit(proc) + " (hung kernel?)";
    return m;
  }
  bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) {
    m.error = "measurement child " + describe_exit(proc) + " without writing a result";
    return m;
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    m.error = "measurement child " + describe_exit(proc) + " and left a truncated result";
    return m;
  }
  try {
    m = parse_measurement(j);
  } catch (const std::exception& e) {
    m = Measurement{};
    m.raw = j;
    m.error = one_line(std::string("malformed measurement result: ") + e.what());
    return m;
  }
  if (m.error.empty() && !proc.ok()) {
    // A complete result but a bad exit (e.g. a crash in teardown): keep the figures, say so.
    m.error = "measurement child " + describe_exit(proc) + " after writing its result";
  }
  return m;
}

std::string format_throughput(double value, const std::string& unit) {
  return fixed(value, 0) + " " + unit;
}

std::string compare_cell(const Measurement& m) {
  if (!m.error.empty()) return "(error: " + m.error + ")";
  std::vector<std::string> parts;
  bool fail = false;
  for (const ShapeResult& s : m.shapes) {
    fail |= !s.ok;
    if (!s.timed) continue;  // check only: its failure is the trailing FAIL
    if (s.gen && s.hw)
      parts.push_back(fixed(s.gen->throughput / s.hw->throughput, 2) + "x");
    else if (s.gen)
      parts.push_back(format_throughput(s.gen->throughput, s.unit));
    else
      parts.emplace_back("?");  // no timing (correctness-only result): shown, never hidden
  }
  if (fail) parts.emplace_back("FAIL");
  return with_ptxas(join(parts), m.gen_ptxas);
}

std::string improvement_cell(const Measurement& left, const Measurement& right) {
  if (!left.error.empty() || !right.error.empty()) return "-";
  std::vector<std::string> parts;
  for (const ShapeResult& r : right.shapes) {
    if (!r.timed) continue;  // check only: no throughput to improve
    const ShapeResult* b = nullptr;
    for (const ShapeResult& l : left.shapes) {
      if (l.shape == r.shape) b = &l;
    }
    if (b && !(r.ok && b->ok)) {
      parts.emplace_back("FAIL");
    } else if (!b || !b->gen || !r.gen) {
      parts.emplace_back("-");
    } else {
      // The two sides are measured one after the other, so clocks and the power cap drift
      // between them; the hand-written kernel, the same binary on both sides and timed
      // alongside each, cancels that drift. Raw generated throughput when a side has none.
      double ratio = r.gen->throughput / b->gen->throughput;
      if (r.hw && b->hw && r.hw->throughput > 0 && b->hw->throughput > 0)
        ratio /= r.hw->throughput / b->hw->throughput;
      double pct = (ratio - 1.0) * 100.0;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
      parts.emplace_back(buf);
    }
  }
  return join(parts);
}

std::string check_cell(const Measurement& m, const std::string& kind) {
  if (!m.error.empty()) return "(error: " + m.error + ")";
  if (m.shapes.empty()) return "-";
  std::vector<std::string> failed;
  for (const ShapeResult& s : m.shapes) {
    if (!passed_check(s, kind)) failed.push_back(s.label);
  }
  std::string s = "ok";
  if (!failed.empty()) {
    s = "FAIL (";
    for (size_t i = 0; i < failed.size(); ++i) s += (i ? ", " : "") + failed[i];
    s += ")";
  }
  return with_ptxas(s, kind == "hw" ? m.hw_ptxas : m.gen_ptxas);
}

std::string bench_shapes_cell(const Measurement& m) {
  std::vector<std::string> parts;
  size_t check_only = 0;
  for (const ShapeResult& s : m.shapes) {
    if (s.timed)
      parts.push_back(s.label);
    else
      ++check_only;
  }
  if (check_only == 0) return join(parts);
  const std::string more = "(+" + std::to_string(check_only) + " check-only)";
  return parts.empty() ? more : join(parts) + " " + more;
}

std::string bench_cell(const Measurement& m, const std::string& kind) {
  if (!m.error.empty()) return "(error: " + m.error + ")";
  if (kind == "vendor" && !m.vendor_unavailable.empty()) return "(" + m.vendor_unavailable + ")";
  if (kind == "vendor" && !m.vendor_error.empty()) return "(error: " + m.vendor_error + ")";
  if (kind == "triton") {
    if (!m.triton_unavailable.empty()) return "(" + m.triton_unavailable + ")";
    if (!m.triton_error.empty()) return "(error: " + m.triton_error + ")";
    if (!m.has_triton) return "-";
  }
  std::vector<std::string> parts;
  std::vector<std::string> failed_checks;  // check-only shapes this kind failed
  bool any = false;
  for (const ShapeResult& s : m.shapes) {
    const auto& t = timing_of(s, kind);
    const bool ok = passed_check(s, kind);
    if (!s.timed) {
      // A check-only shape: only a kernel that ran there can fail there.
      if (!ok && (kind != "gen" || m.has_generated) && (kind != "hw" || m.has_hw) &&
          (kind != "triton" || m.has_triton))
        failed_checks.push_back(s.label);
      continue;
    }
    if (!t) {
      parts.emplace_back("-");
      continue;
    }
    any = true;
    std::string cell = format_throughput(t->throughput, s.unit) + (ok ? "" : " FAIL");
    // Triton on a free grid ran with the programs per SM that were fastest: say how many.
    if (kind == "triton" && s.triton_ctas_per_sm > 0)
      cell += " (" + std::to_string(s.triton_ctas_per_sm) + "/SM)";
    parts.push_back(cell);
  }
  if (!failed_checks.empty()) {
    if (!any) parts.clear();
    parts.push_back("FAIL (" + join(failed_checks) + ")");
    any = true;
  }
  if (!any) return "-";
  // Triton's compile dropped pipeline stages to fit in shared memory: say which it ran.
  if (kind == "triton" && m.triton_stages > 0 && m.triton_stages != m.triton_dump_stages)
    return join(parts) + " (stages " + std::to_string(m.triton_stages) + ")";
  return with_ptxas(join(parts), kind == "gen"  ? m.gen_ptxas
                                 : kind == "hw" ? m.hw_ptxas
                                                : std::string());
}

std::string with_ptxas(const std::string& cell, const std::string& warnings) {
  return warnings.empty() ? cell : cell + " (ptxas: " + warnings + ")";
}

std::string bench_ratio_cell(const Measurement& m, const std::string& num_kind,
                             const std::string& den_kind) {
  if (!m.error.empty()) return "-";
  std::vector<std::string> parts;
  bool any = false;
  for (const ShapeResult& s : m.shapes) {
    if (!s.timed) continue;
    const auto& n = timing_of(s, num_kind);
    const auto& d = timing_of(s, den_kind);
    if (n && d) {
      parts.push_back(fixed(n->throughput / d->throughput, 2) + "x");
      any = true;
    } else {
      parts.emplace_back("-");
    }
  }
  return any ? join(parts) : "-";
}

}  // namespace sched2cu::harness
