// Topology paths on a small hand-computed cluster. Expected values:
//   ra (oversubscription 4, uplink 3 us): a0, a1, NVLink 100 GB/s 0.5 us, NIC 12.5 GB/s 2 us
//     -> ra-uplink = 2 * 12.5 / 4 = 6.25 GB/s
//   rb (oversubscription 2, uplink 3 us): b0 with 2 NICs (25 GB/s), b1 PCIe 8 GB/s 1.5 us
//     -> rb-uplink = (25 + 12.5) / 2 = 18.75 GB/s
//   spine latency 1 us, added to each uplink.
// GPU ids: a0 = {0, 1}, a1 = {2, 3}, b0 = {4, 5}, b1 = {6, 7}.
#include "vnsim/core/topology.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim {
namespace {

ClusterSpec spec(double efficiency) {
  return parse_cluster_spec(R"({
    "name": "topo", "link_efficiency": )" +
                                std::to_string(efficiency) +
                                R"(, "spine": {"latency_us": 1},
    "defaults": {"gpus": 2, "gpu_type": "V100",
                 "intra": {"kind": "nvlink", "bandwidth_gbps": 800, "latency_us": 0.5},
                 "nic": {"bandwidth_gbps": 100, "latency_us": 2}},
    "racks": [
      {"name": "ra", "oversubscription": 4, "uplink_latency_us": 3,
       "nodes": [{"name": "a0"}, {"name": "a1"}]},
      {"name": "rb", "oversubscription": 2, "uplink_latency_us": 3,
       "nodes": [{"name": "b0", "nic": {"count": 2}},
                 {"name": "b1", "intra": {"kind": "pcie", "bandwidth_gbps": 64, "latency_us": 1.5}}]}
    ]})",
                            "topo.json");
}

class TopologyTest : public ::testing::Test {
 protected:
  Cluster cluster{spec(1.0)};
  Topology topo{cluster};
};

// The links the SimGrid platform is built from (sim/src/platform.cpp), with
// the header's hand-computed capacities and latencies.
TEST_F(TopologyTest, LinksCarryNameCapacityAndLatency) {
  const TopologyLink pcie = topo.gpu_link(7);
  EXPECT_EQ(pcie.name, "b1g1-nvl");
  EXPECT_DOUBLE_EQ(pcie.bandwidth_Bps, 8e9);
  EXPECT_DOUBLE_EQ(pcie.latency_s, 1.5e-6);
  const TopologyLink nic = topo.nic_link(2);  // b0, two NICs
  EXPECT_EQ(nic.name, "b0-nic");
  EXPECT_DOUBLE_EQ(nic.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(nic.latency_s, 2e-6);
  const TopologyLink up = topo.rack_uplink(0);
  EXPECT_EQ(up.name, "ra-uplink");
  EXPECT_DOUBLE_EQ(up.bandwidth_Bps, 6.25e9);
  EXPECT_DOUBLE_EQ(up.latency_s, 4e-6);  // 3 us uplink + 1 us spine
  EXPECT_DOUBLE_EQ(topo.rack_uplink(1).bandwidth_Bps, 18.75e9);
  const TopologyLink& nvlink = topo.gpu_link(0);  // a0, NVLink
  EXPECT_EQ(nvlink.name, "a0g0-nvl");
  EXPECT_DOUBLE_EQ(nvlink.bandwidth_Bps, 100e9);
  EXPECT_DOUBLE_EQ(nvlink.latency_s, 0.5e-6);
}

// The points the links join, by the names the platform gives its hosts and
// routers.
TEST_F(TopologyTest, PointsAreNamedAsThePlatformsHostsAndRouters) {
  EXPECT_EQ(topo.gpu_name(0), "a0g0");
  EXPECT_EQ(topo.gpu_name(7), "b1g1");
  EXPECT_EQ(topo.nic_name(2), "b0-nic");
  EXPECT_EQ(topo.tor_name(1), "rb-tor");
}

TEST_F(TopologyTest, SameGpuIsFree) {
  const PathInfo p = topo.path(3, 3);
  EXPECT_EQ(p.hops, 0);
  EXPECT_TRUE(p.links.empty());
  EXPECT_TRUE(std::isinf(p.bottleneck_Bps));
  EXPECT_EQ(p.latency_s, 0.0);
  EXPECT_EQ(topo.locality(3, 3), Locality::SameGpu);
}

TEST_F(TopologyTest, SameNodeCrossesTwoGpuLinks) {
  const PathInfo p = topo.path(0, 1);
  EXPECT_EQ(p.links, (std::vector<std::string>{"a0g0-nvl", "a0g1-nvl"}));
  EXPECT_EQ(p.hops, 2);
  EXPECT_DOUBLE_EQ(p.bottleneck_Bps, 100e9);
  EXPECT_NEAR(p.latency_s, 1e-6, 1e-15);
  EXPECT_EQ(topo.locality(0, 1), Locality::SameNode);

  // PCIe node: the PCIe switch is the node centre, same shape.
  const PathInfo q = topo.path(7, 6);
  EXPECT_EQ(q.links, (std::vector<std::string>{"b1g1-nvl", "b1g0-nvl"}));
  EXPECT_DOUBLE_EQ(q.bottleneck_Bps, 8e9);
  EXPECT_NEAR(q.latency_s, 3e-6, 1e-15);
}

TEST_F(TopologyTest, SameRackCrossesBothNics) {
  const PathInfo p = topo.path(1, 2);
  EXPECT_EQ(p.links, (std::vector<std::string>{"a0g1-nvl", "a0-nic", "a1-nic", "a1g0-nvl"}));
  EXPECT_EQ(p.hops, 4);
  EXPECT_DOUBLE_EQ(p.bottleneck_Bps, 12.5e9);
  EXPECT_NEAR(p.latency_s, 5e-6, 1e-15);
  EXPECT_EQ(topo.locality(1, 2), Locality::SameRack);

  const PathInfo q = topo.path(4, 6);  // 2-NIC node to the PCIe node: PCIe is the bottleneck
  EXPECT_EQ(q.links, (std::vector<std::string>{"b0g0-nvl", "b0-nic", "b1-nic", "b1g0-nvl"}));
  EXPECT_DOUBLE_EQ(q.bottleneck_Bps, 8e9);
  EXPECT_NEAR(q.latency_s, 6e-6, 1e-15);
}

TEST_F(TopologyTest, CrossRackIsLimitedByTheOversubscribedUplink) {
  const PathInfo p = topo.path(1, 4);
  EXPECT_EQ(p.links,
            (std::vector<std::string>{"a0g1-nvl", "a0-nic", "ra-uplink", "rb-uplink", "b0-nic", "b0g0-nvl"}));
  EXPECT_EQ(p.hops, 6);
  EXPECT_DOUBLE_EQ(p.bottleneck_Bps, 6.25e9);
  // 0.5 + 2 + (3 + 1) + (3 + 1) + 2 + 0.5
  EXPECT_NEAR(p.latency_s, 13e-6, 1e-15);
  EXPECT_EQ(topo.locality(1, 4), Locality::CrossRack);

  // Reverse direction: B's links up, then A's links down.
  const PathInfo back = topo.path(7, 0);
  EXPECT_EQ(back.links,
            (std::vector<std::string>{"b1g1-nvl", "b1-nic", "rb-uplink", "ra-uplink", "a0-nic", "a0g0-nvl"}));
  EXPECT_NEAR(back.latency_s, 14e-6, 1e-15);  // 1.5 + 2 + 4 + 4 + 2 + 0.5
}

// path_cost is path's price without the names, bit for bit: the ring
// all-reduce time (perf_model) takes it and must not change.
TEST_F(TopologyTest, PathCostIsThePathsBottleneckAndLatencyExactly) {
  for (GpuId a = 0; a < 8; ++a)
    for (GpuId b = 0; b < 8; ++b) {
      const PathInfo p = topo.path(a, b);
      const PathCost c = topo.path_cost(a, b);
      EXPECT_EQ(c.bottleneck_Bps, p.bottleneck_Bps) << a << " -> " << b;
      EXPECT_EQ(c.latency_s, p.latency_s) << a << " -> " << b;
    }
  EXPECT_EQ(topo.path_cost(1, 4).latency_s, topo.path(1, 4).latency_s);
  EXPECT_TRUE(std::isinf(topo.path_cost(3, 3).bottleneck_Bps));
}

TEST_F(TopologyTest, NicAndUplinkBandwidths) {
  EXPECT_DOUBLE_EQ(topo.node_nic_Bps(0), 12.5e9);
  EXPECT_DOUBLE_EQ(topo.node_nic_Bps(2), 25e9);
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(0), 6.25e9);
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(1), 18.75e9);
}

