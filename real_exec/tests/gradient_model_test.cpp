#include "vnsim/real_exec/gradient_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace vnsim::real_exec {
namespace {

TEST(GradientModel, BasisCountsTallyEachSamplesVector) {
  const auto c = basis_counts(9, 5);
  std::array<long long, kGradientBasisCount> by_hand{};
  for (long long s = 9; s < 14; ++s) ++by_hand[static_cast<std::size_t>(gradient_basis_of(s))];
  EXPECT_EQ(c, by_hand);
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0LL), 5);
  // Drawn evenly: 11,000 samples give each vector 1,000 +- 10%.
  for (long long n : basis_counts(0, 11000)) EXPECT_NEAR(n, 1000, 100);
}

TEST(GradientModel, BasisVectorsAreTheSignalPlusZeroMeanNoise) {
  // Over the 11 vectors every entry's noise is -5..5 once each: the mean
  // vector is the signal (1 on every kSignalStride-th entry, else 0).
  for (std::size_t j : {std::size_t{0}, std::size_t{1}, kSignalStride, kSignalStride + 5}) {
    double sum = 0, sq = 0;
    for (int k = 0; k < kGradientBasisCount; ++k) sum += gradient_basis_entry(k, j);
    const double mean = sum / kGradientBasisCount;
    for (int k = 0; k < kGradientBasisCount; ++k) sq += std::pow(gradient_basis_entry(k, j) - mean, 2);
    EXPECT_EQ(mean, j % kSignalStride == 0 ? 1.0 : 0.0) << j;
    EXPECT_EQ(sq / kGradientBasisCount, 10.0) << j;  // (5^2 + ... + 1^2) x 2 / 11
  }
}

TEST(GradientModel, VirtualNodeBatchesGiveTheRemainderToTheFirst) {
  // 10 samples over 4 virtual nodes: 10 = 3 + 3 + 2 + 2.
  EXPECT_EQ(virtual_node_batches(10, 4), (std::vector<long long>{3, 3, 2, 2}));
  EXPECT_THROW(virtual_node_batches(3, 4), std::invalid_argument);
}

TEST(GradientModel, RankSampleRangesFollowVirtualNodeOrder) {
  // Step 2 of a 10-sample batch starts at sample 20. Rank 0 runs virtual
  // node 0 (3 samples: 20-22); rank 1 runs nodes 1-3: 23-25, 26-27, 28-29.
  const auto r = rank_sample_ranges(2, 10, {1, 3}, 1);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].first, 23);
  EXPECT_EQ(r[0].count, 3);
  EXPECT_EQ(r[1].first, 26);
  EXPECT_EQ(r[1].count, 2);
  EXPECT_EQ(r[2].first, 28);
  EXPECT_EQ(r[2].count, 2);
}

TEST(GradientModel, VirtualNodeAccumulationEqualsOneBigBatchBitForBit) {
  const std::size_t n = 1000;
  std::vector<double> big(n, 0.0), accumulated(n, 0.0);
  accumulate_samples(big, 30, 64);  // step 0 of a 64-sample batch starting at sample 30
  for (int rank = 0; rank < 3; ++rank)
    for (const SampleRange& s : rank_sample_ranges(0, 64, {3, 2, 2}, rank))
      accumulate_samples(accumulated, 30 + s.first, s.count);
  EXPECT_EQ(accumulated, big);
  EXPECT_NE(big, std::vector<double>(n, 0.0));
}

TEST(GradientModel, WeightedAveragingOfUnevenBatchesIsTheGlobalMean) {
  // Ranks with 1 and 3 samples: samples 0 and 1..3. The global mean weighs
  // each sample once; the unweighted mean of the rank means weighs sample
  // 0 three times as much as each of the others.
  const auto entry = [](long long s) { return gradient_basis_entry(gradient_basis_of(s), 0); };
  std::vector<double> g0(1, 0.0), g1(1, 0.0);
  accumulate_samples(g0, 0, 1);
  accumulate_samples(g1, 1, 3);
  EXPECT_EQ(g0[0], entry(0));
  EXPECT_EQ(g1[0], entry(1) + entry(2) + entry(3));
  std::vector<double> sum = {g0[0] + g1[0]};
  std::vector<double> params = {1.0};
  apply_sgd(params, sum, 4, 0.5);
  EXPECT_EQ(params[0], 1.0 - 0.5 * (entry(0) + entry(1) + entry(2) + entry(3)) / 4);
  const double unweighted = (g0[0] / 1 + g1[0] / 3) / 2;
  EXPECT_NE(unweighted, sum[0] / 4);
}

TEST(GradientModel, ChecksumSeesOneBitFlip) {
  std::vector<double> p = initial_parameters(100);
  const auto h = parameter_checksum(p);
  p[57] = std::nextafter(p[57], 2.0);
  EXPECT_NE(parameter_checksum(p), h);
}

}  // namespace
}  // namespace vnsim::real_exec
