// Analytic perf model against hand-computed values on a small cluster:
// 1 rack, 2 nodes x 2 GPUs; node n0 has T4s, node n1 has a slower type.
#include "vnsim/core/perf_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vnsim {
namespace {

constexpr double kIntraBps = 10e9;  // per GPU <-> node switch
constexpr double kIntraLatency = 1e-6;
constexpr double kNicBps = 1.25e9;  // 10 Gb/s
constexpr double kNicLatency = 5e-6;

ClusterSpec two_node_spec() {
  ClusterSpec spec;
  spec.name = "perf-test";
  RackSpec rack;
  rack.name = "r0";
  for (const char* name : {"n0", "n1"}) {
    NodeSpec node;
    node.name = name;
    node.gpu_types = std::string(name) == "n0" ? std::vector<std::string>{"T4", "T4"}
                                               : std::vector<std::string>{"Slow", "Slow"};
    node.intra = {IntraLinkKind::PCIe, kIntraBps, kIntraLatency};
    node.nic_bandwidth_Bps = kNicBps;
    node.nic_latency_s = kNicLatency;
    rack.nodes.push_back(node);
  }
  spec.racks.push_back(rack);
  return spec;
}

GpuCatalog test_gpus() {
  return GpuCatalog::parse(R"({"reference": "T4", "types": {
      "T4": {"memory_gib": 16, "peak_tflops": 65, "relative_speed": 1},
      "Slow": {"memory_gib": 16, "peak_tflops": 10, "relative_speed": 0.5, "speed_by_model": {"m": 0.25}}}})",
                           "test-gpus");
}

ModelParams test_model(const std::string& name) {
  ModelParams m;
  m.name = name;
  m.alpha_compute_s = 0.1;
  m.beta_compute_s = 0.01;
  m.gradient_bytes = 100e6;
  return m;
}

class PerfModel : public ::testing::Test {
 protected:
  Cluster cluster{two_node_spec()};
  Topology topo{cluster};
  GpuCatalog gpus = test_gpus();
};

