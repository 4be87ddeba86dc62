// compare's row rules against a real temporary git repository: byte-identity ("unchanged",
// measured once), a changed generated.cu (both sides measured, the revision's bytes on the left),
// a file absent at the revision, missing files, and a revision that is not a commit. The GPU is
// replaced by a measuring function that reads the kernel file it is given, so every rule is
// checked on real files and real git output. Also check and bench rows.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/harness/git.h"
#include "sched2cu/harness/html_report.h"
#include "sched2cu/harness/runner.h"
#include "sched2cu/harness/subprocess.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;

namespace {

void sh(const fs::path& dir, std::vector<std::string> argv) {
  ProcOptions o;
  o.cwd = dir.string();
  auto r = run_process(argv, o);
  ASSERT_TRUE(r.ok()) << argv[0] << " " << argv[1] << ": " << r.err;
}

void put(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

// "generated.cu" files hold "tp=<throughput> ok=<0|1>"; hw throughput is 100; with the Triton
// column asked for, Triton's is 80 and the log entry ends in ":triton".
Measurement fake_measure(const CaseFiles& c, const fs::path& gen, const std::string& mode,
                         bool triton, std::vector<std::string>* log) {
  Measurement m;
  log->push_back(c.name + ":" + mode + ":" + (gen.empty() ? "-" : gen.filename().string()) +
                 (triton ? ":triton" : ""));
  std::ifstream f(gen);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (text.find("boom") != std::string::npos) {
    m.error = "generated.cu does not build: boom";
    return m;
  }
  double tp = 0;
  int ok = 1;
  std::sscanf(text.c_str(), "tp=%lf ok=%d", &tp, &ok);
  m.has_generated = true;
  m.has_hw = c.handwritten;
  ShapeResult s;
  s.shape = {128};
  s.label = "128";
  s.unit = "TFLOPS";
  s.ok = ok == 1;
  KernelTiming g;
  g.throughput = tp;
  s.gen = g;
  if (c.handwritten) {
    KernelTiming h;
    h.throughput = 100;
    s.hw = h;
  }
  if (triton) {
    KernelTiming t;
    t.throughput = 80;
    s.triton = t;
    m.has_triton = true;
  }
  m.shapes = {s};
  m.raw = {{"fake", true}};
  return m;
}

struct Repo : ::testing::Test {
  fs::path root;
  RunOptions opt;
  std::vector<std::string> log;
  MeasureFn measure = [this](const CaseFiles& c, const fs::path& g, const std::string& mode,
                             const std::string&,
                             bool triton) { return fake_measure(c, g, mode, triton, &log); };

  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("repo_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "runtime");
    put(root / "runtime" / "x.h", "// runtime\n");
    put(root / "examples/case_same/bench_spec.cpp", "spec");
    put(root / "examples/case_same/handwritten.cu", "hw");
    put(root / "examples/case_same/generated.cu", "tp=90 ok=1");
    put(root / "examples/case_changed/bench_spec.cpp", "spec");
    put(root / "examples/case_changed/handwritten.cu", "hw");
    put(root / "examples/case_changed/generated.cu", "tp=100 ok=1");
    put(root / "examples/case_raw/bench_spec.cpp", "spec");
    put(root / "examples/case_raw/generated.cu", "tp=612 ok=1");
    put(root / "examples/case_nogen/bench_spec.cpp", "spec");
    put(root / "examples/case_nospec/kernel.py", "k");
    sh(root, {"git", "init", "-q", "-b", "main"});
    sh(root, {"git", "add", "-A"});
    sh(root, {"git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base"});
    // Working-tree edits after the commit.
    put(root / "examples/case_changed/generated.cu", "tp=120.5 ok=1");
    put(root / "examples/case_new/bench_spec.cpp", "spec");
    put(root / "examples/case_new/handwritten.cu", "hw");
    put(root / "examples/case_new/generated.cu", "tp=50 ok=0");
    put(root / "examples/case_raw/generated.cu", "tp=700 ok=1 boom");
    opt = default_run_options(root.string(), "");
    opt.rev = "main";
  }
  void TearDown() override { fs::remove_all(root); }
};

}  // namespace

TEST_F(Repo, RowRules) {
  opt.cases_arg = "case_same,case_changed,case_new,case_raw,case_nogen,case_nospec,case_gone";
  auto rows = compare_rows(opt, measure);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].status, "unchanged");
  EXPECT_EQ(rows[0].left, "0.90x");
  EXPECT_EQ(rows[0].right, "unchanged");
  EXPECT_EQ(rows[0].improvement, "-");
  EXPECT_FALSE(rows[0].bold);

  EXPECT_EQ(rows[1].status, "changed");
  EXPECT_EQ(rows[1].left, "1.00x");
  EXPECT_EQ(rows[1].right, "1.21x");
  EXPECT_EQ(rows[1].improvement, "+20.5%");
  EXPECT_TRUE(rows[1].bold);

  EXPECT_EQ(rows[2].status, "not_on_rev");
  EXPECT_EQ(rows[2].left, "(not on main)");
  EXPECT_EQ(rows[2].right, "0.50x, FAIL");
  EXPECT_TRUE(rows[2].bold);

  EXPECT_EQ(rows[3].status, "changed");
  EXPECT_EQ(rows[3].left, "612 TFLOPS");
  EXPECT_EQ(rows[3].right, "(error: generated.cu does not build: boom)");
  EXPECT_EQ(rows[3].improvement, "-");

  EXPECT_EQ(rows[4].left, "(no generated.cu)");
  EXPECT_EQ(rows[5].left, "(no bench_spec)");
  EXPECT_EQ(rows[6].left, "(no such case dir)");
  EXPECT_EQ(rows[6].right, "(no such case dir)");

  // The unchanged case was measured once; the changed ones twice, the revision's bytes first
  // (from a temporary generated.cu), the working tree's second.
  std::vector<std::string> want = {
      "case_same:compare:generated.cu",    "case_changed:compare:generated.cu",
      "case_changed:compare:generated.cu", "case_new:compare:generated.cu",
      "case_raw:compare:generated.cu",     "case_raw:compare:generated.cu"};
  EXPECT_EQ(log, want);

  auto j = compare_json(rows, opt, {{"name", "fake"}});
  EXPECT_EQ(j["rev_label"], "main");
  EXPECT_EQ(j["cases"][1]["status"], "changed");
  EXPECT_EQ(j["cases"][1]["cells"]["improvement"], "+20.5%");
  EXPECT_EQ(j["cases"][1]["left"]["fake"], true);
  EXPECT_EQ(j["cases"][3]["right"]["error"], "generated.cu does not build: boom");
  EXPECT_TRUE(j["cases"][4]["left"].is_null());
}

