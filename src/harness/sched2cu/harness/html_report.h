// `compare --html` and `bench --html`: one self-contained HTML page holding the command's table
// (the cells the box and Markdown tables print, through render_html) and, for every case with
// figures, its throughput per timed shape as bars: one series per kernel the result carries
// (generated, hand-written, Triton, vendor, the roofline copy; compare: the revision's and the
// branch's measurements). Pure functions of the rows: they never measure, and a series appears only
// when some shape of the result has a figure for it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sched2cu/harness/runner.h"
#include "sched2cu/html/bars.h"

namespace sched2cu::harness {

// One case's bench bars: a group per timed shape, a series per kind of kTimedKinds with a
// figure ("generated", "hand-written", "Triton", the vendor's name, "roofline copy"); a bar
// whose kernel failed its check at that shape is marked failed. No groups when the case has no
// figure.
html::BarChart bench_chart(const std::string& name, const Measurement& m);

// One compare row's bars: the revision's generated and hand-written series ("main generated",
// ...), then the branch's, with Triton's where compare --triton timed it; an unchanged row has
// only the revision's (measured once).
html::BarChart compare_chart(const CompareRow& row, const std::string& rev);

// The pages. `device` is the probed GPU (GpuMeasurer::device(); {} when nothing was measured);
// `triton` is compare --triton (the table's triton columns).
std::string compare_html(const std::vector<CompareRow>& rows, const std::string& rev,
                         const nlohmann::json& device, bool triton = false);
std::string bench_html(const std::vector<CaseRow>& rows, const nlohmann::json& device);

}  // namespace sched2cu::harness
