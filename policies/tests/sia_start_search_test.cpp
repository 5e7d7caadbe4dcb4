// The search for an allocation cheaper than Sia's start
// (policies/src/sia_start_search.hpp): it proves starts the Lagrangian
// certificate cannot, finds every cheaper allocation that exists, and a
// round that skips CBC on its proof answers as CBC does.
#include "../src/sia_start_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "../src/sia_certificate.hpp"
#include "sia_start_testing.hpp"
#include "vnsim/policies/sia_ilp.hpp"

namespace vnsim {
namespace {

using testing_sia::brute_force;
using testing_sia::kCapacity;

TEST(SiaStartSearch, ProvesAnOptimalStartAcrossTheIntegralityGap) {
  // Type 0 (4 GPUs): three jobs of 2 GPUs at -1.0, -0.95, -0.9; two fit.
  // Type 1 (3 GPUs): two jobs of 2 GPUs at -0.8 and -0.7; one fits. The
  // optimum -2.75 takes the first two and the fourth. The relaxation
  // splits the fifth job (half of 3 GPUs' worth), so no price proves it:
  // L <= -2.75 - 0.35 at every price.
  const std::vector<std::size_t> members = {1, 1, 1, 1, 1};
  const std::vector<PricedColumn> columns = {
      {0, 0, 2, -1.0}, {1, 0, 2, -0.95}, {2, 0, 2, -0.9}, {3, 1, 2, -0.8}, {4, 1, 2, -0.7}};
  const std::vector<int> capacity = {4, 3};
  const std::vector<double> start = {1, 1, 0, 1, 0};
  EXPECT_NEAR(brute_force(members, columns), -2.75, 1e-12);
  EXPECT_LT(start_lower_bound(members, columns, capacity, start), -2.75 - 0.3);
  StartSearchWork work;
  EXPECT_EQ(allocation_below(members, columns, capacity, -2.75 - 1e-6, 1000, &work), BelowTarget::kNone);
  EXPECT_LT(work.bound, -2.75 - 0.3);
  EXPECT_GT(work.nodes, 0);
  // Just above the optimum: found.
  EXPECT_EQ(allocation_below(members, columns, capacity, -2.75 + 1e-6, 1000), BelowTarget::kFound);
  // One node is not enough to prove it.
  EXPECT_EQ(allocation_below(members, columns, capacity, -2.75 - 1e-6, 1), BelowTarget::kGaveUp);
}

TEST(SiaStartSearch, AnswersAsEnumerationOnRandomProblems) {
  std::mt19937_64 rng(5);
  int none = 0;
  int found = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::size_t> members;
    std::vector<PricedColumn> columns;
    testing_sia::random_groups(rng, members, columns);
    if (columns.empty()) continue;
    const double best = brute_force(members, columns);
    // A target just below or just above the optimum, or well above it.
    const double target = best + (trial % 3 == 0 ? -1e-6 : trial % 3 == 1 ? 1e-6 : 0.3);
    const BelowTarget below = allocation_below(members, columns, kCapacity, target, 1000000);
    EXPECT_EQ(below, best < target ? BelowTarget::kFound : BelowTarget::kNone) << "trial " << trial;
    (below == BelowTarget::kNone ? none : found) += 1;
  }
  EXPECT_GT(none, 60);
  EXPECT_GT(found, 60);
}

// The first test's round as Sia's ILP (p = -0.5, penalty 1.1: a value v
// costs v^-0.5 - 1.1): the start, which repair_fill gives, is the optimum,
// the certificate cannot prove it and the search does; the answer is CBC's.
TEST(SiaStartSearch, ARoundTheCertificateLeavesAnswersAsCbc) {
  SiaIlpProblem p;
  p.configs = {{0, 2, 1}, {1, 2, 1}};
  p.capacity = {4, 3};
  p.relative_gap = 1e-4;
  p.max_bb_nodes = 100;
  for (double c : {-1.0, -0.95, -0.9}) p.value.push_back({std::pow(c + 1.1, -2), 0});
  for (double c : {-0.8, -0.7}) p.value.push_back({0, std::pow(c + 1.1, -2)});
  p.max_search_nodes = 0;
  const std::vector<int> cbc = solve_sia_ilp(p);
  EXPECT_EQ(cbc, (std::vector<int>{0, 0, -1, 1, -1}));
  p.max_search_nodes = 1000;
  EXPECT_EQ(solve_sia_ilp(p), cbc);
}

// Rounds of Sia's shape on two types (shaped_round) busier than the
// certificate's test: 60 jobs for some 50 GPUs, so that the relaxation
// splits jobs and the certificate proves the start less often. With the
// search on, with or without the certificate, every answer is CBC's.
TEST(SiaStartSearch, SearchedRoundsAnswerAsCbc) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    SiaIlpProblem p = testing_sia::shaped_round(rng, trial, 60, 0.3);
    p.certify_start = false;
    p.max_search_nodes = 0;
    const std::vector<int> cbc = solve_sia_ilp(p);
    p.certify_start = true;
    EXPECT_EQ(solve_sia_ilp(p), cbc) << "trial " << trial;
    p.max_search_nodes = 20000;
    EXPECT_EQ(solve_sia_ilp(p), cbc) << "trial " << trial;
    p.certify_start = false;
    EXPECT_EQ(solve_sia_ilp(p), cbc) << "trial " << trial;
  }
}

}  // namespace
}  // namespace vnsim
