// Sia's start certificate (policies/src/sia_certificate.hpp): its bound is a
// lower bound on every allocation, it proves an optimal start, and a round
// that skips CBC on its proof answers as CBC does.
#include "../src/sia_certificate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "sia_start_testing.hpp"
#include "vnsim/policies/sia_ilp.hpp"

namespace vnsim {
namespace {

using testing_sia::brute_force;
using testing_sia::kCapacity;

TEST(SiaCertificate, ProvesAnOptimalStartOnTwoTypes) {
  // Two jobs. Job 0: t0x2 -0.5, t1x2 -0.4; job 1: t0x2 -0.3, t1x2 -0.35.
  // Start: job 0 on t0x2, job 1 on t1x2, cost -0.85: each job on its
  // cheapest column at prices 0, so L(0) = -0.85.
  const std::vector<std::size_t> members = {1, 1};
  const std::vector<PricedColumn> columns = {
      {0, 0, 2, -0.5}, {0, 1, 2, -0.4}, {1, 0, 2, -0.3}, {1, 1, 2, -0.35}};
  EXPECT_NEAR(start_lower_bound(members, columns, kCapacity, {1, 0, 0, 1}), -0.85, 1e-12);
  // Both on type 0 (4 GPUs, full) costs -0.8: no price proves it, since
  // job 1 is cheaper on type 1, which has room (price 0).
  EXPECT_LT(start_lower_bound(members, columns, kCapacity, {1, 0, 1, 0}), -0.8 - 1e-7);
}

TEST(SiaCertificate, ProvesAStartThatNeedsAPositivePrice) {
  // Three one-member groups on type 0 (4 GPUs): 2 GPUs at -0.6, 2 GPUs at
  // -0.5, and 2 GPUs at -0.2 or 1 GPU at -0.15. The optimum -1.1 takes the
  // first two and leaves the third without GPUs. At price 0 the bound is
  // -1.3; the start is a minimiser at a type-0 price mu in [0.15, 0.25]
  // (-0.5 + 2 mu <= 0, -0.15 + mu >= 0), where L = -1.1 + 4 mu - 4 mu.
  const std::vector<std::size_t> members = {1, 1, 1};
  const std::vector<PricedColumn> columns = {
      {0, 0, 2, -0.6}, {1, 0, 2, -0.5}, {2, 0, 2, -0.2}, {2, 0, 1, -0.15}};
  const double bound = start_lower_bound(members, columns, kCapacity, {1, 1, 0, 0});
  EXPECT_NEAR(bound, -1.1, 1e-11);
  EXPECT_NEAR(brute_force(members, columns), -1.1, 1e-12);
}

TEST(SiaCertificate, NeverAboveTheOptimumAndProvesOnlyOptimalStarts) {
  std::mt19937_64 rng(3);
  int proved = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::size_t> members;
    std::vector<PricedColumn> columns;
    testing_sia::random_groups(rng, members, columns);
    if (columns.empty()) continue;
    for (std::size_t g = 0; g < members.size(); ++g)
      if (std::none_of(columns.begin(), columns.end(), [&](const PricedColumn& c) { return c.group == g; }))
        members[g] = 0;  // no column: never placed
    std::vector<double> optimum(columns.size(), 0);
    const double best = brute_force(members, columns, &optimum);
    // A start: on odd trials an optimum; on even ones each member on a
    // random column of its group that fits, or none.
    std::vector<double> start(columns.size(), 0);
    std::vector<long> used(kCapacity.size(), 0);
    double start_cost = 0;
    if (trial % 2 == 1) {
      start = optimum;
      start_cost = best;
    }
    for (std::size_t g = 0; g < members.size() && trial % 2 == 0; ++g)
      for (std::size_t m = 0; m < members[g]; ++m) {
        const std::size_t col = rng() % columns.size();
        const PricedColumn& c = columns[col];
        if (c.group != g || used[static_cast<std::size_t>(c.type)] + c.gpus > kCapacity[c.type]) continue;
        used[static_cast<std::size_t>(c.type)] += c.gpus;
        start[col] += 1;
        start_cost += c.cost;
      }
    const double bound = start_lower_bound(members, columns, kCapacity, start);
    EXPECT_LE(bound, best + 1e-9) << "trial " << trial;
    if (bound >= start_cost - 1e-6) {
      EXPECT_NEAR(start_cost, best, 1e-6) << "trial " << trial;
      ++proved;
    }
  }
  EXPECT_GT(proved, 50);
}

TEST(SiaCertificate, MoreThanTwoTypesAreNotProved) {
  const std::vector<PricedColumn> columns = {{0, 2, 1, -0.5}};
  EXPECT_EQ(start_lower_bound({1}, columns, {1, 1, 1}, {1}), -INFINITY);
}

// Rounds of Sia's shape on two types (shaped_round): certify_start skips
// CBC where it can, and every answer is the one CBC gives.
TEST(SiaCertificate, CertifiedRoundsAnswerAsCbc) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    SiaIlpProblem p = testing_sia::shaped_round(rng, trial, 40, 0.5);
    p.max_search_nodes = 0;  // the certificate alone
    p.certify_start = false;
    const std::vector<int> cbc = solve_sia_ilp(p);
    p.certify_start = true;
    EXPECT_EQ(solve_sia_ilp(p), cbc) << "trial " << trial;
  }
}

}  // namespace
}  // namespace vnsim
