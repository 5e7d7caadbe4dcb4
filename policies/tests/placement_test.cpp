// Each placement strategy on a tiny cluster, answers worked out by hand.
#include "vnsim/policies/placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_clusters.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

// tests/clusters/v100-<racks>x<nodes>x2.json: racks x nodes x 2 GPUs; GPU ids:
// rack r, node n, local i -> (r*nodes+n)*2+i.
struct Fixture {
  explicit Fixture(const std::string& cluster_name)
      : cluster(testing::test_cluster(cluster_name)), topology(cluster), view(cluster, topology) {}
  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<RunningJob> running;
  void run(JobIndex job, std::vector<GpuId> gpus) {
    view.allocate(gpus, job);
    running.push_back(RunningJob{job, nullptr, Placement{gpus, std::vector<int>(gpus.size(), 1)}, 0, 0, -1});
  }
};

TEST(Placement, FirstFitTakesTheLowestFreeGpus) {
  Fixture f("v100-1x2x2");  // GPUs 0..3
  f.run(0, {0});
  FreeGpus free(f.view, f.running);
  auto p = make_placement("first-fit");
  EXPECT_EQ(p->place(free, 3, kAnyGpuType), (std::vector<GpuId>{1, 2, 3}));
  EXPECT_FALSE(p->place(free, 4, kAnyGpuType).has_value());
  EXPECT_FALSE(p->place(free, 1, GpuTypeMask{0}).has_value()) << "no allowed type";
}

TEST(Placement, ConsolidatedPrefersAWholeNode) {
  Fixture f("v100-1x2x2");
  f.run(0, {0});
  FreeGpus free(f.view, f.running);
  // First-fit would give {1, 2} over two nodes; node 1 holds both.
  EXPECT_EQ(make_placement("consolidated")->place(free, 2, kAnyGpuType), (std::vector<GpuId>{2, 3}));
}

TEST(Placement, FreeGpusCountsPreemptionsAndStartsOfTheSameCall) {
  Fixture f("v100-1x2x2");
  f.run(0, {0, 1});
  FreeGpus free(f.view, f.running);
  EXPECT_EQ(free.total(), 2);
  free.take({2, 3});
  free.release({0, 1});  // job 0 preempted in this call
  EXPECT_EQ(free.total(), 2);
  EXPECT_EQ(free.on_node(0), (std::vector<GpuId>{0, 1}));
  EXPECT_TRUE(free.on_node(1).empty());
}

// 3 racks x 2 nodes x 2 GPUs. A multi-node job holds GPUs 2, 3 (rack 0) and
// 4 (rack 1). Free: rack 0 {0, 1}; rack 1 {5, 6, 7}; rack 2 {8..11}. A
// 3-GPU job needs two nodes anywhere; consolidated takes the lowest rack that
// does it on fewest nodes (rack 1), topology-aware avoids racks 0 and 1.
TEST(Placement, TopologyAwareKeepsMultiNodeJobsOffSharedRacks) {
  Fixture f("v100-3x2x2");
  f.run(0, {2, 3, 4});
  FreeGpus free(f.view, f.running);
  EXPECT_EQ(free.multi_node_jobs_in_rack(0), 1);
  EXPECT_EQ(free.multi_node_jobs_in_rack(1), 1);
  EXPECT_EQ(free.multi_node_jobs_in_rack(2), 0);
  EXPECT_EQ(make_placement("consolidated")->place(free, 3, kAnyGpuType), (std::vector<GpuId>{5, 6, 7}));
  auto topo = make_placement("topology-aware");
  const auto spread = topo->place(free, 3, kAnyGpuType);
  ASSERT_TRUE(spread.has_value());
  ASSERT_EQ(spread->size(), 3u);
  for (GpuId g : *spread) EXPECT_EQ(f.cluster.gpu(g).rack, 2) << g;
  // A job that fits on one node uses no uplink: plainly consolidated.
  EXPECT_EQ(topo->place(free, 2, kAnyGpuType), (std::vector<GpuId>{0, 1}));
  // When the unshared racks lack room it falls back to shared ones.
  EXPECT_EQ(topo->place(free, 7, kAnyGpuType)->size(), 7u);
}

TEST(Placement, RandomIsSeededAndOnlyUsesFreeGpus) {
  Fixture f("v100-2x2x2");  // 8 GPUs
  f.run(0, {0, 5});
  FreeGpus free(f.view, f.running);
  auto a = make_placement("random", 42);
  auto b = make_placement("random", 42);
  auto c = make_placement("random", 43);
  bool differs = false;
  for (int i = 0; i < 20; ++i) {
    const auto pa = a->place(free, 3, kAnyGpuType);
    const auto pb = b->place(free, 3, kAnyGpuType);
    const auto pc = c->place(free, 3, kAnyGpuType);
    ASSERT_TRUE(pa && pb && pc);
    EXPECT_EQ(*pa, *pb) << "same seed, same draws";
    differs = differs || *pa != *pc;
    const std::set<GpuId> distinct(pa->begin(), pa->end());
    EXPECT_EQ(distinct.size(), 3u);
    for (GpuId g : *pa) EXPECT_TRUE(free.is_free(g)) << g;
    EXPECT_TRUE(std::is_sorted(pa->begin(), pa->end()));
  }
  EXPECT_TRUE(differs) << "another seed should draw differently";
  EXPECT_FALSE(a->place(free, 7, kAnyGpuType).has_value());
}

TEST(Placement, MostFreeTakesTheEmptiestNodesFirst) {
  Fixture f("v100-1x3x2");  // nodes 0..2 with GPUs {0,1}, {2,3}, {4,5}
  f.run(0, {0});
  f.run(1, {4});
  FreeGpus free(f.view, f.running);
  auto p = make_placement("most-free");
  // Free: node 0 {1}, node 1 {2,3}, node 2 {5}. One GPU goes to node 1 (the
  // most free), where consolidated would pack it onto node 0.
  EXPECT_EQ(p->place(free, 1, kAnyGpuType), (std::vector<GpuId>{2}));
  EXPECT_EQ(make_placement("consolidated")->place(free, 1, kAnyGpuType), (std::vector<GpuId>{1}));
  // Three: node 1's two, then node 0 (tied with node 2 at one, lower index).
  EXPECT_EQ(p->place(free, 3, kAnyGpuType), (std::vector<GpuId>{1, 2, 3}));
  EXPECT_FALSE(p->place(free, 5, kAnyGpuType).has_value());
}

TEST(Placement, RegistryListsAllAndRejectsUnknownNames) {
  EXPECT_EQ(placement_names(),
            (std::vector<std::string>{"consolidated", "first-fit", "topology-aware", "random", "most-free"}));
  for (const auto& name : placement_names()) EXPECT_EQ(make_placement(name)->name(), name);
  EXPECT_THROW(make_placement("best-fit"), InputError);
}

}  // namespace
}  // namespace vnsim
