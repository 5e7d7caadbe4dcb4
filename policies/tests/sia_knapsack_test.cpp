// Sia's one-type knapsack on rounds of the 1M-job bench's shape: the
// Lagrangian reduction keeps the optimum (against a plain DP written here)
// and leaves only a few jobs in the table.
#include "../src/sia_knapsack.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace vnsim {
namespace {

// Sia's configurations on nodes of 8 GPUs: 1, 2, 4, 8, then whole nodes.
const std::vector<int> kWeights = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64};

struct Problem {
  std::vector<std::size_t> members;
  std::vector<KnapsackColumn> columns;
};

// `groups` groups of 1-3 members, goodput w^a (a in [0.2, 0.95]) at w GPUs
// up to a per-group limit, cost v^-0.5 - 1.1 as Sia's p = -0.5; a column
// that costs no less than a lighter one is dropped, as solve_sia_ilp does.
Problem random_problem(std::mt19937_64& rng, std::size_t groups) {
  std::uniform_real_distribution<double> exponent(0.2, 0.95);
  std::uniform_int_distribution<std::size_t> limit(1, kWeights.size());
  std::uniform_int_distribution<std::size_t> count(1, 3);
  Problem p;
  for (std::size_t g = 0; g < groups; ++g) {
    const double a = exponent(rng);
    const std::size_t most = limit(rng);
    double cheapest = 0;
    for (std::size_t k = 0; k < most; ++k) {
      const double cost = std::pow(std::pow(kWeights[k], a), -0.5) - 1.1;
      if (cost >= cheapest) continue;
      cheapest = cost;
      p.columns.push_back(KnapsackColumn{g, kWeights[k], cost});
    }
    p.members.push_back(count(rng));
  }
  return p;
}

// The least total cost within `capacity`, one job at a time over all GPUs.
double plain_dp(const Problem& p, long capacity) {
  std::vector<double> best(static_cast<std::size_t>(capacity) + 1, 0.0);
  for (std::size_t g = 0; g < p.members.size(); ++g)
    for (std::size_t k = 0; k < p.members[g]; ++k) {
      std::vector<double> next = best;
      for (const KnapsackColumn& c : p.columns)
        if (c.group == g)
          for (long u = c.weight; u <= capacity; ++u)
            next[u] = std::min(next[u], best[u - c.weight] + c.cost);
      best.swap(next);
    }
  return best.back();
}

double cost_of(const Problem& p, const std::vector<long>& count, long* gpus) {
  double sum = 0;
  *gpus = 0;
  for (std::size_t c = 0; c < count.size(); ++c) {
    sum += static_cast<double>(count[c]) * p.columns[c].cost;
    *gpus += count[c] * p.columns[c].weight;
  }
  return sum;
}

TEST(SiaKnapsackReduction, KeepsThePlainDpsOptimum) {
  // 20-200 groups on 10-110% of what their heaviest columns would take.
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    const Problem p = random_problem(rng, 20 + static_cast<std::size_t>(trial) * 3);
    long demand = 0;
    for (std::size_t g = 0; g < p.members.size(); ++g) {
      long heaviest = 0;
      for (const KnapsackColumn& c : p.columns)
        if (c.group == g) heaviest = std::max<long>(heaviest, c.weight);
      demand += heaviest * static_cast<long>(p.members[g]);
    }
    const long capacity = std::max(1L, demand * (10 + (trial * 17) % 100) / 100);
    const auto count = solve_multiple_choice_knapsack(p.members, p.columns, capacity, 1e12);
    ASSERT_TRUE(count.has_value());
    long gpus = 0;
    const double cost = cost_of(p, *count, &gpus);
    EXPECT_LE(gpus, capacity) << "trial " << trial;
    EXPECT_NEAR(cost, plain_dp(p, capacity), 1e-9) << "trial " << trial;
    for (std::size_t g = 0, c = 0; g < p.members.size(); ++g) {
      long taken = 0;
      for (; c < p.columns.size() && p.columns[c].group == g; ++c) taken += (*count)[c];
      EXPECT_LE(taken, static_cast<long>(p.members[g])) << "trial " << trial;
    }
  }
}

TEST(SiaKnapsackReduction, LeavesFewJobsInTheTableOnALargeRound) {
  // A round of the 1M-job bench's size: ~2,000 jobs contending for 10,000
  // GPUs. The plain DP's table would be jobs x 10,001 x columns (~10^8
  // cells, over the CBC hand-off bound); the reduction fixes every job whose
  // columns but one cannot be in an optimum.
  std::mt19937_64 rng(7);
  const Problem p = random_problem(rng, 1000);
  std::size_t jobs = 0;
  for (std::size_t m : p.members) jobs += m;
  const long capacity = 10000;
  KnapsackWork work;
  const auto count = solve_multiple_choice_knapsack(p.members, p.columns, capacity, 3e7, &work);
  ASSERT_TRUE(count.has_value());
  long gpus = 0;
  cost_of(p, *count, &gpus);
  EXPECT_LE(gpus, capacity);
  EXPECT_GT(gpus, capacity - 64);  // contended: the GPUs are all but used
  const double plain_cells = static_cast<double>(jobs) * static_cast<double>(capacity + 1) *
                             static_cast<double>(p.columns.size()) / static_cast<double>(p.members.size());
  EXPECT_GT(plain_cells, 3e7);
  EXPECT_LT(work.table_jobs, jobs / 20) << work.groups_in_table << " groups left";
  EXPECT_LT(work.table_cells, 1e6);
}

}  // namespace
}  // namespace vnsim
