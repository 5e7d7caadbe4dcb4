#pragma once
// A proof that the start CBC is given is already optimal, so that the round
// need not call CBC (policies/src/sia_ilp.cpp). For any GPU prices mu >= 0
// per type, the Lagrangian relaxation of the capacity rows bounds the ILP
// from below: L(mu) = sum_g members_g x min(0, min_c (cost_c + mu_t(c) x
// GPUs_c)) - sum_t mu_t x capacity_t (Fisher, "The Lagrangian relaxation
// method for solving integer programming problems", Management Science 27,
// 1981). The prices are looked for among those for which the start is a
// minimiser of the relaxation (each job on a configuration of least reduced
// cost, a type below capacity priced 0: complementary slackness), a convex
// polygon for one or two types, cut out of a box one constraint at a time
// (Sutherland and Hodgman, CACM 17, 1974); its vertices and their mean are
// tried. Only the bound at the prices tried is trusted, whatever the
// polygon: no allocation costs less than it.
//
// Why that skips CBC without changing its answer: CbcModel replaces the
// incumbent it is given only by a solution that costs less than the
// incumbent minus its cutoff increment (1e-5 by default, never lowered;
// CbcModel::setBestSolution), so when no allocation costs less than the
// start minus a tolerance below 1e-5 (sia_ilp.cpp: 1e-6), CBC returns the
// start.
// Private to policies/ (sia_ilp.cpp).
#include <array>
#include <cstddef>
#include <vector>

namespace vnsim {

struct PricedColumn {
  std::size_t group;  // columns of one group are contiguous, groups ascending
  int type;           // index into the capacities
  int gpus;           // >= 1
  double cost;
};

// L(mu) for one or two types (mu[t] for t < capacity.size(); the caller
// keeps mu >= 0), and with `slope` a subgradient: the GPUs of each type
// that a minimiser of the relaxation takes, minus the capacity.
double lagrangian_bound(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                        const std::vector<int>& capacity, const std::array<double, 2>& mu,
                        std::array<double, 2>* slope = nullptr);

// The largest L(mu) found (see above) for a start that takes start[col] of
// its group's members on each column; -infinity when there are more than
// two types or no price makes the start a minimiser.
double start_lower_bound(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                         const std::vector<int>& capacity, const std::vector<double>& start);

}  // namespace vnsim
