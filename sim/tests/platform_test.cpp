// The SimGrid platform and core's Topology must describe the same network:
// same links (by name) and same latency on every kind of route.
#include "platform.hpp"

#include <gtest/gtest.h>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <string>
#include <vector>
#include <xbt/config.hpp>

#include "network_config.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

std::vector<std::string> simgrid_route(const sim::Platform& p, GpuId a, GpuId b, double* latency) {
  std::vector<simgrid::s4u::Link*> links;
  *latency = 0;
  p.gpu_hosts.at(a)->route_to(p.gpu_hosts.at(b), links, latency);
  std::vector<std::string> names;
  for (auto* l : links) {
    std::string n = l->get_name();
    // Split-duplex links are "<name>_UP" / "<name>_DOWN"; Topology names the pair.
    for (const std::string suffix : {"_UP", "_DOWN"})
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        n.resize(n.size() - suffix.size());
    names.push_back(n);
  }
  return names;
}

TEST(Platform, RoutesMatchCoreTopology) {
  Cluster cluster(testing::test_cluster("sim-2x2x4-os2"));
  sim::create_configured_engine();
  const Topology topo(cluster);
  const sim::Platform p = sim::build_platform(topo, GpuCatalog::builtin());
  ASSERT_EQ(static_cast<int>(p.gpu_hosts.size()), cluster.gpu_count());

  struct Case {
    GpuId a, b;
    Locality locality;
    std::size_t hops;
    double latency_s;  // sum of the route's link latencies: GPU link 0.5 us, NIC 1 us, uplink 1 us
  };
  const std::vector<Case> cases = {
      {0, 1, Locality::SameNode, 2, 1e-6},    // r0n0g0 -> r0n0g1
      {0, 4, Locality::SameRack, 4, 3e-6},    // r0n0g0 -> r0n1g0
      {0, 15, Locality::CrossRack, 6, 5e-6},  // r0n0g0 -> r1n1g3
      {13, 2, Locality::CrossRack, 6, 5e-6},  // r1n1g1 -> r0n0g2
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("GPU " + std::to_string(c.a) + " -> " + std::to_string(c.b));
    double latency = 0;
    const std::vector<std::string> sg_links = simgrid_route(p, c.a, c.b, &latency);
    const PathInfo path = topo.path(c.a, c.b);
    EXPECT_EQ(topo.locality(c.a, c.b), c.locality);
    EXPECT_EQ(sg_links, path.links);
    EXPECT_EQ(sg_links.size(), c.hops);
    EXPECT_NEAR(latency, path.latency_s, 1e-15);
    EXPECT_NEAR(latency, c.latency_s, 1e-15);
  }
  EXPECT_EQ(topo.gpu_name(15), "r1n1g3");
  EXPECT_EQ(p.gpu_hosts[15]->get_name(), "r1n1g3");
}

TEST(Platform, LinkBandwidthsMatchCoreTopology) {
  ClusterSpec spec = testing::test_cluster("sim-2x2x4-os2");
  spec.link_efficiency = 0.8;
  spec.racks[1].nodes[0].nic_count = 2;
  Cluster cluster(spec);
  simgrid::s4u::Engine& e = sim::create_configured_engine();
  const Topology topo(cluster);
  sim::build_platform(topo, GpuCatalog::builtin());
  for (const NodeInfo& n : cluster.nodes())
    EXPECT_DOUBLE_EQ(e.link_by_name(n.name + "-nic_UP")->get_bandwidth(), topo.node_nic_Bps(n.id)) << n.name;
  for (RackId r = 0; r < cluster.rack_count(); ++r)
    EXPECT_DOUBLE_EQ(e.link_by_name("r" + std::to_string(r) + "-uplink_DOWN")->get_bandwidth(),
                     topo.rack_uplink_Bps(r));
  // r1: (1 + 2) NICs of 12.5 GB/s, oversubscription 2, efficiency 0.8.
  EXPECT_DOUBLE_EQ(e.link_by_name("r1-uplink_UP")->get_bandwidth(), 3 * 12.5e9 / 2 * 0.8);
  EXPECT_DOUBLE_EQ(e.link_by_name("r0n0g0-nvl_UP")->get_bandwidth(), 300e9 * 0.8);
  EXPECT_DOUBLE_EQ(e.host_by_name("r0n0g0")->get_speed(),
                   GpuCatalog::builtin().at(GpuCatalog::builtin().reference()).peak_flops);
}

TEST(Platform, NetworkModelIsConfigured) {
  sim::create_configured_engine();
  EXPECT_EQ(simgrid::config::get_value<std::string>("network/model"), "CM02");
  EXPECT_FALSE(simgrid::config::get_value<bool>("network/crosstraffic"));
  EXPECT_DOUBLE_EQ(simgrid::config::get_value<double>("network/TCP-gamma"), 1e12);
  EXPECT_THROW(sim::create_configured_engine(), std::logic_error);
}

TEST(Platform, ClashingNamesAreAnInputError) {
  // Cluster checks rack/node names; the GPU host names it never sees: node
  // "r0n0" has a GPU host "r0n0g1", the same name as the next node.
  ClusterSpec spec = testing::test_cluster("sim-1x2x2");
  spec.racks[0].nodes[1].name = "r0n0g1";
  Cluster cluster(spec);
  sim::create_configured_engine();
  try {
    sim::build_platform(Topology(cluster), GpuCatalog::builtin());
    FAIL() << "clashing names were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'r0n0g1'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vnsim
