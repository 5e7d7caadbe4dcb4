#include "pollux_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace vnsim::pollux {

Search::Search(const PolluxParams& params, GoodputEstimator& estimator, const Cluster& cluster,
               std::mt19937_64& rng, std::vector<float>& tables)
    : params_(params), estimator_(estimator), types_(cluster, estimator), rng_(rng), tables_(tables) {
  for (const NodeInfo& n : cluster.nodes()) capacity_.push_back(n.gpu_count);
  claimed_.assign(capacity_.size(), 0);
  used_.assign(capacity_.size(), 0);
  max_nodes_ = std::min({params.max_nodes_per_job, kMaxRowNodes, cluster.node_count()});
  max_gpus_ = std::min(params.max_gpus_per_job, cluster.gpu_count());
}

double Search::fitness(Individual& ind) {
  double sum = 0;
  double log_sum = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Row& r = ind.rows[j];
    double s = speedup(j, r.n, r.gpus(), row_type(r));
    if (s <= 0 && r.n > 0) r.n = 0;  // GPUs it cannot use are given back
    if (jobs[j].running && r.n > 0 && !r.same_as(jobs[j].current)) s *= jobs[j].restart_factor;
    if (params_.p == 0)
      log_sum += std::log(s + kSpeedupFloor);
    else if (params_.p == -1)
      sum += 1.0 / (s + kSpeedupFloor);  // the default; pow() dominated large rounds
    else
      sum += std::pow(s + kSpeedupFloor, params_.p);
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, jobs.size()));
  ind.fitness = params_.p == 0 ? std::exp(log_sum / n) : std::pow(sum / n, 1.0 / params_.p);
  return ind.fitness;
}

void Search::crossover(const Individual& a, const Individual& b, Individual& child) {
  const auto cut = static_cast<std::ptrdiff_t>(pick(rng_, jobs.size() + 1));
  child.rows.resize(jobs.size());
  std::copy(a.rows.begin(), a.rows.begin() + cut, child.rows.begin());
  std::copy(b.rows.begin() + cut, b.rows.end(), child.rows.begin() + cut);
}

void Search::mutate(Individual& ind) {
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Row& r = ind.rows[j];
    const double u = uniform01(rng_);
    if (u < 0.1) {
      r = jobs[j].current;
    } else if (u < 0.2) {
      for (int i = 0; i < r.n; ++i)
        if (uniform01(rng_) < 0.1) r.count[i] = 0;
      r.compact();
    } else if (u < 0.3) {
      int slot = -1;
      if (r.n > 0 && uniform01(rng_) < 0.5) {
        slot = static_cast<int>(pick(rng_, r.n));
      } else {
        const auto node = static_cast<std::uint32_t>(pick(rng_, capacity_.size()));
        for (int i = 0; i < r.n; ++i)
          if (r.node[i] == node) slot = i;
        if (slot < 0 && r.n < kMaxRowNodes) {
          slot = r.n++;
          r.node[slot] = node;
          r.count[slot] = 0;
        }
      }
      if (slot >= 0) {
        const int cap = capacity_[r.node[slot]];
        const int lo = r.count[slot];
        r.count[slot] = static_cast<std::uint16_t>(lo + static_cast<int>(pick(rng_, cap - lo + 1)));
        r.compact();
      }
    }
  }
}

void Search::repair(Individual& ind) {
  // Cleared through the touched list: a round with few jobs on a cluster of
  // hundreds of nodes spent most of its search clearing these two arrays.
  for (const std::uint32_t node : touched_) {
    claimed_[node] = 0;
    used_[node] = 0;
  }
  touched_.clear();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Row& r = ind.rows[j];
    if (r.n > 1) {
      for (int i = 0; i < r.n;)
        if (claimed_[r.node[i]])
          r.drop(i);
        else
          ++i;
      for (int i = 0; i < r.n; ++i) {
        claimed_[r.node[i]] = 1;
        touched_.push_back(r.node[i]);
      }
    }
    while (r.n > max_nodes_) {
      const auto smallest = std::min_element(r.count.begin(), r.count.begin() + r.n) - r.count.begin();
      r.drop(static_cast<int>(smallest));
    }
    for (int over = r.gpus() - jobs[j].max_gpus; over > 0;) {
      const int i = r.n - 1;
      const int cut = std::min<int>(over, r.count[i]);
      r.count[i] = static_cast<std::uint16_t>(r.count[i] - cut);
      over -= cut;
      r.compact();
    }
    for (int i = 0; i < r.n; ++i) {
      const int room = capacity_[r.node[i]] - used_[r.node[i]];
      r.count[i] = static_cast<std::uint16_t>(std::min<int>(r.count[i], room));
      used_[r.node[i]] += r.count[i];
      touched_.push_back(r.node[i]);
    }
    r.compact();
  }
}

const Individual& Search::tournament(const std::vector<Individual>& pop) {
  const Individual& a = pop[pick(rng_, pop.size())];
  const Individual& b = pop[pick(rng_, pop.size())];
  return a.fitness >= b.fitness ? a : b;
}

}  // namespace vnsim::pollux
