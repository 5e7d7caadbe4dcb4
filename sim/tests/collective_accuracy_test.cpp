// Every collective alone on an idle SimGrid network against the α-β price of
// the same schedule (core/src/collective_cost.cpp), within 2%, and the ring
// against the textbook formula with hand-computed α and B. One engine per
// TEST (ctest runs each in its own process).
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/sim/collective_bench.hpp"

namespace vnsim {
namespace {

// 2 racks x 4 nodes x 8 GPUs = 64 GPUs, NVLink 300 GB/s, NIC 100 Gb/s.
const Cluster& cluster64() {
  static const Cluster c(testing::test_cluster("sim-2x4x8"));
  return c;
}

struct Case {
  CollectiveSchedule schedule;
  double analytic_s;
};

// 4 racks x 16 nodes x 8 GPUs = 512 GPUs, same links.
const Cluster& cluster512() {
  static const Cluster c(testing::test_cluster("sim-4x16x8"));
  return c;
}

void expect_sim_matches_analytic(CollectiveOp op, CollectiveAlgo algo, const std::vector<int>& gpu_counts,
                                 const std::vector<double>& sizes, const Cluster& c = cluster64()) {
  const Topology topo(c);
  std::vector<std::vector<CollectiveSchedule>> batches;
  std::vector<double> analytic;
  for (int n : gpu_counts)
    for (double bytes : sizes) {
      const auto ranks = topology_ring_order(c, testing::gpu_range(0, n));
      batches.push_back({build_schedule(c, op, algo, ranks, bytes)});
      analytic.push_back(schedule_time(topo, batches.back().front()));
    }
  const auto simulated = simulate_collective_batches(c, GpuCatalog::builtin(), batches);
  ASSERT_EQ(simulated.size(), batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const double sim = simulated[i].at(0);
    EXPECT_GT(sim, 0.0);
    EXPECT_NEAR(sim / analytic[i], 1.0, 0.02)
        << to_string(op) << "/" << to_string(algo) << " n=" << batches[i][0].ranks.size() << " case " << i
        << ": simulated " << sim << " s, analytic " << analytic[i] << " s";
  }
}

const std::vector<int> kCounts = {2, 4, 8, 16, 64};
const std::vector<double> kSizes = {8, 65536, 8e6, 256e6};

TEST(CollectiveAccuracy, RingAllReduce) {
  expect_sim_matches_analytic(CollectiveOp::AllReduce, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, TreeAllReduce) {
  expect_sim_matches_analytic(CollectiveOp::AllReduce, CollectiveAlgo::Tree, kCounts, kSizes);
}
TEST(CollectiveAccuracy, HierarchicalAllReduce) {
  expect_sim_matches_analytic(CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, kCounts, kSizes);
}
TEST(CollectiveAccuracy, AllGather) {
  expect_sim_matches_analytic(CollectiveOp::AllGather, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, ReduceScatter) {
  expect_sim_matches_analytic(CollectiveOp::ReduceScatter, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, Broadcast) {
  expect_sim_matches_analytic(CollectiveOp::Broadcast, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, Reduce) {
  expect_sim_matches_analytic(CollectiveOp::Reduce, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, AllToAll) {
  expect_sim_matches_analytic(CollectiveOp::AllToAll, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, PushPull) {
  expect_sim_matches_analytic(CollectiveOp::PushPull, CollectiveAlgo::Ring, kCounts, kSizes);
}
TEST(CollectiveAccuracy, SendRecv) {
  expect_sim_matches_analytic(CollectiveOp::SendRecv, CollectiveAlgo::Ring, kCounts, kSizes);
}

// Textbook ring (Thakur, Rabenseifner & Gropp, IJHPCA 2005): 2(n-1)(α + S/(nB)). In one
// node α = two GPU links of 0.5 µs and B = 300 GB/s; across the 2 racks the
// slowest hop crosses GPU link, NIC and uplink twice (α = 5 µs) at the
// 100 Gb/s NIC rate.
TEST(CollectiveAccuracy, RingAllReduceMatchesTextbookFormula) {
  const Cluster& c = cluster64();
  const double s = 64e6;
  auto ring = [&](int n) {
    return build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Ring, testing::gpu_range(0, n), s);
  };
  const auto simulated = simulate_collective_batches(c, GpuCatalog::builtin(), {{ring(8)}, {ring(64)}});
  const double in_node = 2 * 7 * (1e-6 + s / 8 / 300e9);
  const double cross_rack = 2 * 63 * (5e-6 + s / 64 / 12.5e9);
  EXPECT_NEAR(simulated[0][0] / in_node, 1.0, 0.02);
  EXPECT_NEAR(simulated[1][0] / cross_rack, 1.0, 0.02);
}

// Every other collective at 512 GPUs, one ctest entry each (each under 20 s):
// a size where latency, then one where bandwidth dominates.
const std::vector<double> k512Sizes = {65536, 256e6};
TEST(CollectiveAccuracy, TreeAllReduceAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::AllReduce, CollectiveAlgo::Tree, {512}, k512Sizes, cluster512());
}
TEST(CollectiveAccuracy, AllGatherAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::AllGather, CollectiveAlgo::Ring, {512}, k512Sizes, cluster512());
}
TEST(CollectiveAccuracy, ReduceScatterAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::ReduceScatter, CollectiveAlgo::Ring, {512}, k512Sizes,
                              cluster512());
}
TEST(CollectiveAccuracy, BroadcastAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::Broadcast, CollectiveAlgo::Ring, {512}, k512Sizes, cluster512());
}
TEST(CollectiveAccuracy, ReduceAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::Reduce, CollectiveAlgo::Ring, {512}, k512Sizes, cluster512());
}
// All-to-all is n(n-1) concurrent flows: 512 GPUs took 170 s (2-core dev
// machine), so its largest ctest size is 256 (about 14 s).
TEST(CollectiveAccuracy, AllToAllAt256Gpus) {
  expect_sim_matches_analytic(CollectiveOp::AllToAll, CollectiveAlgo::Ring, {256}, {256e6}, cluster512());
}
// The 512-GPU all-to-all, too slow for every CI run; run it by hand with
// --gtest_also_run_disabled_tests (docs/NETWORK.md gives its result).
TEST(CollectiveAccuracy, DISABLED_AllToAllAt512GpusForTheRecord) {
  expect_sim_matches_analytic(CollectiveOp::AllToAll, CollectiveAlgo::Ring, {512}, {256e6}, cluster512());
}
TEST(CollectiveAccuracy, PushPullAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::PushPull, CollectiveAlgo::Ring, {512}, k512Sizes, cluster512());
}
TEST(CollectiveAccuracy, SendRecvAt512Gpus) {
  expect_sim_matches_analytic(CollectiveOp::SendRecv, CollectiveAlgo::Ring, {512}, k512Sizes, cluster512());
}

// 512 GPUs (4 racks x 16 nodes x 8): ring and hierarchical all-reduce.
TEST(CollectiveAccuracy, AllReduceAt512Gpus) {
  const Cluster c(testing::test_cluster("sim-4x16x8"));
  const Topology topo(c);
  const auto ranks = testing::gpu_range(0, 512);
  std::vector<std::vector<CollectiveSchedule>> batches = {
      {build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Ring, ranks, 1e9)},
      {build_schedule(c, CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, ranks, 1e9)}};
  const auto simulated = simulate_collective_batches(c, GpuCatalog::builtin(), batches);
  for (std::size_t i = 0; i < batches.size(); ++i)
    EXPECT_NEAR(simulated[i][0] / schedule_time(topo, batches[i][0]), 1.0, 0.02) << i;
}

}  // namespace
}  // namespace vnsim
