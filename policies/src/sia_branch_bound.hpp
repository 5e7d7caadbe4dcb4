#pragma once
// Sia's two-type rounds to CBC's stopping rules without CBC: a best-bound
// branch and bound whose bound at every node is the Lagrangian dual of that
// node's subproblem, re-optimised there (policies/src/sia_ilp.cpp,
// `own_bb`; docs/PERFORMANCE_HISTORY.md, "Sia's own branch and bound
// (fifteenth pass)").
//
// The problem: members[g] interchangeable jobs take at most one column of
// group g each (x_c integer, sum over the group's columns <= members[g]),
// per-type GPU capacity. Relaxing the capacity rows with prices mu >= 0
// leaves one small problem per group with bounds lo_c <= x_c <= hi_c: take
// the lower bounds, then the columns of negative reduced cost (cost + mu x
// GPUs) cheapest first up to their upper bounds while the group has room.
// Those constraints are totally unimodular, so max over mu of this bound is
// the LP bound (Geoffrion, "Lagrangean relaxation for integer programming",
// Mathematical Programming Study 2, 1974), and any mu gives a valid one:
// only the size of the tree depends on how well the prices are optimised
// (line searches along the axes and diagonals, from the parent's prices).
// Branching is on a column's count, x_c <= b - 1 or x_c >= b, as CBC
// branches on a fractional variable: the column of the least reduced-cost
// change that moves the relaxation's minimiser towards the violated (or
// priced but slack) capacity. Nodes are taken cheapest bound first, and the
// search stops where the incumbent minus the least open bound is at most
// gap x |incumbent|, CBC's own relative-gap stopping rule (CbcModel::
// setAllowableFractionGap), or at a node cap with the best found
// (CbcModel::setMaximumNodes), so its answer is one that CBC could stop at.
// Private to policies/ (sia_ilp.cpp).
#include <cstddef>
#include <vector>

#include "sia_certificate.hpp"
#include "sia_start_search.hpp"

namespace vnsim {

struct BranchBoundWork {
  long nodes = 0;        // nodes whose bound was computed
  long evaluations = 0;  // Lagrangian evaluations
  double root_bound = 0;
};

// One or two types. The start (an allocation within capacity of cost
// start_cost) is the first incumbent. kNone: no allocation beats the start
// by more than gap x |start_cost|; kFound: `counts` holds the cheapest
// allocation found, one that no allocation beats by more than gap x |its
// cost| unless the node cap was reached (CBC at its node cap returns its
// best found too); kGaveUp: none cheaper than the start found within
// max_nodes, or more than two types.
BelowTarget gap_branch_and_bound(const std::vector<std::size_t>& members,
                                 const std::vector<PricedColumn>& columns, const std::vector<int>& capacity,
                                 double start_cost, double gap, long max_nodes, std::vector<long>& counts,
                                 BranchBoundWork* work = nullptr);

}  // namespace vnsim