// compare --triton: only the working tree's measurement asks for Triton (the revision's side
// never does; an unchanged case's one measurement is the branch's), its figure and gen/triton
// fill two more columns, and an error row leaves them "-".
TEST_F(Repo, TritonColumnForTheBranchSide) {
  opt.cases_arg = "case_same,case_changed,case_raw,case_nogen";
  opt.triton = true;
  auto rows = compare_rows(opt, measure);
  ASSERT_EQ(rows.size(), 4u);
  std::vector<std::string> want_log = {
      "case_same:compare:generated.cu:triton", "case_changed:compare:generated.cu",
      "case_changed:compare:generated.cu:triton", "case_raw:compare:generated.cu",
      "case_raw:compare:generated.cu:triton"};
  EXPECT_EQ(log, want_log);
  EXPECT_EQ(rows[0].triton, "80 TFLOPS");
  EXPECT_EQ(rows[0].gen_triton, "1.12x");
  EXPECT_EQ(rows[1].triton, "80 TFLOPS");
  EXPECT_EQ(rows[1].gen_triton, "1.51x");  // 120.5 / 80
  EXPECT_EQ(rows[2].triton, "-");          // the branch side does not build
  EXPECT_EQ(rows[3].triton, "-");          // (no generated.cu): nothing measured

  const std::string table = render_compare(rows, opt.rev, false, TableFormat::Box, true);
  EXPECT_NE(table.find("│ improvement │ triton    │ gen/triton │"), std::string::npos) << table;
  EXPECT_NE(table.find("│ +20.5%      │ 80 TFLOPS │ 1.51x      │"), std::string::npos) << table;
  EXPECT_NE(table.find("triton = the case's kernel.py compiled by Triton"), std::string::npos);
  auto j = compare_json(rows, opt, {});
  EXPECT_EQ(j["cases"][1]["cells"]["triton"], "80 TFLOPS");
  EXPECT_EQ(j["cases"][1]["cells"]["gen/triton"], "1.51x");

  // Without --triton the table and the JSON have neither.
  opt.triton = false;
  log.clear();
  rows = compare_rows(opt, measure);
  for (const auto& l : log) EXPECT_EQ(l.find(":triton"), std::string::npos) << l;
  EXPECT_EQ(render_compare(rows, opt.rev, false).find("gen/triton"), std::string::npos);
  EXPECT_FALSE(compare_json(rows, opt, {})["cases"][1]["cells"].contains("triton"));
}

