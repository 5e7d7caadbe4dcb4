// Stopping a ring job must leave nothing in flight, whatever each rank was
// doing: a rank that already sent to a slower neighbour has a send waiting in
// a mailbox, and when that neighbour is killed before asking for it, s4u
// still sees the send as started unless the engine cancels it. The ring can
// then never be released, and its actors' stacks stay mapped until a long
// elastic replay (Pollux on a day of Philly) runs out of memory mappings.
#include <gtest/gtest.h>

#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "completion_channel.hpp"
#include "network_config.hpp"
#include "platform.hpp"
#include "ring_job.hpp"
#include "sim_test_support.hpp"

namespace vnsim {
namespace {

TEST(RingStop, ARingStoppedWhileASendWaitsForASlowerRankIsReleased) {
  Cluster cluster(testing::test_cluster("sim-1x2x1"));
  simgrid::s4u::Engine& engine = sim::create_configured_engine();
  const Topology topology(cluster);
  const sim::Platform p = sim::build_platform(topology, GpuCatalog::builtin());
  bool released = false;
  bool released_before_stop = true;
  simgrid::s4u::Actor::create("driver", p.gpu_hosts.at(0), [&] {
    sim::RingJob job;
    job.ranks = {p.gpu_hosts.at(0), p.gpu_hosts.at(1)};
    const double speed = p.gpu_hosts.at(0)->get_speed();
    // Rank 0 computes for 1 s and rank 1 for 10 s, so from t = 1 s rank 0's
    // send waits for rank 1, which asks for it only at t = 10 s.
    job.flops_per_iteration = {1.0 * speed, 10.0 * speed};
    job.gradient_bytes = 1e6;
    job.iterations = 5;
    auto ring = sim::launch_ring_job(job, std::make_shared<sim::CompletionChannel>());
    simgrid::s4u::this_actor::sleep_until(5);
    released_before_stop = sim::release_ring_if_quiescent(*ring);
    sim::stop_ring_job(*ring);
    simgrid::s4u::this_actor::sleep_for(1);
    released = sim::release_ring_if_quiescent(*ring);
  });
  engine.run();
  EXPECT_FALSE(released_before_stop) << "the scenario should have a send in flight at t = 5 s";
  EXPECT_TRUE(released);
}

}  // namespace
}  // namespace vnsim
