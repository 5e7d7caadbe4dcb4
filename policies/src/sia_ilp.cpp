#include "vnsim/policies/sia_ilp.hpp"

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <utility>

#include "sia_branch_bound.hpp"
#include "sia_certificate.hpp"
#include "sia_knapsack.hpp"
#include "sia_start_search.hpp"

namespace vnsim {

double sia_cost(const SiaIlpProblem& problem, double value) {
  if (!(value > 0)) return std::numeric_limits<double>::infinity();
  const double term = std::pow(value, problem.p);
  return problem.p < 0 ? term - problem.no_allocation_penalty : -term;
}

namespace {

// keep_within_gap's search cap where search_nodes is 0 (about 0.5 ms a
// round on the late rounds of the two-type trace of docs/PERFORMANCE_HISTORY.md,
// "Sia's late rounds on two GPU types (eleventh pass)").
constexpr long kGapSearchNodes = 20000;

// Jobs with the same cost row are interchangeable: the ILP gets one general
// integer variable per (group, configuration), A_gc in [0, members], which
// has the same optimum as one binary per job (any optimum of the merged
// problem hands its counts out to the members). Queued jobs of the same
// model at the same progress share a row, so large rounds shrink a lot.
struct Group {
  std::vector<std::size_t> members;  // job indices, ascending
  std::vector<double> cost;          // per configuration; +inf: not a column
};

// How many jobs each group holds, in group order: what the knapsack and the
// start's certificate know of a group besides its columns.
std::vector<std::size_t> member_counts(const std::vector<Group>& groups) {
  std::vector<std::size_t> counts;
  counts.reserve(groups.size());
  for (const Group& g : groups) counts.push_back(g.members.size());
  return counts;
}

std::vector<Group> group_jobs(const SiaIlpProblem& problem) {
  std::vector<Group> groups;
  std::map<std::vector<double>, std::size_t> by_row;
  if (!problem.row_class.empty() && problem.row_class.size() != problem.value.size())
    throw std::invalid_argument("solve_sia_ilp: one row class per job, or none");
  // A class's group (kNoGroup: its row has no column), once its first job
  // has been grouped.
  constexpr std::size_t kNoGroup = static_cast<std::size_t>(-1);
  constexpr std::size_t kUnseen = static_cast<std::size_t>(-2);
  std::vector<std::size_t> group_of_class;
  std::vector<double> cost;
  for (std::size_t i = 0; i < problem.value.size(); ++i) {
    const std::size_t cls = problem.row_class.empty() ? SiaIlpProblem::kNoClass : problem.row_class[i];
    if (cls != SiaIlpProblem::kNoClass) {
      if (cls >= group_of_class.size()) group_of_class.resize(cls + 1, kUnseen);
      if (group_of_class[cls] == kNoGroup) continue;
      if (group_of_class[cls] != kUnseen) {
        groups[group_of_class[cls]].members.push_back(i);
        continue;
      }
      group_of_class[cls] = kNoGroup;
    }
    // Only rows that are read are checked: a class's later rows may be empty.
    if (problem.value[i].size() != problem.configs.size())
      throw std::invalid_argument("solve_sia_ilp: one value per configuration per job");
    // One scratch row for every job: a row equal to an earlier group's (the
    // common case in large rounds) joins it without an allocation.
    cost.assign(problem.configs.size(), std::numeric_limits<double>::infinity());
    bool any = false;
    for (std::size_t c = 0; c < cost.size(); ++c) {
      const double k = sia_cost(problem, problem.value[i][c]);
      // A pair whose cost is >= 0 is never better than no allocation.
      if (k < 0 && problem.configs[c].gpus <= problem.capacity.at(problem.configs[c].type)) {
        cost[c] = k;
        any = true;
      }
    }
    if (!any) continue;
    auto it = by_row.find(cost);
    if (it == by_row.end()) {
      it = by_row.emplace(cost, groups.size()).first;
      groups.push_back(Group{{}, cost});
    }
    groups[it->second].members.push_back(i);
    if (cls != SiaIlpProblem::kNoClass) group_of_class[cls] = it->second;
  }
  return groups;
}

// Drops configuration c of a row when another one of the same GPU type needs
// no more GPUs and costs no more (ties: the fewer GPUs, then the lower
// index stays). Exact: swapping c for that one keeps every solution
// feasible and no worse. Elastic jobs past their scaling limit and every
// move that the restart factor makes worse than staying are cut this way.
void drop_dominated(const SiaIlpProblem& problem, std::vector<double>& cost) {
  std::vector<std::size_t> order;
  for (std::size_t c = 0; c < cost.size(); ++c)
    if (std::isfinite(cost[c])) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SiaConfig& ca = problem.configs[a];
    const SiaConfig& cb = problem.configs[b];
    if (ca.type != cb.type) return ca.type < cb.type;
    if (ca.gpus != cb.gpus) return ca.gpus < cb.gpus;
    return cost[a] < cost[b];
  });
  int type = -1;
  double cheapest = 0;
  for (std::size_t c : order) {
    if (problem.configs[c].type != type) {
      type = problem.configs[c].type;
      cheapest = cost[c];
      continue;
    }
    if (cost[c] >= cheapest)
      cost[c] = std::numeric_limits<double>::infinity();
    else
      cheapest = cost[c];
  }
}

