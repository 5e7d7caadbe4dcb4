#pragma once
// Whether any allocation of Sia's round costs less than a target: the proof
// that CBC would return the start it is given when the Lagrangian
// certificate (sia_certificate.hpp) falls short, as it does on busy rounds
// on two GPU types where the relaxation's bound sits below the start (the
// integrality gap of a few jobs that the relaxation splits).
//
// Depth-first branch and bound over the jobs with reduced costs at fixed
// prices (the classic enumeration of a Lagrangian's near-optimal solutions;
// Fisher, Management Science 27, 1981, section 5; Kellerer, Pferschy and
// Pisinger, "Knapsack Problems", 2004, section 5.1.3): for GPU prices
// mu >= 0, every allocation x within capacity costs at least
// L(mu) + sum over its jobs of each job's reduced cost (its column's cost
// plus mu x GPUs, minus the least of that over its group's columns and
// none), since the capacities' term mu x (capacity - used) is >= 0. With
// the target T, a job's column whose reduced cost alone is >= T - L(mu) is
// in no allocation below T, and a partial allocation whose reduced costs
// add up to T - L(mu) or more has no completion below T. The prices come
// from a line search of L (concave) along the axes and the diagonals; any
// prices give a valid bound, only the size of the search depends on them.
//
// Used with T = the start's cost minus 1e-6: when no allocation costs less,
// CBC, which replaces the incumbent it is given only by one cheaper by its
// cutoff increment (1e-5), returns the start (sia_certificate.hpp).
// Private to policies/ (sia_ilp.cpp).
#include <cstddef>
#include <vector>

#include "sia_certificate.hpp"

namespace vnsim {

enum class BelowTarget {
  kNone,    // proven: no allocation costs less than the target
  kFound,   // an allocation within capacity costs less than the target
  kGaveUp,  // more than the node cap, or more than two types
};

struct StartSearchWork {
  double bound = 0;  // L at the prices used
  long nodes = 0;    // partial allocations looked at
};

// members[g] interchangeable jobs take at most one column of group g each;
// columns of one group contiguous, groups ascending; capacity per type.
BelowTarget allocation_below(const std::vector<std::size_t>& members,
                             const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                             double target, long max_nodes, StartSearchWork* work = nullptr);

// The same search, run on past allocations below the target (each one found
// lowers the target to its cost minus 1e-9): kFound with the cheapest one's
// count per column in `counts` (of equal ones the first in the search's
// order), kNone when no allocation costs less than the target, kGaveUp past
// the node cap. Behind `exact_two_types` (sia_ilp.hpp): where CBC's capped
// search would stop elsewhere, the answers differ.
BelowTarget cheapest_below(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                           const std::vector<int>& capacity, double target, long max_nodes,
                           std::vector<long>& counts, StartSearchWork* work = nullptr);

// CBC's stopping rule by search (`gap_search`, sia_ilp.hpp): kNone when no
// allocation costs less than start_cost - gap x |start_cost| (the start is
// within the gap); kFound with, in `counts`, an allocation that no other
// beats by more than the gap of its own cost (each one found lowers the
// target to its cost minus that gap, so the search ends early); kGaveUp
// past the node cap. Like CBC stopping at its relative gap, it may return
// an allocation that costs up to the gap more than the optimum.
BelowTarget within_gap_below(const std::vector<std::size_t>& members,
                             const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                             double start_cost, double gap, long max_nodes, std::vector<long>& counts,
                             StartSearchWork* work = nullptr);

}  // namespace vnsim
