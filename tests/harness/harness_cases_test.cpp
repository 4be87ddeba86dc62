// Case discovery against a real temporary directory tree: recursive specs, (no bench_spec)
// rows, the byte-order sort, and --cases expansion.
#include <gtest/gtest.h>

#include <fstream>

#include "sched2cu/harness/cases.h"

using namespace sched2cu::harness;
namespace fs = std::filesystem;

namespace {

struct Corpus : ::testing::Test {
  fs::path root;
  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("cases_" + std::to_string(::getpid()));
    fs::remove_all(root);
    for (auto d : {"case1_a", "case10_z", "case9_x/blockwise", "case9_x/other_no_spec",
                   "case3_nospec", "notacase", "case4_deep/v1/w"}) {
      fs::create_directories(root / d);
    }
    for (auto f : {"case1_a", "case10_z", "case9_x/blockwise", "notacase", "case4_deep/v1/w"}) {
      std::ofstream(root / f / kSpecFile) << "// spec\n";
    }
    std::ofstream(root / "case1_a" / "generated.cu") << "x";
    std::ofstream(root / "case_file_not_dir") << "x";
  }
  void TearDown() override { fs::remove_all(root); }
};

}  // namespace

TEST_F(Corpus, DiscoverSortedWithNoSpecRows) {
  EXPECT_EQ(discover_cases(root),
            (std::vector<std::string>{"case10_z", "case1_a", "case3_nospec", "case4_deep/v1/w",
                                      "case9_x/blockwise", "notacase"}));
}

TEST_F(Corpus, CasesExpansion) {
  EXPECT_EQ(select_cases(root, "case9_x"), (std::vector<std::string>{"case9_x/blockwise"}));
  EXPECT_EQ(select_cases(root, "case4_deep/"), (std::vector<std::string>{"case4_deep/v1/w"}));
  EXPECT_EQ(select_cases(root, " case1_a , case1_a,nope,case3_nospec"),
            (std::vector<std::string>{"case1_a", "case1_a", "nope", "case3_nospec"}));
  EXPECT_TRUE(select_cases(root, ",").empty());
  EXPECT_EQ(select_cases(root, ""), discover_cases(root));
}

TEST_F(Corpus, Inspect) {
  auto c = inspect_case(root, "case1_a");
  EXPECT_TRUE(c.exists && c.spec && c.generated && !c.handwritten);
  EXPECT_FALSE(inspect_case(root, "nope").exists);
  EXPECT_FALSE(inspect_case(root, "case3_nospec").spec);
}
