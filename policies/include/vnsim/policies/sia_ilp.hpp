#pragma once
// Sia's allocation ILP (Sia, Jayaram Subramanya et al., SOSP'23;
// siasosp23/artifacts sia-simulator/sia.py): each job takes at most one
// configuration (GPU type, GPU count); per-type GPU capacity holds. With
// p < 0 it minimises sum_i sum_c A_ic G_ic^p + lambda (1 - sum_c A_ic)
// (lambda: the no-allocation penalty); with p > 0 it maximises
// sum_i sum_c A_ic G_ic^p. When every allowed configuration is of one GPU
// type it is a multiple-choice knapsack, solved exactly by dynamic
// programming over the GPUs used (policies/src/sia_knapsack.hpp); otherwise,
// or when that table would be too large, with COIN-OR CBC.
#include <cstddef>
#include <vector>

namespace vnsim {

struct SiaConfig {
  int type = 0;  // index into SiaIlpProblem::capacity
  int gpus = 1;
  int nodes = 1;
};

struct SiaIlpProblem {
  std::vector<SiaConfig> configs;
  std::vector<int> capacity;               // GPUs per type
  std::vector<std::vector<double>> value;  // [job][config]: normalised goodput; <= 0: not allowed
  // Optional, one per job: jobs of one class (other than kNoClass) have
  // equal value rows, so their costs are computed and grouped once: only
  // the row of a class's first job is read, and the others may be left
  // empty. Empty row_class: every job's row is looked at.
  static constexpr std::size_t kNoClass = static_cast<std::size_t>(-1);
  std::vector<std::size_t> row_class;
  // Optional, one per job: the job's current configuration (-1: none). Where
  // given, CBC's start is the cheaper of the greedy repair and this running
  // allocation with the other jobs filled in greedily, so a round whose
  // answer is to keep what runs starts at that answer (docs/POLICIES.md,
  // "Sia", "The running allocation as the start"). Empty: the repair alone.
  std::vector<int> running;
  double p = -0.5;
  double no_allocation_penalty = 1.1;
  // > 0: CBC stops once its incumbent is within this fraction of the best
  // bound; 0 solves to optimality (docs/POLICIES.md, "Sia").
  double relative_gap = 0;
  // > 0: CBC explores at most this many branch-and-bound nodes and returns
  // its best solution, never worse than the start it is given; 0: no limit.
  int max_bb_nodes = 0;
  // true: one-type problems go to the exact knapsack (relative_gap and
  // max_bb_nodes do not apply there); false: CBC for every problem.
  bool knapsack = true;
  // true: a CBC round whose start (a greedy repair of each job's cheapest
  // configuration) is proven optimal by a Lagrangian bound returns it
  // without calling CBC, which would return it too (policies/src/
  // sia_certificate.hpp); false: CBC is called.
  bool certify_start = true;
  // > 0: a CBC round whose start the certificate does not prove is searched
  // (depth-first, at most this many nodes) for an allocation cheaper than
  // the start by 1e-6; when there is none, CBC would return the start, and
  // the round returns it (policies/src/sia_start_search.hpp). 0: CBC. Off by
  // default: on the measured traces it saved no CPU (docs/PERFORMANCE_HISTORY.md,
  // "Sia's late rounds on two GPU types (eleventh pass)").
  long max_search_nodes = 0;
  // true (with max_search_nodes > 0): CBC rounds on two types take the
  // search's cheapest allocation (the first of equal ones in its order)
  // where it finishes within max_search_nodes, CBC otherwise. Decisions may
  // differ from CBC's, whose search stops at max_bb_nodes and relative_gap.
  bool exact_two_types = false;
  // true: a CBC round where the search (at most max_search_nodes nodes, or
  // 20,000 when that is 0) proves that no allocation costs less than the
  // start minus relative_gap x |the start's cost| returns the start: CBC's
  // stopping rule allows it, but CBC may return one cheaper within the gap
  // instead, so decisions may differ. With `running`, a round whose best is
  // to keep what runs keeps it without CBC (docs/POLICIES.md, "Sia").
  bool keep_within_gap = false;
  // true (with keep_within_gap): where the search finds an allocation
  // cheaper than the start by more than relative_gap, it goes on, each one
  // found lowering its target to that one's cost minus the gap, and returns
  // the last one found: no allocation beats it by more than the gap, CBC's
  // own stopping rule. CBC runs only past the search's node cap. Decisions
  // may differ from CBC's, which stops at another allocation within its gap.
  bool gap_search = false;
  // true (with gap_search), on one or two types: where that search gives up
  // at its cap, a branch and bound whose bound is the Lagrangian dual
  // re-optimised at every node (policies/src/sia_branch_bound.hpp) instead
  // of CBC, to CBC's stopping rules (relative_gap, max_bb_nodes) and from
  // the same start. Decisions may differ from CBC's, which branches
  // elsewhere.
  bool own_bb = false;
  // The knapsack's bound on jobs x (GPUs + 1) x configurations per job of
  // its table, after the bound test has fixed the jobs it can (about 1 ns
  // each; the table takes at most 2 bytes per unit): above it, CBC.
  double max_knapsack_work = 3e7;
};

// The objective's coefficient of A_ic, as a cost to minimise (the constant
// lambda per job dropped); +inf when the pair is not allowed.
double sia_cost(const SiaIlpProblem& problem, double value);

// The chosen configuration index per job, -1 for none.
std::vector<int> solve_sia_ilp(const SiaIlpProblem& problem);

}  // namespace vnsim