TEST_F(Repo, DefaultDiscoveryKeepsNoSpecRows) {
  auto rows = compare_rows(opt, measure);
  std::vector<std::string> names;
  for (auto& r : rows) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"case_changed", "case_new", "case_nogen",
                                             "case_nospec", "case_raw", "case_same"}));
}

TEST_F(Repo, RevisionMustBeACommit) {
  opt.rev = "no-such-rev";
  EXPECT_THROW(compare_rows(opt, measure), sched2cu::Error);
  EXPECT_EQ(run_compare(opt), 2);
  opt.rev = "--output=/tmp/x";
  EXPECT_FALSE(git_is_commit(root, opt.rev));
  EXPECT_TRUE(git_is_commit(root, "HEAD"));
  EXPECT_EQ(rev_label("origin/main"), "main");
  EXPECT_EQ(rev_label("HEAD~1"), "HEAD~1");
}

TEST_F(Repo, GitShowIsByteExact) {
  auto old = git_show(root, "main", "examples/case_changed/generated.cu");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(*old, "tp=100 ok=1");
  EXPECT_FALSE(git_show(root, "main", "examples/case_new/generated.cu").has_value());
}

TEST_F(Repo, CheckRowsAndExitFlag) {
  opt.cases_arg = "case_same,case_new,case_nospec,case_gone";
  auto rows = check_rows(opt, measure);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{"case_same", "ok", "ok"}));
  EXPECT_FALSE(rows[0].failed);
  EXPECT_EQ(rows[1].cells[1], "FAIL (128)");
  EXPECT_TRUE(rows[1].failed);
  EXPECT_FALSE(rows[2].failed);  // (no bench_spec) is listed, not a failure
  EXPECT_TRUE(rows[3].failed);   // a named case that does not exist is
  EXPECT_EQ(log[0], "case_same:check:generated.cu");
}

TEST_F(Repo, BenchRows) {
  opt.cases_arg = "case_same,case_nogen";
  auto rows = bench_rows(opt, measure);
  EXPECT_EQ(rows[0].cells[2], "90 TFLOPS");
  EXPECT_EQ(rows[0].cells[3], "100 TFLOPS");
  EXPECT_EQ(rows[0].cells[4], "80 TFLOPS");  // triton
  EXPECT_EQ(rows[0].cells[6], "0.90x");      // gen/hw
  EXPECT_EQ(rows[0].cells[7], "1.12x");      // gen/triton
  EXPECT_EQ(rows[1].cells[2], "(no generated.cu)");
  // bench asks every measurement for the Triton column; check never does.
  EXPECT_EQ(log[0], "case_same:bench:generated.cu:triton");
  EXPECT_EQ(log[1], "case_nogen:bench:-:triton");
}

