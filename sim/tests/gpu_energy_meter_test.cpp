// The GPU energy meter on SimGrid's host energy plugin, driven by hand: it
// reads the counters of all the GPUs changed at an instant in one simcall
// and switches their pstates in another, whatever the number of GPUs (a
// round of a round-based policy changes hundreds at once), and the
// energies still split into busy and idle as the timeline says.
#include "gpu_energy_meter.hpp"

#include <gtest/gtest.h>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "network_config.hpp"
#include "platform.hpp"
#include "sim_test_support.hpp"

namespace vnsim {
namespace {

// 1 node, 2 GPUs: both taken at 0; at 10 s GPU 0 changes hands (released
// and taken at the same instant) and GPU 1 is given back; the meter is
// read out at 15 s.
TEST(GpuEnergyMeter, ReadsAndSwitchesEveryGpuChangedAtAnInstantInOneSimcallEach) {
  const Cluster cluster(testing::test_cluster("sim-1x1x2"));
  simgrid::s4u::Engine& engine = sim::create_configured_engine();
  sim::enable_gpu_energy_plugin();
  const Topology topology(cluster);
  const sim::Platform platform = sim::build_platform(topology, GpuCatalog::builtin());
  sim::GpuEnergyMeter meter(platform, {0, 0}, 1);
  std::vector<std::size_t> calls;
  simgrid::s4u::Actor::create("controller", platform.gpu_hosts.at(0), [&] {
    meter.taken({0, 1});
    meter.instant_over();
    calls.push_back(meter.kernel_calls());  // one read, one switch
    simgrid::s4u::this_actor::sleep_for(10);
    meter.released({0});
    meter.taken({0});
    meter.released({1});
    meter.instant_over();
    calls.push_back(meter.kernel_calls());  // one read of both; GPU 1 switched, GPU 0 not
    meter.instant_over();
    calls.push_back(meter.kernel_calls());  // nothing changed since
    simgrid::s4u::this_actor::sleep_for(5);
    meter.finish();
    calls.push_back(meter.kernel_calls());
  });
  engine.run();
  EXPECT_EQ(calls, (std::vector<std::size_t>{2, 4, 4, 5}));
  const GpuType& gpu = GpuCatalog::builtin().at(cluster.gpu(0).type);
  const double busy = gpu.busy_watts * (2 * 10 + 5);
  const double idle = gpu.idle_watts * 5;
  EXPECT_NEAR(meter.busy_j().at(0), busy, 1e-9 * busy);
  EXPECT_NEAR(meter.idle_j().at(0), idle, 1e-9 * idle);
}

}  // namespace
}  // namespace vnsim
