// `sched2cu new` against a real temporary corpus: what the scaffold holds and renames, what it
// never copies, the names and sources it refuses, and that an error leaves nothing behind.
#include <gtest/gtest.h>

#include <fstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/harness/scaffold.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

const char* kKernel =
    "# case_src: C = A @ B.\n"
    "import triton\n"
    "@triton.jit\n"
    "def k(a_ptr, M, BLOCK: tl.constexpr):\n"
    "    pass\n"
    "\n"
    "DUMP = {\n"
    "    \"kernel\": \"k\",\n"
    "    \"signature\": {\"a_ptr\": \"*fp16\",\n"
    "                  \"M\": \"i32\"},\n"
    "    \"constexprs\": {\"BLOCK\": 128},\n"
    "}\n";

struct Scaffold : ::testing::Test {
  fs::path root;
  ScaffoldOptions opt;

  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("scaffold_" + std::to_string(::getpid()));
    fs::remove_all(root);
    const fs::path src = root / "examples" / "case_src";
    put(src / "kernel.py", kKernel);
    put(src / "bench_spec.cpp", "// Bench spec of case_src.\nSCHED2CU_BENCH_SPEC(X)\n");
    put(src / "vendor.py", "# vendor script of case_src\n");
    for (const char* f : {"pre_modulo.ttgir", "schedule_graph.json", "generated.cu",
                          "handwritten.cu", "README.md", ".hidden", "sub/bench_spec.cpp"})
      put(src / f, "not copied\n");
    opt.examples = root / "examples";
    opt.from = "case_src";
    opt.name = "case_new";
  }
  void TearDown() override { fs::remove_all(root); }

  // Everything under root but examples/case_src, as sorted relative paths.
  std::vector<std::string> tree() const {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(root)) {
      auto rel = e.path().lexically_relative(root).generic_string();
      if (rel.rfind("examples/case_src", 0) != 0) out.push_back(rel);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

TEST_F(Scaffold, CopiesRenamesAndWritesAReadmeSkeleton) {
  ScaffoldResult r = scaffold_case(opt);
  EXPECT_EQ(r.dir, root / "examples" / "case_new");
  EXPECT_EQ(r.files,
            (std::vector<std::string>{"README.md", "bench_spec.cpp", "kernel.py", "vendor.py"}));
  EXPECT_EQ(tree(), (std::vector<std::string>{
                        "examples", "examples/case_new", "examples/case_new/README.md",
                        "examples/case_new/bench_spec.cpp", "examples/case_new/kernel.py",
                        "examples/case_new/vendor.py"}));
  const fs::path d = r.dir;
  EXPECT_EQ(sched2cu::read_file(d / "kernel.py"),
            std::string(kKernel).replace(2, 8, "case_new"));  // "# case_src:" renamed
  EXPECT_EQ(sched2cu::read_file(d / "bench_spec.cpp"),
            "// Bench spec of case_new.\nSCHED2CU_BENCH_SPEC(X)\n");
  EXPECT_EQ(sched2cu::read_file(d / "vendor.py"), "# vendor script of case_new\n");
  const std::string readme = sched2cu::read_file(d / "README.md");
  EXPECT_EQ(readme.rfind("# case_new — ", 0), 0u) << readme;
  EXPECT_NE(readme.find("`sched2cu new case_new --from case_src`"), std::string::npos);
  EXPECT_NE(readme.find("**Launch ABI** (docs/abi.md): `(a_ptr: *fp16, M: i32)`"),
            std::string::npos)
      << readme;
}

TEST_F(Scaffold, RefusesAnExistingName) {
  put(opt.examples / "case_new" / "mine.txt", "keep me");
  try {
    scaffold_case(opt);
    FAIL() << "no error";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sched2cu::read_file(opt.examples / "case_new" / "mine.txt"), "keep me");
  EXPECT_FALSE(fs::exists(opt.examples / "case_new" / "kernel.py"));
  opt.name = "case_src";  // the source itself
  EXPECT_THROW(scaffold_case(opt), sched2cu::Error);
  fs::remove_all(opt.examples / "case_new");
  put(opt.examples / "case_new", "a file");  // a file of that name too
  opt.name = "case_new";
  EXPECT_THROW(scaffold_case(opt), sched2cu::Error);
}

TEST_F(Scaffold, RefusesOddNames) {
  for (const char* bad : {"", "a/b", "../x", "/tmp/x", "a\\b", ".hidden", "-x", "_x", "a b", "x;rm",
                          "caseé", "a.b", "x\n"}) {
    opt.name = bad;
    EXPECT_THROW(scaffold_case(opt), sched2cu::Error) << "'" << bad << "'";
    EXPECT_NE(invalid_case_name(bad), "") << "'" << bad << "'";
  }
  EXPECT_EQ(invalid_case_name(std::string(64, 'a')), "");
  EXPECT_NE(invalid_case_name(std::string(65, 'a')), "");
  EXPECT_EQ(invalid_case_name("case10_gemm-silu"), "");
  EXPECT_EQ(tree(), (std::vector<std::string>{"examples"}));  // nothing made
}

TEST_F(Scaffold, RefusesASourceThatIsNotACaseToCopy) {
  for (const char* bad : {"no_such_case", "../examples/case_src", "/abs", ""}) {
    opt.from = bad;
    EXPECT_THROW(scaffold_case(opt), sched2cu::Error) << bad;
  }
  put(opt.examples / "no_dump" / "kernel.py", "import triton\n");
  put(opt.examples / "no_dump" / "bench_spec.cpp", "spec\n");
  put(opt.examples / "no_spec" / "kernel.py", kKernel);
  put(opt.examples / "no_kernel" / "bench_spec.cpp", "spec\n");
  for (const char* bad : {"no_dump", "no_spec", "no_kernel"}) {
    opt.from = bad;
    try {
      scaffold_case(opt);
      ADD_FAILURE() << bad << ": no error";
    } catch (const sched2cu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(opt.examples / "case_new"));
}

// An error after some files were written leaves no directory behind: neither the case nor the
// staging directory (which lives beside examples/, where no case is looked for).
TEST_F(Scaffold, AnErrorLeavesNothingBehind) {
  fs::path staged;
  opt.before_publish = [&](const fs::path& p) {
    staged = p;
    EXPECT_TRUE(fs::exists(p / "kernel.py"));
    EXPECT_NE(p.parent_path().parent_path(), opt.examples);
    throw sched2cu::Error("injected failure");
  };
  EXPECT_THROW(scaffold_case(opt), sched2cu::Error);
  EXPECT_FALSE(staged.empty());
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_EQ(tree(), (std::vector<std::string>{"examples"}));

  // The name taken meanwhile (another process): refused, the other directory kept, ours gone.
  opt.before_publish = [&](const fs::path& p) {
    staged = p;
    put(opt.examples / "case_new" / "theirs.txt", "theirs");
  };
  EXPECT_THROW(scaffold_case(opt), sched2cu::Error);
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_EQ(tree(), (std::vector<std::string>{"examples", "examples/case_new",
                                              "examples/case_new/theirs.txt"}));
}