// bench with a case whose spec asks for the roofline copy and has a check-only shape, next to a
// case without either: the copy columns appear once (for the whole table), "-" where a case has
// no copy, check-only shapes are counted in the shapes cell and carry no figure, and --json's
// cells follow the header. The first case's Triton ran with fewer stages than its DUMP's.
TEST_F(Repo, BenchTableWithRooflineCopy) {
  opt.cases_arg = "case_same,case_changed";
  auto with_copy = [](const CaseFiles& c, const fs::path&, const std::string&, const std::string&,
                      bool) {
    nlohmann::json shapes = nlohmann::json::array();
    auto t = [](double tp) { return nlohmann::json{{"median_ms", 1.0}, {"throughput", tp}}; };
    if (c.name == "case_same") {
      shapes.push_back({{"shape", {16384, 512}},
                        {"label", "16384x512"},
                        {"unit", "GB/s"},
                        {"ok", true},
                        {"timed", true},
                        {"gen", t(3000)},
                        {"hw", t(3600)},
                        {"triton", t(2400)},
                        {"copy", t(4000)}});
      shapes.push_back({{"shape", {5, 512}},
                        {"label", "5x512"},
                        {"unit", "GB/s"},
                        {"ok", true},
                        {"hw_ok", true},
                        {"triton_ok", true},
                        {"timed", false}});
    } else {
      shapes.push_back({{"shape", {128}},
                        {"label", "128"},
                        {"unit", "TFLOPS"},
                        {"ok", true},
                        {"gen", t(90)},
                        {"hw", t(100)}});
    }
    return parse_measurement({{"has_generated", true},
                              {"has_hw", true},
                              {"has_copy", c.name == "case_same"},
                              {"has_triton", c.name == "case_same"},
                              {"triton", {{"num_stages", 2}, {"dump_num_stages", 3}}},
                              {"shapes", shapes}});
  };
  auto rows = bench_rows(opt, with_copy);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cells,
            (std::vector<std::string>{"case_same", "16384x512 (+1 check-only)", "3000 GB/s",
                                      "3600 GB/s", "2400 GB/s (stages 2)", "-", "0.83x", "1.25x",
                                      "-", "-", "4000 GB/s", "0.75x", "0.90x"}));
  EXPECT_EQ(rows[1].cells[4], "-");  // no Triton kernel
  EXPECT_EQ(rows[1].cells[10], "-");
  EXPECT_EQ(bench_header(rows),
            (std::vector<std::string>{"case", "shapes", "generated", "handwritten", "triton",
                                      "vendor", "gen/hw", "gen/triton", "gen/vendor", "hw/vendor",
                                      "copy", "gen/copy", "hw/copy"}));
  const char* want =
      "\n"
      "┌──────────────┬───────────────────────────┬───────────┬─────────────┬──────────────────────"
      "┬────────┬────────┬────────────┬────────────┬───────────┬───────────┬──────────┬─────────┐\n"
      "│ case         │ shapes                    │ generated │ handwritten │ triton               "
      "│ vendor │ gen/hw │ gen/triton │ gen/vendor │ hw/vendor │ copy      │ gen/copy │ hw/copy │\n"
      "├──────────────┼───────────────────────────┼───────────┼─────────────┼──────────────────────"
      "┼────────┼────────┼────────────┼────────────┼───────────┼───────────┼──────────┼─────────┤\n"
      "│ case_same    │ 16384x512 (+1 check-only) │ 3000 GB/s │ 3600 GB/s   │ 2400 GB/s (stages 2) "
      "│ -      │ 0.83x  │ 1.25x      │ -          │ -         │ 4000 GB/s │ 0.75x    │ 0.90x   │\n"
      "│ case_changed │ 128                       │ 90 TFLOPS │ 100 TFLOPS  │ -                    "
      "│ -      │ 0.90x  │ -          │ -          │ -         │ -         │ -        │ -       │\n"
      "└──────────────┴───────────────────────────┴───────────┴─────────────┴──────────────────────"
      "┴────────┴────────┴────────────┴────────────┴───────────┴───────────┴──────────┴─────────┘"
      "\n";
  EXPECT_EQ(render_table(bench_table(rows), false), want);
  auto j = bench_json(rows, {{"name", "fake"}});
  EXPECT_EQ(j["command"], "bench");
  EXPECT_EQ(j["cases"][0]["cells"]["copy"], "4000 GB/s");
  EXPECT_EQ(j["cases"][0]["cells"]["hw/copy"], "0.90x");
  EXPECT_EQ(j["cases"][1]["cells"]["gen/copy"], "-");
  EXPECT_EQ(j["cases"][0]["cells"]["triton"], "2400 GB/s (stages 2)");
  EXPECT_EQ(j["cases"][0]["cells"]["gen/triton"], "1.25x");
  EXPECT_EQ(j["cases"][0]["cells"].size(), 12u);  // every column but "case"

  // Without a copy anywhere the table keeps its 10 columns, and so does the JSON.
  opt.cases_arg = "case_changed";
  rows = bench_rows(opt, with_copy);
  EXPECT_EQ(bench_table(rows).header.size(), 10u);
  EXPECT_EQ(bench_table(rows).rows[0].size(), 10u);
  j = bench_json(rows, {});
  EXPECT_FALSE(j["cases"][0]["cells"].contains("copy"));
}

