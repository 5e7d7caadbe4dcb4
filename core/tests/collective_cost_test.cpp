// α-β prices of the collective schedules against hand-computed textbook
// formulas (Thakur, Rabenseifner & Gropp, IJHPCA 2005: ring all-reduce
// 2(n-1)·α + 2·(n-1)/n·S/B) on a small cluster (tests/clusters/sim-2x2x4.json):
// 2 racks x 2 nodes x 4 GPUs, GPU links 300 GB/s 0.5 µs, NICs 12.5 GB/s 1 µs, uplinks 1 µs.
#include <gtest/gtest.h>

#include <cmath>

#include "test_clusters.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

std::vector<GpuId> first(int n) {
  std::vector<GpuId> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

constexpr double kIntraAlpha = 1e-6, kIntraB = 300e9;  // two GPU links
constexpr double kCrossAlpha = 5e-6, kNicB = 12.5e9;   // GPU link, NIC, uplink, twice

TEST(CollectiveCost, RingAllReduceInsideANode) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  for (double s : {8.0, 1e6, 1e9})
    EXPECT_DOUBLE_EQ(collective_time(topo, CollectiveOp::AllReduce, CollectiveAlgo::Ring, first(4), s),
                     2 * 3 * (kIntraAlpha + s / 4 / kIntraB));
}

TEST(CollectiveCost, RingAcrossRacksRunsAtTheSlowestHop) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  const double s = 64e6;
  EXPECT_NEAR(collective_time(topo, CollectiveOp::AllReduce, CollectiveAlgo::Ring, first(16), s),
              2 * 15 * (kCrossAlpha + s / 16 / kNicB), 1e-12);
  EXPECT_NEAR(collective_time(topo, CollectiveOp::AllGather, CollectiveAlgo::Ring, first(16), s),
              15 * (kCrossAlpha + s / 16 / kNicB), 1e-12);
  EXPECT_NEAR(collective_time(topo, CollectiveOp::ReduceScatter, CollectiveAlgo::Ring, first(16), s),
              15 * (kCrossAlpha + s / 16 / kNicB), 1e-12);
}

TEST(CollectiveCost, BinomialTreeInsideANode) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  const double s = 1e6;  // 2 * log2(4) levels of (α + S/B)
  EXPECT_NEAR(collective_time(topo, CollectiveOp::AllReduce, CollectiveAlgo::Tree, first(4), s),
              2 * 2 * (kIntraAlpha + s / kIntraB), 1e-12);
}

TEST(CollectiveCost, HierarchicalSharesEachNicAmongItsRings) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  const double s = 64e6;  // g = 4 GPUs/node, N = 4 nodes; 4 rings share each NIC
  const double intra = 3 * (kIntraAlpha + s / 4 / kIntraB);
  const double inter = 2 * 3 * (kCrossAlpha + 4 * (s / 4 / 4) / kNicB);
  EXPECT_NEAR(collective_time(topo, CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, first(16), s),
              2 * intra + inter, 1e-12);
}

TEST(CollectiveCost, PipelinedBroadcastAndAllToAll) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  const double s = 8 * 1024.0 * 1024.0;  // 8 chunks of 1 MiB, 3 hops
  const double hop = kIntraAlpha + s / 8 / kIntraB;
  EXPECT_NEAR(collective_time(topo, CollectiveOp::Broadcast, CollectiveAlgo::Ring, first(4), s),
              (3 + 7) * hop, 1e-12);
  EXPECT_NEAR(collective_time(topo, CollectiveOp::Reduce, CollectiveAlgo::Ring, first(4), s), (3 + 7) * hop,
              1e-12);
  // All-to-all in one node: each GPU link carries 3 of its 4 blocks of S/4.
  EXPECT_NEAR(collective_time(topo, CollectiveOp::AllToAll, CollectiveAlgo::Ring, first(4), s),
              kIntraAlpha + 3 * s / 4 / kIntraB, 1e-12);
}

TEST(CollectiveCost, RingOrderGroupsByRackAndNode) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  EXPECT_EQ(topology_ring_order(c, {12, 0, 5, 9, 1, 4}), (std::vector<GpuId>{0, 1, 4, 5, 9, 12}));
  EXPECT_THROW(topology_ring_order(c, {1, 1}), InputError);
  EXPECT_THROW(topology_ring_order(c, {99}), InputError);
}

TEST(CollectiveCost, AutoPicksTreeForSmallMultiNodeAndRingForLarge) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  const Topology topo(c);
  EXPECT_EQ(choose_algorithm(topo, CollectiveOp::AllReduce, first(16), 8), CollectiveAlgo::Tree);
  EXPECT_EQ(choose_algorithm(topo, CollectiveOp::AllReduce, first(16), 1e9), CollectiveAlgo::Ring);
  EXPECT_EQ(choose_algorithm(topo, CollectiveOp::AllReduce, first(4), 8), CollectiveAlgo::Ring);
  EXPECT_EQ(choose_algorithm(topo, CollectiveOp::AllGather, first(16), 8), CollectiveAlgo::Ring);
}

TEST(CollectiveCost, BadRequestsAreInputErrors) {
  const Cluster c(testing::test_cluster("sim-2x2x4"));
  EXPECT_THROW(parse_collective_op("allreduse"), InputError);
  EXPECT_THROW(parse_collective_algo("nvls"), InputError);
  EXPECT_THROW(build_schedule(c, CollectiveOp::AllGather, CollectiveAlgo::Tree, first(4), 8), InputError);
  EXPECT_THROW(build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, first(6), 8),
               InputError);
  EXPECT_THROW(build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Ring, {}, 8), InputError);
  EXPECT_THROW(build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Ring, first(2), -1), InputError);
}

TEST(CollectiveCost, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::Broadcast, 8), 1.0);
}

}  // namespace
}  // namespace vnsim
