// Calibration knobs of the cluster spec: NVLink count x per-link rate, and
// per-class link efficiency (achievable / line rate) on top of the
// cluster-wide link_efficiency, as the analytic topology sees them.
#include <gtest/gtest.h>

#include "cluster_spec_fixture.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

using testing::base_spec;

TEST(CalibrationKnobs, NvlinkCountTimesPerLinkRateIsTheGpuBandwidth) {
  auto j = base_spec();
  j["defaults"]["intra"] = {{"kind", "nvlink"}, {"links", 18}, {"link_bandwidth_gbps", 200}};
  const ClusterSpec s = parse_cluster_spec(j.dump(), "t.json");
  EXPECT_DOUBLE_EQ(s.racks[0].nodes[0].intra.bandwidth_Bps, 450e9);  // 18 x 25 GB/s
}

TEST(CalibrationKnobs, BadKnobsNameTheField) {
  auto both = base_spec();
  both["defaults"]["intra"]["links"] = 18;
  both["defaults"]["intra"]["link_bandwidth_gbps"] = 200;
  EXPECT_THROW(parse_cluster_spec(both.dump(), "t.json"), InputError);  // bandwidth_gbps too
  auto half = base_spec();
  half["defaults"]["intra"].erase("bandwidth_gbps");
  half["defaults"]["intra"]["links"] = 18;
  try {
    parse_cluster_spec(half.dump(), "t.json");
    ADD_FAILURE() << "accepted links without link_bandwidth_gbps";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("defaults.intra.link_bandwidth_gbps"), std::string::npos)
        << e.what();
  }
  auto over = base_spec();
  over["defaults"]["nic"]["efficiency"] = 1.2;
  try {
    parse_cluster_spec(over.dump(), "t.json");
    ADD_FAILURE() << "accepted efficiency 1.2";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("defaults.nic.efficiency"), std::string::npos) << e.what();
  }
}

TEST(CalibrationKnobs, ClassEfficienciesMultiplyTheClusterWideOne) {
  auto j = base_spec();
  j["link_efficiency"] = 0.5;
  j["defaults"]["intra"]["efficiency"] = 0.8;
  j["defaults"]["nic"]["efficiency"] = 0.9;
  const Cluster c(parse_cluster_spec(j.dump(), "t.json"));
  const Topology topo(c);
  // a0 GPUs 0 and 1: two NVLink hops of 800 Gb/s = 100 GB/s x 0.8 x 0.5.
  EXPECT_DOUBLE_EQ(topo.path(0, 1).bottleneck_Bps, 40e9);
  // a0 -> a1 crosses two 100 Gb/s NICs: 12.5 GB/s x 0.9 x 0.5.
  EXPECT_DOUBLE_EQ(topo.path(0, 4).bottleneck_Bps, 5.625e9);
  // The uplink is sized from NIC line rates: (12.5 + 12.5) GB/s x 0.5.
  EXPECT_DOUBLE_EQ(topo.rack_uplink_Bps(0), 12.5e9);
  // The collective pricing uses the same rates: one 1 GB send over the NICs.
  EXPECT_NEAR(p2p_time(topo, 0, 4, 1e9), topo.path(0, 4).latency_s + 1e9 / 5.625e9, 1e-12);
}

TEST(CalibrationKnobs, DgxH100PresetMatchesPublishedNcclBandwidths) {
  const Cluster c(load_cluster_spec("dgx-h100"));
  const Topology topo(c);
  // NVLink: 18 links x 20.6 GB/s = 370.8 GB/s (NCCL SM90_NVLINK_BW) = 0.824 of 450.
  EXPECT_NEAR(topo.path(0, 1).bottleneck_Bps, 370.8e9, 1e6);
  // 8 x 400G NDR at 47 GB/s each (46-48 published) = 0.94 of 400 GB/s.
  EXPECT_NEAR(topo.node_nic_Bps(0), 376e9, 1e6);
}

}  // namespace
}  // namespace vnsim
