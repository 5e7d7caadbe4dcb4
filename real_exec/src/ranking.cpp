#include "vnsim/real_exec/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace vnsim::real_exec {
namespace {

int sign(double v) {
  return (v > 0) - (v < 0);
}

std::vector<std::string> order_by(const std::vector<PolicyMeans>& runs, double PolicyMeans::*key) {
  std::vector<std::size_t> idx(runs.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].*key < runs[b].*key; });
  std::vector<std::string> out;
  for (std::size_t i : idx) out.push_back(runs[i].policy);
  return out;
}

}  // namespace

KendallTau kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("kendall_tau_b: x and y differ in length");
  KendallTau k;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const int sx = sign(x[j] - x[i]);
      const int sy = sign(y[j] - y[i]);
      if (sx == 0 && sy == 0) {
        ++k.tied_both;
      } else if (sx == 0) {
        ++k.tied_x;
      } else if (sy == 0) {
        ++k.tied_y;
      } else if (sx == sy) {
        ++k.concordant;
      } else {
        ++k.discordant;
      }
    }
  }
  const double untied = k.concordant + k.discordant;
  const double nx = untied + k.tied_y;  // pairs not tied in x
  const double ny = untied + k.tied_x;  // pairs not tied in y
  if (nx > 0 && ny > 0) k.tau = (k.concordant - k.discordant) / std::sqrt(nx * ny);
  return k;
}

PolicyRanking rank_policies(const std::vector<PolicyMeans>& runs) {
  PolicyRanking r;
  r.measured_order = order_by(runs, &PolicyMeans::measured_mean_jct_s);
  r.predicted_order = order_by(runs, &PolicyMeans::predicted_mean_jct_s);
  std::vector<double> measured, predicted;
  for (const PolicyMeans& p : runs) {
    measured.push_back(p.measured_mean_jct_s);
    predicted.push_back(p.predicted_mean_jct_s);
  }
  r.tau = kendall_tau_b(measured, predicted);
  r.agree = r.tau.concordant > 0 && r.tau.discordant == 0 && r.tau.tied_x == 0 && r.tau.tied_y == 0;
  return r;
}

}  // namespace vnsim::real_exec
