// FreeGpus keeps only what one decide() call changed on top of the view;
// these tests check it against a plain recount after random starts and
// preemptions, and that consolidated placement with per-node counts gives
// the same GPUs as without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/placement.hpp"

namespace vnsim {
namespace {

// racks x nodes x 4 V100.
ClusterSpec grid_spec(int racks, int nodes_per_rack) {
  ClusterSpec spec;
  spec.name = "grid";
  for (int r = 0; r < racks; ++r) {
    RackSpec rack;
    rack.name = "r" + std::to_string(r);
    for (int n = 0; n < nodes_per_rack; ++n) {
      NodeSpec node;
      node.name = rack.name + "n" + std::to_string(n);
      node.gpu_types.assign(4, "V100");
      node.intra = {IntraLinkKind::NVLink, 150e9, 1e-6};
      node.nic_bandwidth_Bps = 12.5e9;
      node.nic_latency_s = 2e-6;
      rack.nodes.push_back(node);
    }
    spec.racks.push_back(rack);
  }
  return spec;
}

// The free GPUs and the jobs holding GPUs, kept the plain way.
struct Recount {
  std::set<GpuId> free;
  std::map<JobIndex, std::vector<GpuId>> jobs;

  int multi_node_jobs_in_rack(const Cluster& c, RackId r) const {
    int n = 0;
    for (const auto& [job, gpus] : jobs) {
      std::set<NodeId> nodes;
      std::set<RackId> racks;
      for (GpuId g : gpus) {
        nodes.insert(c.gpu(g).node);
        racks.insert(c.gpu(g).rack);
      }
      if (nodes.size() > 1 && racks.count(r) != 0) ++n;
    }
    return n;
  }
};

// Up to `count` GPUs drawn from `pool`, ascending.
std::vector<GpuId> draw(std::mt19937_64& rng, const std::set<GpuId>& pool, int count) {
  std::vector<GpuId> all(pool.begin(), pool.end());
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(count)));
  std::sort(all.begin(), all.end());
  return all;
}

void expect_same(const FreeGpus& free, const Recount& want, const Cluster& c, const std::string& where) {
  ASSERT_EQ(free.total(), static_cast<int>(want.free.size())) << where;
  for (GpuId g = 0; g < c.gpu_count(); ++g) ASSERT_EQ(free.is_free(g), want.free.count(g) != 0) << where;
  for (NodeId n = 0; n < c.node_count(); ++n) {
    std::vector<GpuId> on;
    for (GpuId g : want.free)
      if (c.gpu(g).node == n) on.push_back(g);
    ASSERT_EQ(free.on_node(n), on) << where << " node " << n;
    ASSERT_EQ(free.free_on_node(n), static_cast<int>(on.size())) << where << " node " << n;
  }
  for (RackId r = 0; r < c.rack_count(); ++r)
    ASSERT_EQ(free.multi_node_jobs_in_rack(r), want.multi_node_jobs_in_rack(c, r)) << where << " rack " << r;
}

TEST(FreeGpus, CountsEqualARecountAfterRandomStartsAndPreemptions) {
  const Cluster cluster(grid_spec(3, 4));  // 48 GPUs
  const Topology topology(cluster);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    ClusterView view(cluster, topology);
    std::vector<RunningJob> running;
    Recount want;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) want.free.insert(g);
    JobIndex next = 0;
    // Jobs the engine runs before the call: 1..9 GPUs anywhere, so some span nodes.
    for (int j = 0; j < 8; ++j) {
      const auto gpus = draw(rng, want.free, 1 + static_cast<int>(rng() % 9));
      if (gpus.empty()) break;
      view.allocate(gpus, next);
      running.push_back(
          RunningJob{next, nullptr, Placement{gpus, std::vector<int>(gpus.size(), 1)}, 0, 0, -1});
      for (GpuId g : gpus) want.free.erase(g);
      want.jobs[next++] = gpus;
    }
    FreeGpus free(view, running);
    // Asking for the rack counts first in some seeds, last in others: the
    // running jobs are counted when first asked.
    if (seed % 2 == 0) (void)free.multi_node_jobs_in_rack(0);
    expect_same(free, want, cluster, "seed " + std::to_string(seed) + " before");
    // The call: preempt some jobs, start others, in random order.
    for (int step = 0; step < 30; ++step) {
      if (rng() % 2 == 0 && !want.jobs.empty()) {
        auto it = want.jobs.begin();
        std::advance(it, static_cast<long>(rng() % want.jobs.size()));
        free.release(it->second);
        for (GpuId g : it->second) want.free.insert(g);
        want.jobs.erase(it);
      } else {
        const auto gpus = draw(rng, want.free, 1 + static_cast<int>(rng() % 9));
        if (gpus.empty()) continue;
        free.take(gpus);
        for (GpuId g : gpus) want.free.erase(g);
        want.jobs[next++] = gpus;
      }
      expect_same(free, want, cluster, "seed " + std::to_string(seed) + " step " + std::to_string(step));
    }
  }
}

TEST(FreeGpus, ACopyChangesIndependently) {
  const Cluster cluster(grid_spec(1, 2));  // GPUs 0..7
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  std::vector<RunningJob> running;
  view.allocate({0, 1, 4}, 0);
  running.push_back(RunningJob{0, nullptr, Placement{{0, 1, 4}, {1, 1, 1}}, 0, 0, -1});
  FreeGpus free(view, running);
  FreeGpus trial = free;
  trial.release({0, 1, 4});
  EXPECT_EQ(trial.total(), 8);
  EXPECT_EQ(trial.multi_node_jobs_in_rack(0), 0);
  EXPECT_EQ(free.total(), 5);
  EXPECT_FALSE(free.is_free(0));
  EXPECT_EQ(free.free_on_node(0), 2);
  EXPECT_EQ(free.multi_node_jobs_in_rack(0), 1);
}

// Consolidated placement with per-node free counts (the fast path) picks
// the same GPUs as the plain scan of every node's free GPUs.
TEST(FreeGpus, ConsolidatedPlacementWithCountsMatchesThePlainScan) {
  const Cluster cluster(grid_spec(3, 4));  // 48 GPUs
  const Topology topology(cluster);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    ClusterView view(cluster, topology);
    std::set<GpuId> all;
    for (GpuId g = 0; g < cluster.gpu_count(); ++g) all.insert(g);
    const auto busy = draw(rng, all, static_cast<int>(rng() % 48));
    if (!busy.empty()) view.allocate(busy, 0);
    const int count = 1 + static_cast<int>(rng() % 12);
    const auto gpus_on = [&](NodeId n) { return view.free_gpus_on_node(n); };
    const auto plain = find_consolidated_gpus(cluster, gpus_on, count, kAnyGpuType);
    const auto counted = find_consolidated_gpus(cluster, gpus_on, count, kAnyGpuType,
                                                [&](NodeId n) { return view.free_on_node(n); });
    ASSERT_EQ(plain, counted) << "trial " << trial << " count " << count;
  }
}

}  // namespace
}  // namespace vnsim
