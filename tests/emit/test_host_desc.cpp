// Host tensor descriptors (Triton's TensorDescriptor arguments, the persistent-matmul tutorial's
// TMA kernels): the launcher takes each as its base pointer, extents and strides (the arguments
// Triton expands it into) and builds its tensor map from them with the box the kernel's use
// fixes; a descriptor argument without its expansion is refused with its name.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"
#include "sched2cu/ddg/target_model.h"
#include "sched2cu/emit/emit.h"
#include "sched2cu/sched/kernel.h"
#include "sched2cu/sgraph/json_io.h"
#include "sched2cu/ttgir/parser.h"

namespace {

namespace fs = std::filesystem;
const fs::path kCase =
    fs::path(SCHED2CU_SOURCE_DIR) / "tests/harness/gpu_cases/matmul_tma_persistent_tutorial";

TEST(HostDesc, LauncherBuildsEachMapFromItsArguments) {
  const std::string s = sched2cu::emit::emit_cuda(
      sched2cu::sgraph::read_schedule_graph(kCase / "schedule_graph.json"), {});
  // Three descriptors of 1 + 2 + 2 arguments each, then M, N, K.
  EXPECT_NE(s.find("nargs != 18"), std::string::npos);
  EXPECT_NE(s.find("void* const arg_b_desc = args[5].ptr;"), std::string::npos);
  // B [N, K]: extents innermost first (K, then N), the row stride in bytes, a [256, 64] box.
  EXPECT_NE(s.find("const long long ext[2] = {static_cast<long long>(arg_b_desc_5), "
                   "static_cast<long long>(arg_b_desc_4)};"),
            std::string::npos);
  EXPECT_NE(s.find("const uint64_t strides[1] = {static_cast<uint64_t>(arg_b_desc_6) * 2u};"),
            std::string::npos);
  EXPECT_NE(s.find("tma_make_map(&map_b_desc, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, arg_b_desc, "
                   "dims, strides, box, TmaSwizzle::b128)"),
            std::string::npos);
  EXPECT_NE(s.find("if (arg_b_desc_7 != 1) return cudaErrorInvalidValue;  // innermost stride"),
            std::string::npos);
  // The kernel takes the maps; the base pointers ride along unread.
  EXPECT_NE(s.find("const __grid_constant__ CUtensorMap map_a_desc"), std::string::npos);
}

TEST(HostDesc, ADescriptorArgumentWithoutItsExtentsIsRefused) {
  std::string text = sched2cu::read_file((kCase / "pre_modulo.ttgir").string());
  // Drop a_desc's last stride argument from the signature: the expansion no longer matches.
  const std::string arg = ", %a_desc_3: i64 loc(\"a_desc\"(#loc))";
  const size_t at = text.find(arg);
  ASSERT_NE(at, std::string::npos);
  text.erase(at, arg.size());
  const auto t = sched2cu::ddg::TargetModel::load(sched2cu::ddg::TargetModel::default_path());
  try {
    const auto ks =
        sched2cu::sched::schedule_kernel(sched2cu::ttgir::parse_module(text, "pre_modulo.ttgir"),
                                         "matmul_kernel_tma_persistent", t, {});
    (void)sched2cu::emit::emit_cuda(ks.graph, {});
    FAIL() << "emitted a kernel whose descriptor argument lost a stride";
  } catch (const sched2cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tensor descriptor argument a_desc"), std::string::npos)
        << e.what();
  }
}

}  // namespace
