#include "vnsim/real_exec/transport_probe.hpp"

#include <gtest/gtest.h>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim::real_exec {
namespace {

// A one-node testbed of `workers` on 2 GB/s links of 5 us each, as
// `vnexec calibrate` writes it.
ClusterSpec testbed(int workers) {
  TestbedLinks links;
  links.workers = workers;
  links.link_bandwidth_Bps = 2e9;
  links.link_latency_s = 5e-6;
  return parse_cluster_spec(testbed_cluster_spec_json(links, "T4", "test"), "testbed");
}

double simulated_ring_s(const ClusterSpec& spec, double bytes) {
  const Cluster cluster(spec);
  std::vector<GpuId> ring;
  for (GpuId g = 0; g < cluster.gpu_count(); ++g) ring.push_back(g);
  return ring_allreduce_time_s(Topology(cluster), ring, bytes);
}

TEST(TransportProbe, JsonRoundTripsEveryPoint) {
  TransportProbe p;
  p.workers = 2;
  p.repetitions = 8;
  p.start = {{"cifar10", 446800, 4.5e-5}, {"ncf", 64104, 1.1e-5}};
  p.end = {{"cifar10", 446800, 5.0e-5}, {"ncf", 64104, 1.0e-5}};
  const TransportProbe q = parse_transport_probe(transport_probe_json(p), "t.json");
  EXPECT_EQ(q.workers, 2);
  EXPECT_EQ(q.repetitions, 8);
  ASSERT_EQ(q.start.size(), 2u);
  ASSERT_EQ(q.end.size(), 2u);
  EXPECT_EQ(q.start[1].model, "ncf");
  EXPECT_DOUBLE_EQ(q.start[1].bytes, 64104);
  EXPECT_DOUBLE_EQ(q.end[0].seconds, 5.0e-5);
}

TEST(TransportProbe, BadFilesNameTheFileAndTheField) {
  const auto message = [](const std::string& text) {
    try {
      parse_transport_probe(text, "run/transport.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("[1]").find("run/transport.json: not a JSON object"), std::string::npos);
  EXPECT_NE(message(R"({"workers": 1})").find("'workers'"), std::string::npos);
  EXPECT_NE(message(R"({"workers": 2, "start": [{"model": "ncf", "bytes": 8}]})").find("start[0]"),
            std::string::npos);
  EXPECT_NE(message(R"({"workers": 2, "end": [{"model": "ncf", "bytes": 8, "step_allreduce_s": 0}]})")
                .find("end[0]: bytes and step_allreduce_s must be > 0"),
            std::string::npos);
}

TEST(TransportProbe, TestbedRingRoundTripsThroughTheSpec) {
  ClusterSpec spec = testbed(2);
  const RingFit before = testbed_ring(spec);
  EXPECT_NEAR(before.hop_latency_s, 1e-5, 1e-15);  // two links of 5 us
  EXPECT_NEAR(before.bandwidth_Bps, 2e9, 1e-3);
  spec.link_efficiency = 0.5;  // the achievable rate is what the ring sees
  set_testbed_ring(spec, RingFit{3e9, 4e-6, false});
  const RingFit after = testbed_ring(spec);
  EXPECT_NEAR(after.bandwidth_Bps, 3e9, 1e-3);
  EXPECT_NEAR(after.hop_latency_s, 4e-6, 1e-15);
  // And the simulator's ring prices it so: 2 (hop + (B/2) / bw).
  EXPECT_NEAR(simulated_ring_s(spec, 1e6), 2 * (4e-6 + 0.5e6 / 3e9), 1e-12);
}

TEST(TransportProbe, CalibratedLinksGiveTheRingTheySayTheSimulatorPricesIt) {
  // `vnexec calibrate` writes a hop of 4 us as links through
  // testbed_link_latency_s; the probe's ring and the simulator read it back.
  TestbedLinks links;
  links.workers = 2;
  links.link_bandwidth_Bps = 3e9;
  links.link_latency_s = testbed_link_latency_s(4e-6);
  const ClusterSpec spec = parse_cluster_spec(testbed_cluster_spec_json(links, "T4", "test"), "testbed");
  EXPECT_NEAR(testbed_ring(spec).hop_latency_s, 4e-6, 1e-15);
  EXPECT_NEAR(simulated_ring_s(spec, 1e6), 2 * (4e-6 + 0.5e6 / 3e9), 1e-12);
}

TEST(TransportProbe, TwoSizesGiveTheLineThroughThem) {
  // T = 20 us + 1e-10 s/B, exactly: the ring through it reproduces both.
  const auto t = [](double b) { return 2e-5 + 1e-10 * b; };
  ClusterSpec spec = testbed(2);
  const std::optional<RingFit> ring = probed_ring({{"ncf", 64e3, t(64e3)}, {"cifar10", 1e6, t(1e6)}}, spec);
  ASSERT_TRUE(ring);
  set_testbed_ring(spec, *ring);
  EXPECT_NEAR(simulated_ring_s(spec, 64e3), t(64e3), 1e-12);
  EXPECT_NEAR(simulated_ring_s(spec, 1e6), t(1e6), 1e-12);
}

TEST(TransportProbe, OneSizeScalesTheSpecsLineThroughIt) {
  ClusterSpec spec = testbed(2);
  const double bytes = 4e5, measured = 1.5 * simulated_ring_s(spec, bytes);
  const RingFit before = testbed_ring(spec);
  const std::optional<RingFit> ring = probed_ring({{"cifar10", bytes, measured}}, spec);
  ASSERT_TRUE(ring);
  EXPECT_NEAR(ring->hop_latency_s, 1.5 * before.hop_latency_s, 1e-15);
  EXPECT_NEAR(ring->bandwidth_Bps, before.bandwidth_Bps / 1.5, 1e-3);
  set_testbed_ring(spec, *ring);
  EXPECT_NEAR(simulated_ring_s(spec, bytes), measured, 1e-12);
}

TEST(TransportProbe, NoRingForAnEmptyProbeOrASpecOfSeveralNodes) {
  EXPECT_FALSE(probed_ring({}, testbed(2)));
  ClusterSpec two_nodes = testbed(2);
  two_nodes.racks[0].nodes.push_back(two_nodes.racks[0].nodes[0]);
  two_nodes.racks[0].nodes[1].name = "host1";
  EXPECT_FALSE(probed_ring({{"ncf", 64e3, 1e-5}}, two_nodes));
}

}  // namespace
}  // namespace vnsim::real_exec
