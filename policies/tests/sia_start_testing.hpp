#pragma once
// For the tests of the proofs of Sia's start (its certificate and its
// search): the least cost of an allocation by enumeration, and rounds of
// Sia's shape on two types.
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "../src/sia_certificate.hpp"
#include "vnsim/policies/sia_ilp.hpp"

namespace vnsim::testing_sia {

// Two types: type 0 with capacity 4, type 1 with capacity 3.
inline const std::vector<int> kCapacity = {4, 3};

// The least cost of every allocation (each member none or one of its
// group's columns, capacities kept), by enumeration; `best_start` gets one
// such allocation as counts per column.
inline double brute_force(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                          std::vector<double>* best_start = nullptr) {
  std::vector<std::size_t> of;  // one entry per member: its group
  for (std::size_t g = 0; g < members.size(); ++g) of.insert(of.end(), members[g], g);
  std::vector<int> pick(of.size(), -1);
  double best = 0;
  for (;;) {
    std::vector<long> used(kCapacity.size(), 0);
    double cost = 0;
    bool ok = true;
    for (std::size_t m = 0; m < of.size(); ++m) {
      if (pick[m] < 0) continue;
      const PricedColumn& c = columns[static_cast<std::size_t>(pick[m])];
      ok = ok && c.group == of[m];
      used[static_cast<std::size_t>(c.type)] += c.gpus;
      cost += c.cost;
    }
    for (std::size_t t = 0; t < used.size(); ++t) ok = ok && used[t] <= kCapacity[t];
    if (ok && cost < best) {
      best = cost;
      if (best_start != nullptr) {
        best_start->assign(columns.size(), 0);
        for (int k : pick)
          if (k >= 0) (*best_start)[static_cast<std::size_t>(k)] += 1;
      }
    }
    std::size_t m = 0;
    for (; m < pick.size(); ++m) {
      if (++pick[m] < static_cast<int>(columns.size())) break;
      pick[m] = -1;
    }
    if (m == pick.size()) return best;
  }
}

// Three groups of one or two members, each with up to three columns on
// either type, of 1 to 3 GPUs and costs in [-1, 0).
inline void random_groups(std::mt19937_64& rng, std::vector<std::size_t>& members,
                          std::vector<PricedColumn>& columns) {
  std::uniform_real_distribution<double> cost(-1, 0.01);
  std::uniform_int_distribution<int> gpus(1, 3);
  for (std::size_t g = 0; g < 3; ++g) {
    members.push_back(1 + rng() % 2);
    for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
      const double c = cost(rng);
      if (c < 0) columns.push_back({g, static_cast<int>(rng() % 2), gpus(rng), c});
    }
  }
}

// Sia's configurations on philly-2017's K80 and P40 nodes of 4 and 8 GPUs,
// scaled down to 4 and 3 nodes.
inline std::vector<SiaConfig> shaped_configs() {
  std::vector<SiaConfig> configs;
  for (int g : {1, 2, 4}) configs.push_back({0, g, 1});
  for (int n = 2; n <= 4; ++n) configs.push_back({0, 4 * n, n});
  for (int g : {1, 2, 4, 8}) configs.push_back({1, g, 1});
  for (int n = 2; n <= 3; ++n) configs.push_back({1, 8 * n, n});
  return configs;
}

// A round of Sia's shape on two types (philly-2017's K80 and P40 nodes of
// 4 and 8 GPUs, scaled down): `jobs` jobs whose goodput rises as w^a, type 1
// faster for some, a share `restarting` of them with a restart factor off
// their current configuration; CBC's gap and node cap as Sia's defaults.
inline SiaIlpProblem shaped_round(std::mt19937_64& rng, int trial, int jobs, double restarting) {
  std::uniform_real_distribution<double> exponent(0.2, 0.95);
  std::uniform_real_distribution<double> u01(0, 1);
  SiaIlpProblem p;
  p.configs = shaped_configs();
  p.capacity = {24 + 8 * (trial % 3), 24};
  p.relative_gap = 1e-4;
  p.max_bb_nodes = 100;
  for (int j = 0; j < jobs; ++j) {
    const double a = exponent(rng);
    const double speed = u01(rng) < 0.5 ? 1.0 : 1.5;
    const double restart = u01(rng) < 1 - restarting ? 1.0 : 0.5 + 0.5 * u01(rng);
    const std::size_t current = rng() % p.configs.size();
    std::vector<double> row;
    for (std::size_t c = 0; c < p.configs.size(); ++c) {
      const double v = std::pow(p.configs[c].gpus, a) * (p.configs[c].type == 1 ? speed : 1.0);
      row.push_back(c == current ? v : v * restart);
    }
    p.value.push_back(row);
  }
  return p;
}

}  // namespace vnsim::testing_sia