struct Column {
  std::size_t group;
  std::size_t config;
};

// Each group's first column, and columns.size() past the last group: group
// g's columns are [first[g], first[g + 1]).
std::vector<std::size_t> group_starts(const std::vector<Group>& groups, const std::vector<Column>& columns) {
  std::vector<std::size_t> first(groups.size() + 1, columns.size());
  for (std::size_t col = columns.size(); col-- > 0;) first[columns[col].group] = col;
  for (std::size_t g = groups.size(); g-- > 0;)
    if (first[g] == columns.size()) first[g] = first[g + 1];
  return first;
}

// A feasible start for CBC: every job at its cheapest column, then, while a
// GPU type is over capacity, the move off that type with the least cost
// added per GPU freed (to a smaller or other-type column with room, or to
// none). Greedy by job order instead left CBC an incumbent half as good as
// the optimum on busy Philly rounds.
std::vector<double> repair_fill(const SiaIlpProblem& problem, const std::vector<Group>& groups,
                                const std::vector<Column>& columns, const std::vector<double>& cost,
                                const std::vector<std::size_t>& cheapest) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::vector<std::size_t> first = group_starts(groups, columns);
  auto type_of = [&](std::size_t col) {
    return static_cast<std::size_t>(problem.configs[columns[col].config].type);
  };
  auto gpus_of = [&](std::size_t col) { return problem.configs[columns[col].config].gpus; };
  struct Member {
    std::size_t group;
    std::size_t column;
  };
  std::vector<Member> members;
  std::vector<long> used(problem.capacity.size(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t k = 0; k < groups[g].members.size(); ++k) {
      members.push_back(Member{g, cheapest[g]});
      used[type_of(cheapest[g])] += gpus_of(cheapest[g]);
    }
  // Moves never enter a type that lacks room, so a type over capacity is
  // over from the start and, once repaired, stays within capacity: each is
  // repaired once, in type order. Its members' best moves are kept in a
  // min-heap by (cost added per GPU freed, member). A popped move is skipped
  // when the member has moved since, and recomputed when its target type has
  // lost the room it needed. (Room that frees up on a type repaired later is
  // not offered again to moves already queued: this is only CBC's start.)
  struct Move {
    double ratio;
    std::size_t member;
    std::size_t from;  // the member's column when the move was computed
    std::size_t to;    // column, or kNone
    bool operator>(const Move& o) const { return ratio != o.ratio ? ratio > o.ratio : member > o.member; }
  };
  auto has_room = [&](std::size_t col) {
    return used[type_of(col)] + gpus_of(col) <= problem.capacity[type_of(col)];
  };
  auto best_move = [&](std::size_t m) {
    const std::size_t from = members[m].column;
    const std::size_t t = type_of(from);
    Move best{-cost[from] / gpus_of(from), m, from, kNone};  // to none: cost 0
    for (std::size_t col = first[members[m].group]; col < first[members[m].group + 1]; ++col) {
      const int freed = type_of(col) == t ? gpus_of(from) - gpus_of(col) : gpus_of(from);
      if (freed <= 0 || (type_of(col) != t && !has_room(col))) continue;
      const double ratio = (cost[col] - cost[from]) / freed;
      if (ratio < best.ratio) best = Move{ratio, m, from, col};
    }
    return best;
  };
  for (std::size_t t = 0; t < used.size(); ++t) {
    if (used[t] <= problem.capacity[t]) continue;
    std::priority_queue<Move, std::vector<Move>, std::greater<>> heap;
    for (std::size_t m = 0; m < members.size(); ++m)
      if (members[m].column != kNone && type_of(members[m].column) == t) heap.push(best_move(m));
    while (used[t] > problem.capacity[t]) {
      const Move top = heap.top();
      heap.pop();
      Member& m = members[top.member];
      if (m.column != top.from) continue;  // moved since
      if (top.to != kNone && type_of(top.to) != t && !has_room(top.to)) {
        heap.push(best_move(top.member));
        continue;
      }
      used[t] -= gpus_of(m.column);
      m.column = top.to;
      if (m.column == kNone) continue;
      used[type_of(m.column)] += gpus_of(m.column);
      if (type_of(m.column) == t) heap.push(best_move(top.member));
    }
  }
  std::vector<double> x(columns.size(), 0.0);
  for (const Member& m : members)
    if (m.column != kNone) x[m.column] += 1;
  return x;
}

