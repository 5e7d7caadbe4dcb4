#include "vnsim/real_exec/ranking.hpp"

#include <gtest/gtest.h>

namespace vnsim::real_exec {
namespace {

TEST(KendallTau, OneSwappedPairOfFour) {
  // Pairs of (1,2,3,4) vs (1,3,2,4): only (2,3) is discordant -> C 5, D 1,
  // tau = (5 - 1) / 6.
  const KendallTau k = kendall_tau_b({1, 2, 3, 4}, {1, 3, 2, 4});
  EXPECT_EQ(k.concordant, 5);
  EXPECT_EQ(k.discordant, 1);
  ASSERT_TRUE(k.tau);
  EXPECT_NEAR(*k.tau, 4.0 / 6.0, 1e-12);
}

TEST(KendallTau, TiesOnEachSideUseTauB) {
  // x = (1,2,2,3), y = (1,3,2,2). Pairs: (0,1) (0,2) (0,3) concordant,
  // (1,3) discordant, (1,2) tied in x only, (2,3) tied in y only.
  // tau-b = (3 - 1) / sqrt((4 + 1) * (4 + 1)) = 0.4.
  const KendallTau k = kendall_tau_b({1, 2, 2, 3}, {1, 3, 2, 2});
  EXPECT_EQ(k.concordant, 3);
  EXPECT_EQ(k.discordant, 1);
  EXPECT_EQ(k.tied_x, 1);
  EXPECT_EQ(k.tied_y, 1);
  EXPECT_EQ(k.tied_both, 0);
  ASSERT_TRUE(k.tau);
  EXPECT_NEAR(*k.tau, 0.4, 1e-12);
}

TEST(KendallTau, ReversedOrderIsMinusOneAndAllTiedIsUndefined) {
  EXPECT_DOUBLE_EQ(*kendall_tau_b({1, 2, 3}, {9, 5, 1}).tau, -1.0);
  EXPECT_FALSE(kendall_tau_b({1, 2}, {7, 7}).tau);  // the only pair is tied in y
  EXPECT_FALSE(kendall_tau_b({1}, {1}).tau);        // no pair at all
  EXPECT_THROW(kendall_tau_b({1, 2}, {1}), std::invalid_argument);
}

TEST(PolicyRanking, OrdersByMeanJctAndSaysWhetherTheyAgree) {
  // Measured: fifo 10 < sjf 12 < tiresias 15. Predicted: sjf 9 < fifo 11 <
  // tiresias 14. One pair of three (fifo, sjf) is swapped: tau = (2 - 1) / 3.
  const PolicyRanking r = rank_policies({{"fifo", 10, 11}, {"sjf", 12, 9}, {"tiresias", 15, 14}});
  EXPECT_EQ(r.measured_order, (std::vector<std::string>{"fifo", "sjf", "tiresias"}));
  EXPECT_EQ(r.predicted_order, (std::vector<std::string>{"sjf", "fifo", "tiresias"}));
  EXPECT_NEAR(*r.tau.tau, 1.0 / 3.0, 1e-12);
  EXPECT_FALSE(r.agree);
  const PolicyRanking same = rank_policies({{"fifo", 10, 20}, {"sjf", 12, 21}});
  EXPECT_DOUBLE_EQ(*same.tau.tau, 1.0);
  EXPECT_TRUE(same.agree);
  // A tie on the simulator's side only (the same simulated schedule) is not
  // agreement: the measurement ordered the two policies.
  const PolicyRanking tied = rank_policies({{"fifo", 10, 20}, {"tiresias", 12, 20}});
  EXPECT_FALSE(tied.tau.tau);
  EXPECT_FALSE(tied.agree);
}

}  // namespace
}  // namespace vnsim::real_exec
