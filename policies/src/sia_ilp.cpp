#include "vnsim/policies/sia_ilp.hpp"

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace vnsim {

double sia_cost(const SiaIlpProblem& problem, double value) {
  if (!(value > 0)) return std::numeric_limits<double>::infinity();
  const double term = std::pow(value, problem.p);
  return problem.p < 0 ? term - problem.no_allocation_penalty : -term;
}

std::vector<int> solve_sia_ilp(const SiaIlpProblem& problem) {
  if (problem.p == 0 || !std::isfinite(problem.p))
    throw std::invalid_argument("solve_sia_ilp: p must be != 0");
  const std::size_t jobs = problem.value.size();
  std::vector<int> chosen(jobs, -1);
  // Only pairs that can lower the objective become columns: a pair whose
  // cost is >= 0 is never better than no allocation.
  std::vector<std::pair<std::size_t, std::size_t>> columns;
  std::vector<double> cost;
  for (std::size_t i = 0; i < jobs; ++i) {
    if (problem.value[i].size() != problem.configs.size())
      throw std::invalid_argument("solve_sia_ilp: one value per configuration per job");
    for (std::size_t c = 0; c < problem.configs.size(); ++c) {
      const double k = sia_cost(problem, problem.value[i][c]);
      if (k < 0 && problem.configs[c].gpus <= problem.capacity.at(problem.configs[c].type)) {
        columns.emplace_back(i, c);
        cost.push_back(k);
      }
    }
  }
  if (columns.empty()) return chosen;

  CoinPackedMatrix matrix(false, 0, 0);
  matrix.setDimensions(0, static_cast<int>(columns.size()));
  std::vector<double> row_lb;
  std::vector<double> row_ub;
  // One configuration per job.
  for (std::size_t i = 0, col = 0; i < jobs; ++i) {
    CoinPackedVector row;
    for (; col < columns.size() && columns[col].first == i; ++col) row.insert(static_cast<int>(col), 1.0);
    if (row.getNumElements() == 0) continue;
    matrix.appendRow(row);
    row_lb.push_back(0);
    row_ub.push_back(1);
  }
  // GPU capacity per type.
  for (std::size_t t = 0; t < problem.capacity.size(); ++t) {
    CoinPackedVector row;
    for (std::size_t col = 0; col < columns.size(); ++col) {
      const SiaConfig& cfg = problem.configs[columns[col].second];
      if (static_cast<std::size_t>(cfg.type) == t) row.insert(static_cast<int>(col), cfg.gpus);
    }
    if (row.getNumElements() == 0) continue;
    matrix.appendRow(row);
    row_lb.push_back(0);
    row_ub.push_back(problem.capacity[t]);
  }
  const std::vector<double> col_lb(columns.size(), 0.0);
  const std::vector<double> col_ub(columns.size(), 1.0);

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
  for (std::size_t col = 0; col < columns.size(); ++col)
    if (x[col] > 0.5) chosen[columns[col].first] = static_cast<int>(columns[col].second);
  return chosen;
}

}  // namespace vnsim