// The running allocation as a start: each job on its current configuration
// (`running`), or where grouping or dominance dropped that column, on its
// group's cheapest column of the same type and no more GPUs (one exists
// unless "none" is cheaper: drop_dominated keeps such a column); then each
// other job, in group order, on its cheapest column with room. The running
// jobs' GPUs fit each type's capacity, so this is feasible. It is the
// allocation CBC returns in most late two-type rounds, which repair_fill,
// built from each job's cheapest column, lands above
// (docs/PERFORMANCE_HISTORY.md, "Sia's repeated late rounds: the cause
// (thirteenth pass)").
std::vector<double> running_fill(const SiaIlpProblem& problem, const std::vector<Group>& groups,
                                 const std::vector<Column>& columns, const std::vector<double>& cost) {
  std::vector<double> x(columns.size(), 0.0);
  std::vector<long> used(problem.capacity.size(), 0);
  const std::vector<std::size_t> first = group_starts(groups, columns);
  auto take = [&](std::size_t col) {
    x[col] += 1;
    used[problem.configs[columns[col].config].type] += problem.configs[columns[col].config].gpus;
  };
  std::vector<std::size_t> unplaced(groups.size(), 0);  // queued members left to fill in
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i : groups[g].members) {
      const int current = problem.running[i];
      std::size_t best = columns.size();
      for (std::size_t col = first[g]; current >= 0 && col < first[g + 1]; ++col) {
        const SiaConfig& cfg = problem.configs[columns[col].config];
        const SiaConfig& now = problem.configs[current];
        if (cfg.type == now.type && cfg.gpus <= now.gpus &&
            (best == columns.size() || cost[col] < cost[best]))
          best = col;
      }
      if (best == columns.size())
        unplaced[g] += current < 0 ? 1 : 0;
      else
        take(best);
    }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (; unplaced[g] > 0; --unplaced[g]) {
      std::size_t best = columns.size();
      for (std::size_t col = first[g]; col < first[g + 1]; ++col) {
        const SiaConfig& cfg = problem.configs[columns[col].config];
        if (used[cfg.type] + cfg.gpus <= problem.capacity[cfg.type] &&
            (best == columns.size() || cost[col] < cost[best]))
          best = col;
      }
      if (best == columns.size()) break;
      take(best);
    }
  return x;
}

bool configs_of_one_type(const SiaIlpProblem& problem, const std::vector<Column>& columns) {
  for (const Column& col : columns)
    if (problem.configs[col.config].type != problem.configs[columns.front().config].type) return false;
  return true;
}

// Each group's column counts handed to its members in job order.
std::vector<int> hand_out(const std::vector<Group>& groups, const std::vector<Column>& columns,
                          const std::vector<double>& x, std::vector<int> chosen) {
  std::vector<std::size_t> next(groups.size(), 0);
  for (std::size_t col = 0; col < columns.size(); ++col) {
    const Group& group = groups[columns[col].group];
    std::size_t& k = next[columns[col].group];
    for (long n = std::lround(x[col]); n > 0 && k < group.members.size(); --n, ++k)
      chosen[group.members[k]] = static_cast<int>(columns[col].config);
  }
  return chosen;
}

}  // namespace

