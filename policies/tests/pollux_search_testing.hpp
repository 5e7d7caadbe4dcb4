#pragma once
// For the tests of Pollux's search (policies/src/pollux_search.hpp): jobs
// whose repairs have work to do, twin searches whose generators stay in
// step, and a comparison of individuals row by row.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../src/pollux_search.hpp"
#include "goodput_test_world.hpp"
#include "vnsim/policies/mt19937_64_blocks.hpp"

namespace vnsim::testing_pollux {

using testing::job;
using testing::World;

// The same rows (nodes in order, counts, scored flags) in both.
inline bool same_rows(const pollux::Individual& a, const pollux::Individual& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t j = 0; j < a.rows.size(); ++j) {
    const pollux::Row& x = a.rows[j];
    const pollux::Row& y = b.rows[j];
    if (x.n != y.n || x.scored != y.scored) return false;
    for (int i = 0; i < x.n; ++i)
      if (x.node[i] != y.node[i] || x.count[i] != y.count[i]) return false;
  }
  return true;
}

// 24 jobs of two models on 4 nodes x 4 T4, with caps of 1 to 5 GPUs and
// 3 nodes; four in five run on 1 to 4 nodes, so repairs drop claimed
// nodes and cut rows to the caps and to the nodes' room. `specs` holds two
// more jobs, for searches that add queued ones.
struct MixedJobs {
  World w;
  std::vector<JobSpec> specs;
  GoodputEstimator estimator;
  PolluxParams params;
  pollux::GoodputTables tables;
  explicit MixedJobs(int nodes = 4) : w(nodes) {  // nodes x 4 T4
    const char* models[] = {"cifar10", "imagenet"};
    for (int i = 0; i < 26; ++i) specs.push_back(job("j" + std::to_string(i), models[i % 2], 128, 100000));
    estimator.use_topology(w.topology);
    estimator.rings_on_any_gpu_type(true);
    params.max_nodes_per_job = 3;
    tables.begin_round(w.topology, estimator);
  }
  // The 24 jobs into `search`, prepared and priced.
  void fill(pollux::Search& search) const {
    for (std::size_t i = 0; i < 24; ++i) {
      pollux::Search::Job j{i, &specs[i], 0, 1, 0.5, i % 5 != 0, pollux::Row{}, 1 + static_cast<int>(i % 5)};
      std::vector<std::pair<NodeId, int>> row;
      for (std::size_t k = 0; j.running && k < 1 + i % 4; ++k)
        row.emplace_back(static_cast<NodeId>((i + k) % 4), 1 + (i + k) % 3);
      j.current = pollux::Row::from(row);
      search.jobs.push_back(j);
    }
    search.prepare();
    search.price_current_rows();
  }
  // Six parents: the current rows mutated, repaired and scored.
  static std::vector<pollux::Individual> parents(pollux::Search& search) {
    std::vector<pollux::Individual> pool(6);
    for (pollux::Individual& ind : pool) {
      for (std::size_t j = 0; j < search.jobs.size(); ++j) ind.rows.push_back(search.current_row(j));
      search.mutate(ind);
      search.repair(ind);
      search.fitness(ind);
    }
    return pool;
  }
};

// Two searches on MixedJobs' jobs with generators of one seed, each with
// six parents drawn from its own generator: the same pools, and the
// generators in step.
struct TwinSearches {
  MixedJobs mixed;
  Mt19937_64Blocks rng_one;
  Mt19937_64Blocks rng_other;
  pollux::Search one;
  pollux::Search other;
  std::vector<pollux::Individual> pools[2];
  explicit TwinSearches(std::uint64_t seed)
      : rng_one(seed),
        rng_other(seed),
        one(mixed.params, mixed.estimator, mixed.w.cluster, rng_one, mixed.tables),
        other(mixed.params, mixed.estimator, mixed.w.cluster, rng_other, mixed.tables) {
    mixed.fill(one);
    mixed.fill(other);
    pools[0] = MixedJobs::parents(one);
    pools[1] = MixedJobs::parents(other);
  }
};

}  // namespace vnsim::testing_pollux