// What `sched2cu bench --markdown` prints, from fixed results: the box table's cells as a GitHub
// Markdown table, the copy columns as in the box table, an error cell's whole text as a
// footnote, and the note under the table.
TEST_F(Repo, BenchMarkdownGolden) {
  opt.cases_arg = "case_same,case_nogen,case_nospec";
  auto fixed = [](const CaseFiles& c, const fs::path&, const std::string&, const std::string&,
                  bool) {
    auto t = [](double tp) { return nlohmann::json{{"median_ms", 1.0}, {"throughput", tp}}; };
    if (c.name == "case_nogen") {
      Measurement m;
      m.error =
          "bench_spec.cpp does not build: examples/case_nogen/bench_spec.cpp(3): error: "
          "identifier \"shape_of\" is undefined (a spec derives from BenchSpec)";
      return m;
    }
    nlohmann::json shapes = nlohmann::json::array();
    shapes.push_back({{"shape", {16384, 512}},
                      {"label", "16384x512"},
                      {"unit", "GB/s"},
                      {"ok", true},
                      {"gen", t(3000)},
                      {"hw", t(3600)},
                      {"vendor", t(1500)},
                      {"copy", t(4000)}});
    shapes.push_back({{"shape", {5, 512}},
                      {"label", "5x512"},
                      {"unit", "GB/s"},
                      {"ok", false},
                      {"timed", false}});
    return parse_measurement({{"has_generated", true},
                              {"has_hw", true},
                              {"vendor_name", "PyTorch"},
                              {"has_copy", true},
                              {"shapes", shapes}});
  };
  auto rows = bench_rows(opt, fixed);
  const char* want =
      "| case        | shapes                    | generated                                       "
      "                                                          | handwritten     | triton        "
      "  | vendor          | gen/hw | gen/triton | gen/vendor | hw/vendor | copy      | gen/copy | "
      "hw/copy |\n"
      "| ----------- | ------------------------- | ------------------------------------------------"
      "--------------------------------------------------------- | --------------- | --------------"
      "- | --------------- | ------ | ---------- | ---------- | --------- | --------- | -------- | "
      "------- |\n"
      "| case_same   | 16384x512 (+1 check-only) | 3000 GB/s, FAIL (5x512)                         "
      "                                                          | 3600 GB/s       | -             "
      "  | 1500 GB/s       | 0.83x  | -          | 2.00x      | 2.40x     | 4000 GB/s | 0.75x    | "
      "0.90x   |\n"
      "| case_nogen  | -                         | (error: bench_spec.cpp does not build: examples/"
      "case_nogen/bench_spec.cpp(3): error: identifier \"sh… [^1] | -               | -            "
      " "
      "  | -               | -      | -          | -          | -         | -         | -        | "
      "-       |\n"
      "| case_nospec | -                         | (no bench_spec)                                 "
      "                                                          | (no bench_spec) | (no bench_spec"
      ") | (no bench_spec) | -      | -          | -          | -         | -         | -        | "
      "-       |\n"
      "\n"
      "[^1]: case_nogen, generated: (error: bench_spec.cpp does not build: examples/case_nogen/benc"
      "h_spec.cpp(3): error: identifier \"shape_of\" is undefined (a spec derives from "
      "BenchSpec))\n"
      "\n"
      "throughput per shape (median of do_bench-style timings, L2 flushed before each call);\n"
      "FAIL after a figure = that kernel failed its correctness check at that shape; FAIL (...)\n"
      "= it failed at those check-only shapes (checked, never timed).\n"
      "triton = the case's kernel.py compiled by Triton with its DUMP config, on the generated\n"
      "kernel's grid; (stages N) = it ran with N pipeline stages, fewer than DUMP's, to fit in\n"
      "shared memory; (N/SM) = kernel.py strides by tl.num_programs, so its grid is free: it\n"
      "ran with N programs per SM, the fastest of 1, 2, 4, 8, 16 timed briefly at that shape.\n"
      "copy = a device-to-device cudaMemcpyAsync moving the bytes the case's metric counts,\n"
      "timed with the kernels (the bandwidth roofline); gen/copy = copy time / kernel time.\n";
  EXPECT_EQ(render_bench(rows, TableFormat::Markdown), want);
}

