// Consolidated first-fit placement on a small cluster, expectations by hand:
//   rack ra: a0 = V100 {0..3}, a1 = V100 {4..7}, a2 = T4 {8, 9}
//   rack rb: b0 = V100 {10..13}, b1 = V100 {14..21}
#include "vnsim/core/consolidated_placement.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <stdexcept>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim {
namespace {

using Gpus = std::vector<GpuId>;

ClusterSpec spec() {
  return parse_cluster_spec(R"({
    "name": "place",
    "defaults": {"gpu_type": "V100", "intra": {"kind": "nvlink", "bandwidth_gbps": 800},
                 "nic": {"bandwidth_gbps": 100}},
    "racks": [
      {"name": "ra", "nodes": [{"name": "a0", "gpus": 4}, {"name": "a1", "gpus": 4},
                               {"name": "a2", "gpus": 2, "gpu_type": "T4"}]},
      {"name": "rb", "nodes": [{"name": "b0", "gpus": 4}, {"name": "b1", "gpus": 8}]}
    ]})",
                            "place.json");
}

Gpus range(GpuId first, GpuId last) {
  Gpus out(last - first + 1);
  std::iota(out.begin(), out.end(), first);
  return out;
}

class PlacementTest : public ::testing::Test {
 protected:
  std::optional<Gpus> place(int count, std::optional<std::string> type = std::nullopt) {
    calls.clear();
    return find_consolidated_gpus(
        cluster,
        [this](NodeId n) {
          calls.push_back(n);
          Gpus free;
          const NodeInfo& node = cluster.node(n);
          for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
            if (busy.count(g) == 0) free.push_back(g);
          return free;
        },
        count, type);
  }
  void occupy(const Gpus& gpus) { busy.insert(gpus.begin(), gpus.end()); }

  Cluster cluster{spec()};
  std::set<GpuId> busy;
  std::vector<NodeId> calls;
};

TEST_F(PlacementTest, FirstNodeThatFits) {
  EXPECT_EQ(place(3), range(0, 2));
  EXPECT_EQ(calls, std::vector<NodeId>{0});  // stops at the first fit
  occupy({0, 1});
  EXPECT_EQ(place(3), range(4, 6));
  EXPECT_EQ(place(2), range(2, 3));
}

TEST_F(PlacementTest, OneNodeBeatsOneRack) {
  // Rack ra has 10 free GPUs but no node of 8; b1 has 8 on one node.
  EXPECT_EQ(place(8), range(14, 21));
}

TEST_F(PlacementTest, InsideOneRackFewestNodes) {
  occupy({0, 1, 2, 4, 5});  // a0: 1 free, a1: 2 free, a2: 2 free
  occupy(range(10, 21));    // rack rb full
  // Lowest-index order would use three nodes (a0, a1, a2); most-free-first uses two.
  EXPECT_EQ(place(4), (Gpus{6, 7, 8, 9}));
  // Tie between a1 and a2 (2 free each): the lower index, a1, is taken whole.
  EXPECT_EQ(place(3), (Gpus{6, 7, 8}));
}

TEST_F(PlacementTest, RackThatNeedsFewestNodesWins) {
  // No node holds 9. Rack ra needs 3 nodes (4 + 4 + 1), rack rb only 2
  // (b1's 8 + one of b0), so rb wins although ra comes first.
  EXPECT_EQ(place(9), (Gpus{10, 14, 15, 16, 17, 18, 19, 20, 21}));
  // Only V100s: ra has 8 of them, rb has 12: b1 (8) then one of b0.
  EXPECT_EQ(place(9, "V100"), (Gpus{10, 14, 15, 16, 17, 18, 19, 20, 21}));
  // With b1 half busy rb holds only 8: ra, the only rack left, on 3 nodes.
  occupy(range(14, 17));
  EXPECT_EQ(place(9), range(0, 8));
}

TEST_F(PlacementTest, AcrossRacksMostFreeFirst) {
  occupy({0, 1, 2});
  occupy(range(4, 7));
  occupy({10, 11});
  occupy(range(14, 18));
  // Free: ra = {3} + {8, 9} (3), rb = {12, 13} + {19, 20, 21} (5); no rack holds 7.
  // rb first (b1 then b0), then ra's fullest node a2.
  EXPECT_EQ(place(7), (Gpus{8, 9, 12, 13, 19, 20, 21}));
  EXPECT_EQ(place(8), (Gpus{3, 8, 9, 12, 13, 19, 20, 21}));
  EXPECT_EQ(place(9), std::nullopt);
}

TEST_F(PlacementTest, TypeConstraint) {
  EXPECT_EQ(place(2, "T4"), (Gpus{8, 9}));
  EXPECT_EQ(calls, std::vector<NodeId>{2});  // nodes without T4 are not asked
  EXPECT_EQ(place(3, "T4"), std::nullopt);
  EXPECT_EQ(place(1, "K80"), std::nullopt);
  EXPECT_TRUE(calls.empty());
  occupy({0});
  EXPECT_EQ(place(4, "V100"), range(4, 7));
  // 2 T4 + 20 V100 free would cover 21 untyped, but only 19 V100s are free.
  EXPECT_EQ(place(20, "V100"), std::nullopt);
  EXPECT_EQ(place(21)->size(), 21u);
}

TEST_F(PlacementTest, NotEnoughGpus) {
  EXPECT_EQ(place(23), std::nullopt);
  EXPECT_TRUE(calls.empty());  // more than the cluster holds: no need to look
  occupy(range(0, 21));
  EXPECT_EQ(place(1), std::nullopt);
  EXPECT_THROW(place(0), std::invalid_argument);
}

TEST(ConsolidatedOnEmptyCluster, MatchesFreeCallbackVersion) {
  const Cluster cluster(spec());
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(cluster, 8, std::nullopt), range(14, 21));
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(cluster, 22, std::nullopt), range(0, 21));
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(cluster, 2, "T4"), (Gpus{8, 9}));
}

TEST(ConsolidatedOnEmptyCluster, PhillyPreset) {
  const Cluster philly(load_cluster_spec("philly-2017"));
  // Machines 0..320 are 2-GPU K80 boxes; machine 321 is the first 8-GPU one.
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 2, std::nullopt), range(0, 1));
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 8, std::nullopt), range(642, 649));
  // 16 GPUs: no single machine. Rack r0 (16 K80 machines) would need 8 of
  // them; rack r20 holds the job on two 8-GPU P40 machines, so it wins.
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 16, std::nullopt), range(642, 657));
  // Allowed-type sets: only K80 gives the 8 first K80 machines of rack r0.
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 16, philly.type_mask("K80")), range(0, 15));
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 1, GpuTypeMask{0}), std::nullopt);
  // 16 P40: rack r20 (1 K80 + 15 P40 machines), its two first P40 machines.
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 16, "P40"), range(642, 657));
  EXPECT_EQ(consolidated_gpus_on_empty_cluster(philly, 2491, std::nullopt), std::nullopt);
}

}  // namespace
}  // namespace vnsim