std::vector<int> solve_sia_ilp(const SiaIlpProblem& problem) {
  if (problem.p == 0 || !std::isfinite(problem.p))
    throw std::invalid_argument("solve_sia_ilp: p must be != 0");
  std::vector<int> chosen(problem.value.size(), -1);
  std::vector<Group> groups = group_jobs(problem);
  std::vector<Column> columns;
  std::vector<double> cost;
  std::vector<double> col_ub;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    drop_dominated(problem, groups[g].cost);
    for (std::size_t c = 0; c < problem.configs.size(); ++c) {
      if (!std::isfinite(groups[g].cost[c])) continue;
      const SiaConfig& cfg = problem.configs[c];
      columns.push_back(Column{g, c});
      cost.push_back(groups[g].cost[c]);
      col_ub.push_back(static_cast<double>(std::min<std::size_t>(
          groups[g].members.size(), static_cast<std::size_t>(problem.capacity[cfg.type] / cfg.gpus))));
    }
  }
  if (columns.empty()) return chosen;

  // Each group's cheapest column; when those fit every type's capacity
  // together they are the optimum (dropping the capacity rows can only lower
  // the cost), and CBC is skipped. Long stretches of a light trace are like
  // this. Otherwise the fill below is CBC's first incumbent.
  std::vector<std::size_t> cheapest(groups.size(), columns.size());
  for (std::size_t col = 0; col < columns.size(); ++col) {
    std::size_t& best = cheapest[columns[col].group];
    if (best == columns.size() || cost[col] < cost[best]) best = col;
  }
  std::vector<long> demand(problem.capacity.size(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const SiaConfig& cfg = problem.configs[columns[cheapest[g]].config];
    demand[cfg.type] += static_cast<long>(cfg.gpus) * static_cast<long>(groups[g].members.size());
  }
  bool fits = true;
  for (std::size_t t = 0; t < demand.size(); ++t) fits = fits && demand[t] <= problem.capacity[t];
  if (fits) {
    std::vector<double> x(columns.size(), 0.0);
    for (std::size_t g = 0; g < groups.size(); ++g)
      x[cheapest[g]] = static_cast<double>(groups[g].members.size());
    return hand_out(groups, columns, x, std::move(chosen));
  }
  if (problem.knapsack && configs_of_one_type(problem, columns) && problem.configs.size() < 65535) {
    const std::vector<std::size_t> members = member_counts(groups);
    std::vector<KnapsackColumn> items;
    for (std::size_t col = 0; col < columns.size(); ++col)
      items.push_back(
          KnapsackColumn{columns[col].group, problem.configs[columns[col].config].gpus, cost[col]});
    const int type = problem.configs[columns.front().config].type;
    if (const auto counts =
            solve_multiple_choice_knapsack(members, items, problem.capacity[type], problem.max_knapsack_work))
      return hand_out(groups, columns, std::vector<double>(counts->begin(), counts->end()),
                      std::move(chosen));
  }
  std::vector<double> start = repair_fill(problem, groups, columns, cost, cheapest);
  auto cost_of = [&](const std::vector<double>& x) {
    double sum = 0;
    for (std::size_t col = 0; col < columns.size(); ++col) sum += x[col] * cost[col];
    return sum;
  };
  double start_cost = cost_of(start);
  if (!problem.running.empty()) {
    if (problem.running.size() != problem.value.size())
      throw std::invalid_argument("solve_sia_ilp: one running configuration per job, or none");
    std::vector<double> kept = running_fill(problem, groups, columns, cost);
    const double kept_cost = cost_of(kept);
    if (kept_cost < start_cost) {
      start = std::move(kept);
      start_cost = kept_cost;
    }
  }
  if (problem.certify_start || problem.max_search_nodes > 0 || problem.keep_within_gap) {
    // When no allocation costs less than the start minus 1e-6 (a tenth of
    // CBC's cutoff increment of 1e-5), CBC would return the start itself
    // (sia_certificate.hpp): the same answer without a solve.
    const double target = start_cost - 1e-6;
    const std::vector<std::size_t> members = member_counts(groups);
    std::vector<PricedColumn> priced;
    priced.reserve(columns.size());
    for (std::size_t col = 0; col < columns.size(); ++col) {
      const SiaConfig& cfg = problem.configs[columns[col].config];
      priced.push_back(PricedColumn{columns[col].group, cfg.type, cfg.gpus, cost[col]});
    }
    if (problem.certify_start && start_lower_bound(members, priced, problem.capacity, start) >= target)
      return hand_out(groups, columns, start, std::move(chosen));
    if (problem.exact_two_types && problem.max_search_nodes > 0) {
      std::vector<long> counts;
      const BelowTarget below = cheapest_below(members, priced, problem.capacity, start_cost - 1e-9,
                                               problem.max_search_nodes, counts);
      if (below == BelowTarget::kNone) return hand_out(groups, columns, start, std::move(chosen));
      if (below == BelowTarget::kFound)
        return hand_out(groups, columns, std::vector<double>(counts.begin(), counts.end()),
                        std::move(chosen));
    }
    // keep_within_gap: where no allocation beats the start by more than
    // CBC's own stopping gap, the start is an answer CBC may stop at too;
    // CBC may also find one cheaper within the gap, so decisions may differ.
    // gap_search: where one beats it, the search goes on from there to an
    // allocation within the gap (CBC's stopping rule), and CBC runs only
    // past the node cap.
    const long gap_nodes = problem.max_search_nodes > 0 ? problem.max_search_nodes : kGapSearchNodes;
    if (problem.keep_within_gap && problem.gap_search) {
      std::vector<long> counts;
      const BelowTarget below = within_gap_below(members, priced, problem.capacity, start_cost,
                                                 problem.relative_gap, gap_nodes, counts);
      if (below == BelowTarget::kNone) return hand_out(groups, columns, start, std::move(chosen));
      if (below == BelowTarget::kFound)
        return hand_out(groups, columns, std::vector<double>(counts.begin(), counts.end()),
                        std::move(chosen));
      // Past the search's cap: the branch and bound with re-optimised
      // Lagrangian bounds (sia_branch_bound.hpp) to CBC's stopping rules,
      // the relative gap and max_bb_nodes; where it finds nothing cheaper
      // than the start, the start, as CBC returns its incumbent.
      if (problem.own_bb && problem.capacity.size() <= 2) {
        const long cap = problem.max_bb_nodes > 0 ? problem.max_bb_nodes : std::numeric_limits<long>::max();
        const BelowTarget bb = gap_branch_and_bound(members, priced, problem.capacity, start_cost,
                                                    problem.relative_gap, cap, counts);
        if (bb == BelowTarget::kFound)
          return hand_out(groups, columns, std::vector<double>(counts.begin(), counts.end()),
                          std::move(chosen));
        return hand_out(groups, columns, start, std::move(chosen));
      }
    }
    if (problem.keep_within_gap && !problem.gap_search &&
        allocation_below(members, priced, problem.capacity,
                         start_cost - problem.relative_gap * std::abs(start_cost),
                         gap_nodes) == BelowTarget::kNone)
      return hand_out(groups, columns, start, std::move(chosen));
    // Where the certificate's prices fall short (the relaxation splits a
    // few jobs), the search proves the same (sia_start_search.hpp).
    if (problem.max_search_nodes > 0 && allocation_below(members, priced, problem.capacity, target,
                                                         problem.max_search_nodes) == BelowTarget::kNone)
      return hand_out(groups, columns, start, std::move(chosen));
  }

  CoinPackedMatrix matrix(false, 0, 0);
  matrix.setDimensions(0, static_cast<int>(columns.size()));
  // Room for every row up front: appendRow on a full matrix copies all of
  // it, so rows appended one by one cost O(rows x elements); on philly-2017
  // rounds of ~2,200 groups and ~60,000 columns that copying took about a
  // third of the round (each column is in its group's row and its type's).
  matrix.reserve(static_cast<int>(groups.size() + problem.capacity.size()),
                 static_cast<CoinBigIndex>(2 * columns.size()));
  std::vector<double> row_lb;
  std::vector<double> row_ub;
  // At most one configuration per job: per group, at most its member count.
  for (std::size_t g = 0, col = 0; g < groups.size(); ++g) {
    CoinPackedVector row;
    for (; col < columns.size() && columns[col].group == g; ++col) row.insert(static_cast<int>(col), 1.0);
    if (row.getNumElements() == 0) continue;
    matrix.appendRow(row);
    row_lb.push_back(0);
    row_ub.push_back(static_cast<double>(groups[g].members.size()));
  }
  // GPU capacity per type.
  for (std::size_t t = 0; t < problem.capacity.size(); ++t) {
    CoinPackedVector row;
    for (std::size_t col = 0; col < columns.size(); ++col) {
      const SiaConfig& cfg = problem.configs[columns[col].config];
      if (static_cast<std::size_t>(cfg.type) == t) row.insert(static_cast<int>(col), cfg.gpus);
    }
    if (row.getNumElements() == 0) continue;
    matrix.appendRow(row);
    row_lb.push_back(0);
    row_ub.push_back(problem.capacity[t]);
  }
  const std::vector<double> col_lb(columns.size(), 0.0);

  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(matrix, col_lb.data(), col_ub.data(), cost.data(), row_lb.data(), row_ub.data());
  for (std::size_t col = 0; col < columns.size(); ++col) solver.setInteger(static_cast<int>(col));
  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.setBestSolution(start.data(), static_cast<int>(columns.size()), start_cost, true);
  if (problem.relative_gap > 0) model.setAllowableFractionGap(problem.relative_gap);
  if (problem.max_bb_nodes > 0) model.setMaximumNodes(problem.max_bb_nodes);
  model.branchAndBound();
  const double* x = model.bestSolution();
  if (x == nullptr) return chosen;  // all zero is always feasible; CBC found nothing better
  return hand_out(groups, columns, std::vector<double>(x, x + columns.size()), std::move(chosen));
}

}  // namespace vnsim
