#include "vnsim/policies/sia_ilp.hpp"

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace vnsim {

double sia_cost(const SiaIlpProblem& problem, double value) {
  if (!(value > 0)) return std::numeric_limits<double>::infinity();
  const double term = std::pow(value, problem.p);
  return problem.p < 0 ? term - problem.no_allocation_penalty : -term;
}

namespace {

// Jobs with the same cost row are interchangeable: the ILP gets one general
// integer variable per (group, configuration), A_gc in [0, members], which
// has the same optimum as one binary per job (any optimum of the merged
// problem hands its counts out to the members). Queued jobs of the same
// model at the same progress share a row, so large rounds shrink a lot.
struct Group {
  std::vector<std::size_t> members;  // job indices, ascending
  std::vector<double> cost;          // per configuration; +inf: not a column
};

std::vector<Group> group_jobs(const SiaIlpProblem& problem) {
  std::vector<Group> groups;
  std::map<std::vector<double>, std::size_t> by_row;
  for (std::size_t i = 0; i < problem.value.size(); ++i) {
    if (problem.value[i].size() != problem.configs.size())
      throw std::invalid_argument("solve_sia_ilp: one value per configuration per job");
    std::vector<double> cost(problem.configs.size(), std::numeric_limits<double>::infinity());
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
    const auto [it, added] = by_row.emplace(std::move(cost), groups.size());
    if (added) groups.push_back(Group{{}, it->first});
    groups[it->second].members.push_back(i);
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

}  // namespace

std::vector<int> solve_sia_ilp(const SiaIlpProblem& problem) {
  if (problem.p == 0 || !std::isfinite(problem.p))
    throw std::invalid_argument("solve_sia_ilp: p must be != 0");
  std::vector<int> chosen(problem.value.size(), -1);
  std::vector<Group> groups = group_jobs(problem);
  struct Column {
    std::size_t group;
    std::size_t config;
  };
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

  CoinPackedMatrix matrix(false, 0, 0);
  matrix.setDimensions(0, static_cast<int>(columns.size()));
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
  model.branchAndBound();
  const double* x = model.bestSolution();
  if (x == nullptr) return chosen;  // all zero is always feasible; CBC found nothing better
  // Hand each group's counts to its members in job order.
  std::vector<std::size_t> next(groups.size(), 0);
  for (std::size_t col = 0; col < columns.size(); ++col) {
    Group& group = groups[columns[col].group];
    std::size_t& k = next[columns[col].group];
    for (long n = std::lround(x[col]); n > 0 && k < group.members.size(); --n, ++k)
      chosen[group.members[k]] = static_cast<int>(columns[col].config);
  }
  return chosen;
}

}  // namespace vnsim
