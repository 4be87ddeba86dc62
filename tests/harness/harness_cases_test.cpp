// Case discovery against a real temporary directory tree: recursive specs, (no bench_spec)
// rows, the byte-order sort, and --cases expansion.
#include <gtest/gtest.h>

#include "sched2cu/common/diag.h"

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

// Found by a hostile user (issue 12): `--cases /` walked the whole file system and `--cases
// ../x` let regen rewrite fixtures outside the corpus.
TEST_F(Corpus, CasesOutsideTheExamplesDirAreErrors) {
  for (const char* bad : {"/", "/etc", "../case1_a", "case1_a/../../x", "case1_a,/tmp"}) {
    try {
      select_cases(root, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const sched2cu::Error& e) {
      EXPECT_NE(std::string(e.what()).find("not a case directory relative to"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(select_cases(root, "case1_a"), (std::vector<std::string>{"case1_a"}));
  // `list --examples /nonexistent` printed an empty table and exited 0.
  EXPECT_THROW(select_cases(root / "no_such_corpus", ""), sched2cu::Error);
}

TEST_F(Corpus, Inspect) {
  auto c = inspect_case(root, "case1_a");
  EXPECT_TRUE(c.exists && c.spec && c.generated && !c.handwritten);
  EXPECT_FALSE(inspect_case(root, "nope").exists);
  EXPECT_FALSE(inspect_case(root, "case3_nospec").spec);
}
