// The options shared by the harness subcommands (compare, check, bench, list), declared once so
// every command spells them the same way. Header-only; used by src/cli/cmd_*.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "sched2cu/harness/runner.h"

namespace sched2cu::harness {

struct CliArgs {
  std::string cases, root, examples, json, cache_dir, python = "python3";
  double timeout_s = 600, warmup_ms = 50, rep_ms = 200;
  unsigned long long seed = 0;
  std::string html;
  bool allow_busy = false, no_lock = false, markdown = false;

  void add_common(CLI::App* sub, bool gpu) {
    sub->add_option("--cases", cases,
                    "comma-separated case dirs relative to examples/ (default: all); a dir "
                    "holding only nested specs expands to them");
    sub->add_option("--json", json, "write every figure to this JSON file");
    sub->add_option("--root", root, "repository root (default: the git checkout of the cwd)");
    sub->add_option("--examples", examples, "corpus dir (default: <root>/examples)");
    if (!gpu) return;
    sub->add_option("--timeout", timeout_s, "seconds per measurement child before it is killed")
        ->capture_default_str();
    sub->add_option("--seed", seed, "input seed (the same on both sides of compare)")
        ->capture_default_str();
    sub->add_option("--warmup-ms", warmup_ms, "do_bench warmup budget")->capture_default_str();
    sub->add_option("--rep-ms", rep_ms, "do_bench repetition budget")->capture_default_str();
    sub->add_option("--cache-dir", cache_dir,
                    "where compiled .so files are cached (default: $SCHED2CU_CACHE_DIR or "
                    "<root>/.cache/sched2cu)");
    sub->add_flag("--allow-busy-gpu", allow_busy, "measure even when another process uses the GPU");
    sub->add_flag("--no-lock", no_lock, "do not take the sched2cu GPU lock");
  }

  // compare and bench: the table as GitHub Markdown.
  void add_markdown(CLI::App* sub) {
    sub->add_flag("--markdown", markdown,
                  "print the table as GitHub Markdown (for a pull-request comment): bold cells "
                  "as **bold**, long errors as footnotes");
  }

  // compare and bench: an HTML page of the table with per-shape bars.
  void add_html(CLI::App* sub) {
    sub->add_option("--html", html,
                    "also write the table and per-shape throughput bars as one self-contained "
                    "HTML page (inline SVG)");
  }

  RunOptions options() const {
    RunOptions o = default_run_options(root, examples);
    o.cases_arg = cases;
    o.json_path = json;
    o.timeout_s = timeout_s;
    o.warmup_ms = warmup_ms;
    o.rep_ms = rep_ms;
    o.seed = seed;
    o.allow_busy_gpu = allow_busy;
    o.no_lock = no_lock;
    o.python = python;
    o.markdown = markdown;
    o.html_path = html;
    if (!cache_dir.empty()) o.build.cache_dir = cache_dir;
    return o;
  }
};

}  // namespace sched2cu::harness