// compare --html from the rows compare_rows makes: the page's table is the box table's (row for
// row, the re-measured branch cells bold), and the bars show each side that was measured: both
// for a changed case, the revision's alone for an unchanged one (measured once), the branch's
// alone where the revision has no generated.cu, none for an error or a case not measured.
TEST_F(Repo, CompareHtmlPage) {
  opt.cases_arg = "case_same,case_changed,case_new,case_raw,case_nospec";
  auto rows = compare_rows(opt, measure);
  const std::string page = compare_html(rows, opt.rev, {{"name", "fake GPU"}});
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_NE(page.find("<tr><th>case</th><th>main (gen/hw)</th><th>branch (gen/hw)</th>"
                      "<th>improvement</th></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("<tr><td>case_changed</td><td>1.00x</td><td><b>1.21x</b></td>"
                      "<td>+20.5%</td></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("<td>case_same</td><td>0.90x</td><td>unchanged</td>"), std::string::npos);
  EXPECT_EQ(count("<tr>"), 6u);
  // Bars: case_same 2 (main = branch generated, hand-written), case_changed 4, case_new 2
  // (branch only), case_raw 1 (main generated; no hand-written kernel; the branch errs).
  EXPECT_EQ(count("<g class=\"bar\""), 9u);
  EXPECT_EQ(count("data-series=\"main = branch generated\""), 1u);
  EXPECT_EQ(count("data-series=\"branch generated\""), 2u);
  EXPECT_EQ(count("<h3>"), 4u);
  EXPECT_NE(page.find("measured on fake GPU"), std::string::npos);
}

// --root names a tree with its own runtime/ even when that tree sits inside another checkout
// (it resolved to the enclosing checkout's top, so a scratch copy was silently ignored); a path
// without runtime/ still resolves to its checkout.
TEST_F(Repo, RootInsideAnotherCheckoutIsItsOwnTree) {
  const fs::path copy = root / "scratch" / "tree";
  fs::create_directories(copy / "runtime");
  fs::create_directories(copy / "examples");
  EXPECT_EQ(default_run_options(copy.string(), "").root, fs::weakly_canonical(copy));
  EXPECT_EQ(default_run_options((root / "examples").string(), "").root, fs::weakly_canonical(root));
}

// A signal in the middle of a run (`timeout` killing `sched2cu bench`, Ctrl-C): the case being
// measured keeps what its measurement returned, no later case is measured (each says why), and
// the command's exit status is 128 + the signal, after the table and files are written. Before
// this, check, bench and compare died on the spot: the measuring child stayed on the GPU and
// every figure measured so far was lost.
TEST_F(Repo, ASignalStopsTheRunAndKeepsWhatWasMeasured) {
  install_interrupt_handlers();
  auto raising = [this](const CaseFiles& c, const fs::path& g, const std::string& mode,
                        const std::string&, bool triton) {
    Measurement m = fake_measure(c, g, mode, triton, &log);
    std::raise(SIGTERM);  // arrives while this case is measured
    return m;
  };
  opt.cases_arg = "case_same,case_changed,case_new";
  auto rows = bench_rows(opt, raising);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].cells[2], "90 TFLOPS");
  EXPECT_FALSE(rows[0].failed);
  EXPECT_EQ(rows[1].cells[2], "(not run: interrupted by SIGTERM)");
  EXPECT_TRUE(rows[1].failed);
  EXPECT_EQ(rows[2].cells[2], "(not run: interrupted by SIGTERM)");
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(interrupted_exit("bench"), 128 + SIGTERM);
  clear_interrupt();

  auto checked = check_rows(opt, raising);
  EXPECT_EQ(checked[0].cells[1], "ok");
  EXPECT_EQ(checked[1].cells[1], "(not run: interrupted by SIGTERM)");
  EXPECT_TRUE(checked[2].failed);
  clear_interrupt();

  auto compared = compare_rows(opt, raising);
  EXPECT_EQ(compared[0].status, "unchanged");
  EXPECT_EQ(compared[1].status, "not_run");
  EXPECT_EQ(compared[1].right, "(not run: interrupted by SIGTERM)");
  EXPECT_EQ(log.size(), 3u);  // one measurement per command
  clear_interrupt();
  EXPECT_EQ(interrupted_exit("compare"), 0);
}

