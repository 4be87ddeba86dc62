// `sched2cu show GRAPH -o PAGE.html` and `sched2cu show [--cases a,b] -d DIR`: draw schedule
// graphs as self-contained HTML pages (src/show). Only parses flags, resolves cases the way the
// harness does, and writes files: every graph is read, validated and drawn before the first page
// is written, so bad input writes nothing.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "command_registry.h"
#include "graph_input.h"
#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/cases.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/show/page.h"

namespace {

namespace fs = std::filesystem;
using sched2cu::Error;

struct ShowArgs {
  std::string graph, out, dir, cases, root, examples;
};

// The graph at `graph` read and validated, its target's budgets checked against the target table
// as emit checks them (the budget bars would otherwise draw a limit the GPU lacks), and drawn.
struct Drawn {
  std::string kernel, page;
};
Drawn draw(const fs::path& graph, const std::string& title) {
  const auto g = sched2cu::show::read_graph(graph);
  sched2cu::cli::check_target(g, graph.string());
  return {g.kernel.name,
          sched2cu::show::render_schedule_page(g, {title, sched2cu::show::sources_of(graph, g)})};
}

int show_one(const ShowArgs& a) {
  std::error_code ec;
  if (fs::equivalent(a.graph, a.out, ec))
    throw Error("show: error: -o " + a.out +
                " is the input graph itself; refusing to overwrite it");
  sched2cu::write_file_atomic(a.out, draw(a.graph, "").page);
  return 0;
}

int show_cases(const ShowArgs& a) {
  namespace h = sched2cu::harness;
  const h::RunOptions o = h::default_run_options(a.root, a.examples);
  struct Page {
    std::string name, kernel, text;
  };
  std::vector<Page> pages;
  std::string errors;
  for (const std::string& name : h::select_cases(o.examples, a.cases)) {
    const h::CaseFiles c = h::inspect_case(o.examples, name);
    if (!c.exists) {
      errors += "\nshow: error: " + name + ": no such case directory under " + o.examples.string();
      continue;
    }
    if (!c.graph) {
      if (a.cases.empty()) {
        std::fprintf(stderr, "show: %s: no schedule_graph.json, skipped\n", name.c_str());
      } else {
        errors += "\nshow: error: " + name + ": no schedule_graph.json in " + c.dir.string();
      }
      continue;
    }
    try {
      Drawn d = draw(c.dir / "schedule_graph.json", name + " schedule");
      pages.push_back({name, std::move(d.kernel), std::move(d.page)});
    } catch (const Error& e) {
      errors += std::string("\n") + e.what();
    }
  }
  if (!errors.empty()) throw Error("show: nothing written:" + errors);
  if (pages.empty()) throw Error("show: error: no case with a schedule_graph.json selected");
  std::error_code ec;
  if (fs::exists(a.dir, ec) && !fs::is_directory(a.dir, ec))
    throw Error("show: error: -d " + a.dir + " exists and is not a directory");
  std::vector<sched2cu::show::IndexEntry> index;
  for (const Page& p : pages) {
    const fs::path file = fs::path(a.dir) / (p.name + ".html");
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw Error("show: error: cannot create " + file.parent_path().string() + ": " +
                  ec.message());
    sched2cu::write_file_atomic(file, p.text);
    index.push_back({p.name, p.kernel, p.name + ".html"});
  }
  sched2cu::write_file_atomic(fs::path(a.dir) / "index.html",
                              sched2cu::show::render_index_page("sched2cu schedules", index));
  std::fprintf(stderr, "show: %zu page(s) and index.html written to %s\n", pages.size(),
               a.dir.c_str());
  return 0;
}

sched2cu::cli::Registrar reg("show", 35, [](CLI::App& app) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* sub = app.add_subcommand(
      "show",
      "Draw schedule graphs as self-contained HTML pages (reservation table, role lanes, "
      "ring lifetimes, budgets)");
  sub->add_option("graph", a->graph, "schedule_graph.json to draw (with -o)");
  sub->add_option("-o,--output", a->out, "the HTML page to write for GRAPH");
  sub->add_option("-d,--dir", a->dir,
                  "draw cases instead: one page per case and an index.html in this directory");
  sub->add_option("--cases", a->cases,
                  "with -d: comma-separated case dirs relative to examples/ (default: every case "
                  "with a schedule_graph.json)");
  sub->add_option("--root", a->root,
                  "with -d: repository root (default: the git checkout of the cwd)");
  sub->add_option("--examples", a->examples, "with -d: corpus dir (default: <root>/examples)");
  return std::function<int()>([a]() {
    const bool cases_mode = !a->dir.empty();
    if (cases_mode && (!a->graph.empty() || !a->out.empty()))
      throw Error("show: error: give either GRAPH -o PAGE.html or -d DIR [--cases a,b], not both");
    if (!cases_mode && (!a->cases.empty() || !a->root.empty() || !a->examples.empty()))
      throw Error("show: error: --cases, --root and --examples need -d DIR");
    if (cases_mode) return show_cases(*a);
    if (a->graph.empty() || a->out.empty())
      throw Error("show: error: give GRAPH -o PAGE.html, or -d DIR [--cases a,b]");
    return show_one(*a);
  });
});

}  // namespace