TEST(SpreadVirtualNodes, FirstGpusTakeTheRemainder) {
  EXPECT_EQ(spread_virtual_nodes({4, 7}, 5).vn_per_gpu, (std::vector<int>{3, 2}));
  EXPECT_EQ(spread_virtual_nodes({0, 1, 2}, 7).vn_per_gpu, (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(spread_virtual_nodes({0, 1, 2}, 3).vn_per_gpu, (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(spread_virtual_nodes({4, 7}, 5).gpus, (std::vector<GpuId>{4, 7}));
}

TEST(SpreadVirtualNodes, FewerVirtualNodesThanGpusIsRejected) {
  EXPECT_THROW(spread_virtual_nodes({0, 1, 2}, 2), std::invalid_argument);
  EXPECT_THROW(spread_virtual_nodes({}, 2), std::invalid_argument);
}

TEST_F(PerfModel, RingOfOneOrNoneCostsNothing) {
  EXPECT_EQ(ring_allreduce_time_s(topo, {}, 1e9), 0.0);
  EXPECT_EQ(ring_allreduce_time_s(topo, {2}, 1e9), 0.0);
}

TEST_F(PerfModel, IntraNodeRingMatchesTextbookFormula) {
  // Two GPUs of one node: alpha = two GPU-switch links, B = intra bandwidth.
  const double alpha = 2 * kIntraLatency;
  const double s = 100e6;
  const double expected = 2 * 1 * alpha + 2.0 * 1 / 2 * s / kIntraBps;
  EXPECT_DOUBLE_EQ(ring_allreduce_time_s(topo, {0, 1}, s), expected);
}

TEST_F(PerfModel, CrossNodeRingIsBoundByTheSlowestHop) {
  // Ring 0-1-2-3: hops 1->2 and 3->0 cross both NICs, so every step pays
  // alpha = 2 link + 2 NIC latencies and the NIC bandwidth.
  const double alpha = 2 * kIntraLatency + 2 * kNicLatency;
  const double s = 100e6;
  const int n = 4;
  const double expected = 2.0 * (n - 1) * alpha + 2.0 * (n - 1) / n * s / kNicBps;
  EXPECT_NEAR(ring_allreduce_time_s(topo, {0, 1, 2, 3}, s), expected, 1e-12);
  EXPECT_NEAR(expected, 0.120072, 1e-12);  // 6 x 12 us + 1.5 x 0.08 s
}

TEST_F(PerfModel, UnevenVirtualNodesMakeTheFirstGpuTheSlowest) {
  // V = 5 on two T4s: local batch 50 / 5 = 10, one micro-batch 0.1 + 0.01 x 10
  // = 0.2 s; GPU 0 runs 3 of them.
  const auto placement = spread_virtual_nodes({0, 1}, 5);
  const IterationBreakdown it = iteration_time(topo, gpus, test_model("m"), placement, 50);
  EXPECT_DOUBLE_EQ(it.compute_s, 3 * 0.2);
  EXPECT_DOUBLE_EQ(it.allreduce_s, ring_allreduce_time_s(topo, {0, 1}, 100e6));
  EXPECT_DOUBLE_EQ(it.total_s, it.compute_s + it.allreduce_s);
}

TEST_F(PerfModel, StepOverheadAndJitterAddToTheSlowestGpu) {
  // As above (GPU 0 runs 3 micro-batches of 0.2 s), plus 0.05 s of overhead
  // per step and a jitter of 0.1 s: two GPUs wait for the slower of two
  // normals, 0.1 x 0.5641896 (Tippett 1925) more.
  ModelParams m = test_model("m");
  m.step_overhead_s = 0.05;
  m.compute_jitter_s = 0.1;
  const auto placement = spread_virtual_nodes({0, 1}, 5);
  const IterationBreakdown it = iteration_time(topo, gpus, m, placement, 50);
  EXPECT_NEAR(it.compute_s, 3 * 0.2 + 0.05 + 0.1 * 0.5641896, 1e-7);
  // One GPU has nobody to wait for: the overhead only.
  const IterationBreakdown alone = iteration_time(topo, gpus, m, spread_virtual_nodes({0}, 5), 50);
  EXPECT_NEAR(alone.compute_s, 5 * 0.2 + 0.05, 1e-12);
  EXPECT_NEAR(m.step_extra_s(4), 0.05 + 0.1 * 1.0293754, 1e-7);
  EXPECT_NEAR(m.step_extra_s(10), 0.05 + 0.1 * 1.5387527, 1e-6);
  // The catalog default adds nothing.
  EXPECT_EQ(test_model("m").step_extra_s(8), 0);
}

TEST_F(PerfModel, SlowGpuUsesItsPerModelSpeed) {
  // T4 (GPU 0) and Slow (GPU 2), two virtual nodes each, local batch 40 / 4 =
  // 10, micro-batch 0.2 s on the T4. Slow runs model "m" at 0.25 (override)
  // and any other model at 0.5 (default).
  const auto placement = spread_virtual_nodes({0, 2}, 4);
  const IterationBreakdown with_override = iteration_time(topo, gpus, test_model("m"), placement, 40);
  EXPECT_DOUBLE_EQ(with_override.compute_s, 2 * 0.2 / 0.25);
  const IterationBreakdown with_default = iteration_time(topo, gpus, test_model("other"), placement, 40);
  EXPECT_DOUBLE_EQ(with_default.compute_s, 2 * 0.2 / 0.5);
  // Ring 0 -> 2 -> 0 crosses the NICs both ways.
  const double cross = 2 * (2 * kIntraLatency + 2 * kNicLatency + 50e6 / kNicBps);
  EXPECT_NEAR(with_default.allreduce_s, cross, 1e-12);
}

TEST_F(PerfModel, PNotDividingVTheSlowestGpuPacesNotTheBusiest) {
  // V = 3 on a T4 (GPU 0) and a Slow (GPU 2): the T4 runs 2 virtual nodes,
  // Slow 1. Local batch 30 / 3 = 10, micro-batch 0.2 s on the T4: T4 2 x 0.2
  // = 0.4 s, Slow 0.2 / 0.25 = 0.8 s, so Slow paces the iteration.
  const auto placement = spread_virtual_nodes({0, 2}, 3);
  EXPECT_EQ(placement.vn_per_gpu, (std::vector<int>{2, 1}));
  EXPECT_DOUBLE_EQ(iteration_time(topo, gpus, test_model("m"), placement, 30).compute_s, 0.8);
}

TEST_F(PerfModel, FractionalLocalBatchIsKept) {
  // Global batch 10 over V = 4: 2.5 samples per micro-batch.
  const auto placement = spread_virtual_nodes({0}, 4);
  EXPECT_DOUBLE_EQ(iteration_time(topo, gpus, test_model("m"), placement, 10).compute_s, 4 * (0.1 + 0.025));
}

TEST_F(PerfModel, BadPlacementsAreRejected) {
  EXPECT_THROW(iteration_time(topo, gpus, test_model("m"), Placement{{0, 1}, {1}}, 10),
               std::invalid_argument);
  EXPECT_THROW(iteration_time(topo, gpus, test_model("m"), Placement{{0}, {0}}, 10), std::invalid_argument);
  EXPECT_THROW(iteration_time(topo, gpus, test_model("m"), Placement{{0}, {1}}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace vnsim