// check, bench and compare hand their rows so far to a sink after each case (run_* rewrite
// --json from it, marked "partial"), so that even a run killed by SIGKILL, which no handler
// sees, leaves every finished case's figures on disk.
TEST_F(Repo, RowsReachTheSinkAfterEachCase) {
  opt.cases_arg = "case_same,case_changed,case_new";
  std::vector<size_t> seen;
  std::vector<std::string> last_names;
  auto rows = bench_rows(opt, measure, [&](const std::vector<CaseRow>& so_far) {
    seen.push_back(so_far.size());
    last_names.clear();
    for (const auto& r : so_far) last_names.push_back(r.name);
    // Each case is measured before the sink sees it, never after.
    EXPECT_EQ(log.size(), so_far.size());
  });
  EXPECT_EQ(seen, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(last_names, (std::vector<std::string>{"case_same", "case_changed", "case_new"}));
  seen.clear();
  log.clear();
  check_rows(opt, measure,
             [&](const std::vector<CaseRow>& so_far) { seen.push_back(so_far.size()); });
  EXPECT_EQ(seen, (std::vector<size_t>{1, 2, 3}));
  seen.clear();
  compare_rows(opt, measure,
               [&](const std::vector<CompareRow>& so_far) { seen.push_back(so_far.size()); });
  EXPECT_EQ(seen, (std::vector<size_t>{1, 2, 3}));
}
