// The GPU energy meter, driven by hand. On SimGrid's host energy plugin it
// reads the counters of all the GPUs changed at an instant in one simcall
// and switches their pstates in another, whatever the number of GPUs (a
// round of a round-based policy changes hundreds at once), and the
// energies still split into busy and idle as the timeline says. Its own
// (analytic) counters give the plugin's energies bit for bit, without
// entering SimGrid's kernel.
#include "gpu_energy_meter.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "network_config.hpp"
#include "platform.hpp"
#include "sim_test_support.hpp"

namespace vnsim {
namespace {

simgrid::s4u::Engine& engine_with_the_plugin() {
  simgrid::s4u::Engine& engine = sim::create_configured_engine();
  sim::enable_gpu_energy_plugin();
  return engine;
}

// 1 node, 2 GPUs of one type, on an engine with the energy plugin.
struct TwoGpus {
  const Cluster cluster{testing::test_cluster("sim-1x1x2")};
  simgrid::s4u::Engine& engine = engine_with_the_plugin();
  const Topology topology{cluster};
  const sim::Platform platform = sim::build_platform(topology, GpuCatalog::builtin());
  const GpuType& gpu = GpuCatalog::builtin().at(cluster.gpu(0).type);
  const sim::GpuWatts watts{gpu.idle_watts, gpu.busy_watts};
};

// 1 node, 2 GPUs: both taken at 0; at 10 s GPU 0 changes hands (released
// and taken at the same instant) and GPU 1 is given back; the meter is
// read out at 15 s.
TEST(GpuEnergyMeter, ReadsAndSwitchesEveryGpuChangedAtAnInstantInOneSimcallEach) {
  const TwoGpus c;
  const sim::Platform& platform = c.platform;
  sim::GpuEnergyMeter meter(platform, {0, 0}, {c.watts}, sim::EnergyCounters::Plugin);
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
  c.engine.run();
  EXPECT_EQ(calls, (std::vector<std::size_t>{2, 4, 4, 5}));
  const GpuType& gpu = c.gpu;
  const double busy = gpu.busy_watts * (2 * 10 + 5);
  const double idle = gpu.idle_watts * 5;
  EXPECT_NEAR(meter.busy_j().at(0), busy, 1e-9 * busy);
  EXPECT_NEAR(meter.idle_j().at(0), idle, 1e-9 * idle);
}

// Both meters fed the same changes at clocks whose differences do not add
// up exactly in binary (0.1 s, 1/3 s, ...), with swaps, a GPU down and back
// and GPUs read again at a later instant: the analytic counters must sum
// the same pieces in the same order as the plugin's, so the energies are
// equal to the last bit, and only GPU 0's enter the kernel.
TEST(GpuEnergyMeter, AnalyticCountersGiveThePluginsEnergiesBitForBit) {
  const TwoGpus c;
  const sim::Platform& platform = c.platform;
  sim::GpuEnergyMeter plugin(platform, {0, 1}, {c.watts, c.watts}, sim::EnergyCounters::Plugin);
  // As in the replay: GPU 0's host runs the waiting actor, so its counter
  // stays the plugin's; GPU 1's is the meter's own.
  sim::GpuEnergyMeter analytic(platform, {0, 1}, {c.watts, c.watts}, sim::EnergyCounters::Analytic, {0});
  simgrid::s4u::Actor::create("controller", platform.gpu_hosts.at(0), [&] {
    const simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
    const simgrid::s4u::ConditionVariablePtr wake = simgrid::s4u::ConditionVariable::create();
    std::unique_lock<simgrid::s4u::Mutex> lock(*mutex);
    for (int step = 0; step < 200; ++step) {
      for (sim::GpuEnergyMeter* m : {&plugin, &analytic}) {
        switch (step % 5) {
          case 0:
            m->taken({0, 1});
            break;
          case 1:
            m->released({0});
            m->taken({0});  // a swap: read, not switched
            m->released({1});
            break;
          case 2:
            m->went_down({1});
            break;
          case 3:
            m->came_up({1});
            m->released({0});
            break;
          default:
            break;  // nothing changes: the next read spans two sleeps
        }
        m->instant_over();
      }
      // As the replay's controller waits for its next event.
      const double dt = step % 2 == 0 ? 0.1 : 1.0 / 3.0 + step * 1e-3;
      wake->wait_until(lock, simgrid::s4u::Engine::get_clock() + dt);
    }
    plugin.finish();
    analytic.finish();
  });
  c.engine.run();
  for (std::size_t type : {0, 1}) {
    EXPECT_GT(plugin.busy_j().at(type), 0);
    EXPECT_GT(plugin.idle_j().at(type), 0);
    EXPECT_EQ(analytic.busy_j().at(type), plugin.busy_j().at(type)) << type;
    EXPECT_EQ(analytic.idle_j().at(type), plugin.idle_j().at(type)) << type;
  }
  // Only GPU 0's reads and switches enter the kernel, each in its own simcall.
  EXPECT_LT(analytic.kernel_calls(), plugin.kernel_calls());
}

}  // namespace
}  // namespace vnsim
