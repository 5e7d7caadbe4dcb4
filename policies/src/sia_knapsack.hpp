#pragma once
// Exact solver for Sia's allocation ILP when every allowed configuration is
// of one GPU type: the ILP (at most one configuration per job, GPUs of the
// chosen configurations within the capacity) is then a multiple-choice
// knapsack with integer weights (GPUs), solved by dynamic programming over
// the GPUs used (Kellerer, Pferschy, Pisinger, "Knapsack Problems", 2004,
// ch. 11). Before the table, a bound test fixes the jobs it can (the
// reduction of Dyer, Kayal and Walker, J. Comput. Appl. Math. 11, 1984, and
// of Pisinger's minimal MCKP algorithm, EJOR 83, 1995): with the LP
// relaxation's GPU price mu, no solution costs less than the Lagrangian
// bound L, nor, with a job of group g on column j, less than L + that
// column's reduced cost; a column above a known solution's cost (greedy on
// the LP hulls) is in no optimum. A group with one column left (none
// included) takes it; only the others go to the table, whose capacity is
// what the fixed ones leave. Every optimum survives, so the optimum is the
// plain DP's; on a 10,000-GPU round of ~2,000 jobs the table keeps a few
// dozen of them.
// Private to policies/ (sia_ilp.cpp).
#include <cstddef>
#include <optional>
#include <vector>

namespace vnsim {

struct KnapsackColumn {
  std::size_t group;  // columns of one group are contiguous, groups ascending
  int weight;         // GPUs, >= 1
  double cost;        // to minimise; < 0 (a column that costs >= 0 never pays)
};

// What a solve cost: the table's jobs and cells (jobs x (GPUs + 1) x
// columns per job) after the reduction, and the groups left in it.
struct KnapsackWork {
  std::size_t groups_in_table = 0;
  std::size_t table_jobs = 0;
  double table_cells = 0;
};

// Groups of interchangeable jobs: members[g] jobs each take at most one
// column of group g. Returns, per column, how many of its group's members
// take it, minimising the total cost with sum(weight x count) <= capacity;
// std::nullopt when the table after the reduction (jobs x (capacity + 1)
// cells x columns per job) would exceed max_work, so that the caller solves
// it another way. Ties go to the first optimum the table finds: for each job
// left in it, in group order, no column before a column, and columns in
// their order (with fewer jobs in the table, a tie between optima of equal
// cost may break otherwise than in a table over every job).
std::optional<std::vector<long>> solve_multiple_choice_knapsack(const std::vector<std::size_t>& members,
                                                                const std::vector<KnapsackColumn>& columns,
                                                                long capacity, double max_work,
                                                                KnapsackWork* work = nullptr);

}  // namespace vnsim
