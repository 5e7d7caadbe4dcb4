#pragma once
// Exact solver for Sia's allocation ILP when every allowed configuration is
// of one GPU type: the ILP (at most one configuration per job, GPUs of the
// chosen configurations within the capacity) is then a multiple-choice
// knapsack with integer weights (GPUs), solved by dynamic programming over
// the GPUs used (Kellerer, Pferschy, Pisinger, "Knapsack Problems", 2004,
// ch. 11). Private to policies/ (sia_ilp.cpp).
#include <cstddef>
#include <optional>
#include <vector>

namespace vnsim {

struct KnapsackColumn {
  std::size_t group;  // columns of one group are contiguous, groups ascending
  int weight;         // GPUs, >= 1
  double cost;        // to minimise; < 0 (a column that costs >= 0 never pays)
};

// Groups of interchangeable jobs: members[g] jobs each take at most one
// column of group g. Returns, per column, how many of its group's members
// take it, minimising the total cost with sum(weight x count) <= capacity;
// std::nullopt when the table (jobs x (capacity + 1) cells x columns per job)
// would exceed max_work, so that the caller solves it another way.
// Ties go to the first optimum found: for each job, in group order, no
// column before a column, and columns in their order.
std::optional<std::vector<long>> solve_multiple_choice_knapsack(const std::vector<std::size_t>& members,
                                                                const std::vector<KnapsackColumn>& columns,
                                                                long capacity, double max_work);

}  // namespace vnsim