TEST(Topology, LinkEfficiencyScalesEveryBandwidthButNoLatency) {
  const Cluster cluster(spec(0.5));
  const Topology topo(cluster);
  EXPECT_DOUBLE_EQ(topo.node_nic_Bps(2), 12.5e9);
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(1), 9.375e9);
  EXPECT_DOUBLE_EQ(topo.path(0, 1).bottleneck_Bps, 50e9);
  EXPECT_DOUBLE_EQ(topo.path(1, 4).bottleneck_Bps, 3.125e9);
  EXPECT_NEAR(topo.path(1, 4).latency_s, 13e-6, 1e-15);
}

// The testbed preset uses the reference latencies of vnsim's SimGrid
// platform (NVLink 0.5 us, NIC 1 us, uplink 1 us): an intra-node route
// crosses 2 GPU links (1 us), an intra-rack one adds 2 NICs (3 us), an
// inter-rack one adds 2 uplinks (5 us).
TEST(Topology, TestbedLatenciesMatchSimgridReference) {
  const Cluster cluster(load_cluster_spec("testbed"));
  const Topology topo(cluster);
  EXPECT_NEAR(topo.path(0, 1).latency_s, 1e-6, 1e-15);
  EXPECT_NEAR(topo.path(0, 4).latency_s, 3e-6, 1e-15);
  EXPECT_NEAR(topo.path(0, 15).latency_s, 5e-6, 1e-15);
  EXPECT_EQ(topo.path(0, 15).links.back(), "r1n1g3-nvl");
  // Two 100 Gbit/s NICs under oversubscription 2: the uplink equals one NIC.
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(0), 12.5e9);
}

TEST(Topology, PhillyCrossRackBottleneckIsTheNic) {
  const Cluster cluster(load_cluster_spec("philly-2017"));
  const Topology topo(cluster);
  // 16 machines x 12.5 GB/s / 2 = 100 GB/s uplink, above one 12.5 GB/s NIC.
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(0), 100e9);
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(34), 8 * 12.5e9 / 2);  // last rack holds 8 machines
  const GpuId last = cluster.gpu_count() - 1;
  const PathInfo p = topo.path(0, last);
  EXPECT_EQ(p.hops, 6);
  EXPECT_DOUBLE_EQ(p.bottleneck_Bps, 12.5e9);
  EXPECT_EQ(topo.locality(0, last), Locality::CrossRack);
}

}  // namespace
}  // namespace vnsim
