// VirtualFlow's solver choosing how many GPUs of each type to use, on
// hand-computed cases: one where leaving the slow GPUs out is best, one where
// using them helps, and the batch mode.
#include "vnsim/core/hetero_choice.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace vnsim {
namespace {

// Per virtual node (micro-batch) of any size: 1 s on "fast", `slow_s` on "slow".
std::vector<GpuTypeGroup> two_types(double slow_s) {
  return {{"fast", 2, [](double) { return 1.0; }, 0}, {"slow", 2, [slow_s](double) { return slow_s; }, 0}};
}

// 0 s on one GPU, 0.5 s within the fast node, `cross_s` once a slow GPU joins.
CollectiveOf collective(double cross_s) {
  return [cross_s](const std::vector<int>& used) {
    if (used[0] + used[1] == 1) return 0.0;
    return used[1] > 0 ? cross_s : 0.5;
  };
}

// V = 4 virtual nodes, slow GPUs 3 s per virtual node, 2 s collective across
// the NIC. By hand:
//   (1, 0): 4 VNs x 1 s + 0          = 4.0 s
//   (2, 0): 2 + 2 VNs: 2 s + 0.5     = 2.5 s   <- best
//   (2, 1): 2, 1 | 1: max(2, 3) + 2  = 5.0 s
//   (2, 2): 1, 1 | 1, 1: 3 + 2       = 5.0 s
//   (0, n): at least 3 s per slow VN and more.
TEST(HeteroChoice, LeavesSlowGpusOutWhenTheyCostMoreThanTheySave) {
  const HeteroChoice c = choose_virtual_nodes(two_types(3.0), 4, 4, collective(2.0));
  EXPECT_EQ(c.used, (std::vector<int>{2, 0}));
  EXPECT_DOUBLE_EQ(c.split.total_s, 2.5);
  ASSERT_EQ(c.split.gpus.size(), 2u);
  for (const GpuShare& s : c.split.gpus) {
    EXPECT_EQ(s.group, 0);
    EXPECT_EQ(s.virtual_nodes, 2);
  }
  EXPECT_EQ(c.split.max_units_per_group, (std::vector<int>{2, 0}));
  // Forced to use every GPU (the split alone), the same job takes 5 s.
  EXPECT_DOUBLE_EQ(split_virtual_nodes(two_types(3.0), 4, 4, 2.0).total_s, 5.0);
}

// V = 8, slow GPUs 1.2 s per VN, collective 0.5 s wherever the GPUs are. By hand:
//   (2, 0): 4 + 4 VNs                       = 4.0 + 0.5 = 4.5 s
//   (2, 1): 3, 3 | 2: max(3, 2.4)           = 3.0 + 0.5 = 3.5 s
//   (2, 2): 2, 2 | 2, 2: max(2, 2.4)        = 2.4 + 0.5 = 2.9 s   <- best
//   (1, 2): 4 | 2, 2 or 3 | 3, 2: min 3.6   = 3.6 + 0.5 = 4.1 s
TEST(HeteroChoice, UsesSlowGpusWhenTheyHelp) {
  const HeteroChoice c = choose_virtual_nodes(two_types(1.2), 8, 8, collective(0.5));
  EXPECT_EQ(c.used, (std::vector<int>{2, 2}));
  EXPECT_NEAR(c.split.total_s, 2.9, 1e-12);
  EXPECT_EQ(c.split.min_units_per_group, (std::vector<int>{2, 2}));
  EXPECT_EQ(c.split.max_units_per_group, (std::vector<int>{2, 2}));
}

// Equal totals: fewer GPUs win. With slow = 2 s and V = 4: (2, 0) = 2 + 0.5;
// (2, 1) = 2, 1 | 1: max(2, 2) + 0.5 = 2.5 too, so (2, 0) is kept.
TEST(HeteroChoice, TiesGoToFewerGpus) {
  const HeteroChoice c = choose_virtual_nodes(two_types(2.0), 4, 4, collective(0.5));
  EXPECT_EQ(c.used, (std::vector<int>{2, 0}));
  EXPECT_DOUBLE_EQ(c.split.total_s, 2.5);
}

// Batch mode, B = 6 samples, fast 1 s per sample, slow 2 s per sample, no
// micro-batch cap, collective 1 s once both types are used (else 0):
//   (1, 0): 6 s; (2, 0): 3 + 3 = 3 s; (2, 1): 2, 2 | 2 -> max(2, 4) = 4 + 1 ... or
//   3, 2 | 1 -> max(3, 2) = 3 + 1 = 4 s; (2, 2): 2, 2 | 1, 1 -> 2 + 1 = 3 s (ties
//   (2, 0) with more GPUs). So (2, 0), 3 s.
TEST(HeteroChoice, BatchModeChoosesTheCountsToo) {
  const std::vector<GpuTypeGroup> groups = {{"fast", 2, [](double m) { return m; }, 0},
                                            {"slow", 2, [](double m) { return 2 * m; }, 0}};
  const HeteroChoice c = choose_batch(
      groups, 6, [](const std::vector<int>& used) { return used[1] > 0 && used[0] > 0 ? 1.0 : 0.0; });
  EXPECT_EQ(c.used, (std::vector<int>{2, 0}));
  EXPECT_DOUBLE_EQ(c.split.total_s, 3.0);
  ASSERT_EQ(c.split.gpus.size(), 2u);
  EXPECT_EQ(c.split.gpus[0].local_batch, 3);
  EXPECT_EQ(c.split.gpus[1].local_batch, 3);
}

TEST(HeteroChoice, RejectsBadInput) {
  EXPECT_THROW(choose_virtual_nodes({}, 4, 4, collective(0)), std::invalid_argument);
  EXPECT_THROW(choose_virtual_nodes(two_types(1.0), 4, 4, nullptr), std::invalid_argument);
  std::vector<GpuTypeGroup> huge = two_types(1.0);
  huge[0].gpus = 2000;
  huge[1].gpus = 2000;
  EXPECT_THROW(choose_virtual_nodes(huge, 4, 4, collective(0)), std::invalid_argument);
}

}  // namespace
}  // namespace vnsim
