// Sia's own branch and bound (policies/src/sia_branch_bound.hpp): its
// answer is within the relative gap of the exact optimum (by enumeration),
// its root bound never exceeds the optimum, and Sia's rounds that the
// search gives up on reach it before CBC (`own_bb`).
#include "../src/sia_branch_bound.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "../src/sia_certificate.hpp"
#include "sia_start_testing.hpp"
#include "vnsim/policies/sia_ilp.hpp"
#include "vnsim/policies/sia_policy.hpp"

namespace vnsim {
namespace {

using testing_sia::brute_force;
using testing_sia::kCapacity;

double cost_of(const std::vector<PricedColumn>& columns, const std::vector<long>& counts) {
  double sum = 0;
  for (std::size_t col = 0; col < columns.size(); ++col)
    sum += static_cast<double>(counts[col]) * columns[col].cost;
  return sum;
}

bool fits(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
          const std::vector<long>& counts) {
  std::vector<long> used(kCapacity.size(), 0);
  std::vector<long> taken(members.size(), 0);
  for (std::size_t col = 0; col < columns.size(); ++col) {
    if (counts[col] < 0) return false;
    used[static_cast<std::size_t>(columns[col].type)] += counts[col] * columns[col].gpus;
    taken[columns[col].group] += counts[col];
  }
  for (std::size_t t = 0; t < used.size(); ++t)
    if (used[t] > kCapacity[t]) return false;
  for (std::size_t g = 0; g < members.size(); ++g)
    if (taken[g] > static_cast<long>(members[g])) return false;
  return true;
}

// From the empty allocation (cost 0): with no gap the optimum itself, with
// a gap an allocation within it; the root bound is at most the optimum and,
// on some problems, above the bound of the root's prices alone at mu = 0.
TEST(SiaBranchBound, AnswersWithinTheGapOfTheOptimum) {
  std::mt19937_64 rng(3);
  int bound_raised = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::size_t> members;
    std::vector<PricedColumn> columns;
    testing_sia::random_groups(rng, members, columns);
    const double optimum = brute_force(members, columns);
    for (double gap : {0.0, 0.05}) {
      std::vector<long> counts;
      BranchBoundWork work;
      const BelowTarget result =
          gap_branch_and_bound(members, columns, kCapacity, 0.0, gap, 100000, counts, &work);
      ASSERT_NE(result, BelowTarget::kGaveUp) << "trial " << trial;
      EXPECT_LE(work.root_bound, optimum + 1e-9) << "trial " << trial;
      const double within = optimum + gap * std::abs(optimum) + 1e-9;
      if (result == BelowTarget::kNone) {
        EXPECT_LE(0.0, within) << "trial " << trial;
        continue;
      }
      ASSERT_TRUE(fits(members, columns, counts)) << "trial " << trial;
      EXPECT_LE(cost_of(columns, counts), within) << "trial " << trial;
      if (gap != 0) continue;
      EXPECT_NEAR(cost_of(columns, counts), optimum, 1e-9) << "trial " << trial;
      if (work.root_bound > lagrangian_bound(members, columns, kCapacity, {0, 0}) + 1e-9) ++bound_raised;
    }
  }
  EXPECT_GT(bound_raised, 0);
}

// Sia's rounds on two types with the search capped at one node, so that
// it gives up: with own_bb the round's answer is within the gap of the exact
// optimum every time, and on some rounds another allocation than CBC's
// (with the same gap), so the branch and bound, not CBC, answered.
TEST(SiaBranchBound, RoundsPastTheSearchCapStopWithinTheGap) {
  std::mt19937_64 rng(9);
  int other_than_cbc = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SiaIlpProblem p = testing_sia::shaped_round(rng, trial, 14 + trial % 8, 0.3);
    SiaIlpProblem exact = p;
    exact.relative_gap = 0;
    exact.max_bb_nodes = 0;
    auto cost = [&](const std::vector<int>& choice) {
      double sum = 0;
      for (std::size_t i = 0; i < choice.size(); ++i)
        if (choice[i] >= 0) sum += sia_cost(p, p.value[i][static_cast<std::size_t>(choice[i])]);
      return sum;
    };
    const double optimum = cost(solve_sia_ilp(exact));
    p.relative_gap = 0.001;
    p.max_bb_nodes = 0;
    p.certify_start = false;
    p.keep_within_gap = true;
    p.gap_search = true;
    p.max_search_nodes = 1;
    const std::vector<int> cbc = solve_sia_ilp(p);
    p.own_bb = true;
    const std::vector<int> own = solve_sia_ilp(p);
    EXPECT_LE(cost(own), optimum + p.relative_gap * std::abs(optimum) + 1e-9) << "trial " << trial;
    if (own != cbc) ++other_than_cbc;
  }
  EXPECT_GT(other_than_cbc, 0);
}

TEST(SiaBranchBound, OnByDefault) {
  EXPECT_TRUE(SiaParams{}.own_bb);
}

}  // namespace
}  // namespace vnsim
