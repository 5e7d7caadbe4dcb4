// Parameter-server jobs against hand computations on 4 single-GPU nodes
// (tests/clusters/pcie-t4-1x4x1.json):
// GPU link 10 GB/s 1 us, NIC 1.25 GB/s 5 us, so a node-to-node flow has
// 2*1 + 2*5 = 12 us of latency and a 1.25 GB/s bottleneck. Server: GPU 0;
// workers: GPUs 1-3; gradient G = 100 MB.
#include "vnsim/core/parameter_server.hpp"

#include <gtest/gtest.h>

#include "test_clusters.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

constexpr double kG = 100e6;

class ParameterServer : public ::testing::Test {
 protected:
  Cluster cluster{testing::test_cluster("pcie-t4-1x4x1")};
  Topology topo{cluster};
  PsJob job(std::vector<double> compute) { return PsJob{{0}, {1, 2, 3}, kG, std::move(compute)}; }
};

TEST_F(ParameterServer, PushPullLoadsTheServerNicWithEveryWorker) {
  // Push: the server's NIC receives 3G: 12 us + 3e8 / 1.25e9 = 0.240012 s;
  // pull is the mirror image: 0.480024 s in all.
  EXPECT_NEAR(collective_time(topo, CollectiveOp::PushPull, CollectiveAlgo::Ring, {0, 1, 2, 3}, kG), 0.480024,
              1e-9);
  // Two servers (GPUs 0 and 1) halve each server's load: workers 2, 3 send
  // G/2 to each: 12 us + 2 * 5e7 / 1.25e9 = 0.080012 s per phase.
  EXPECT_NEAR(schedule_time(topo, build_push_pull_schedule({0, 1}, {2, 3}, kG)), 0.160024, 1e-9);
  EXPECT_THROW(build_push_pull_schedule({}, {1}, kG), InputError);
}

TEST_F(ParameterServer, SynchronousStepWaitsForTheSlowestWorker) {
  EXPECT_NEAR(ps_sync_step_s(topo, job({0.1, 0.2, 0.3})), 0.3 + 0.480024, 1e-9);
}

TEST_F(ParameterServer, AsynchronousWorkersDoNotWaitForEachOther) {
  // Alone, a worker's push + pull takes 2 * (12 us + 0.08 s) = 0.160024 s.
  // Demand 1e8 * (1/0.260024 + 1/0.360024 + 1/0.460024) = 0.8797 GB/s fits
  // the server's 1.25 GB/s: lambda = 1.
  const PsAsyncRate r = ps_async_rate(topo, job({0.1, 0.2, 0.3}));
  EXPECT_DOUBLE_EQ(r.lambda, 1.0);
  EXPECT_NEAR(r.updates_per_s, 1 / 0.260024 + 1 / 0.360024 + 1 / 0.460024, 1e-9);
  // The synchronous job makes 1 / 0.780024 = 1.28 steps per second; the
  // asynchronous one applies 8.80 updates per second.
  EXPECT_GT(r.updates_per_s, 3.0 / ps_sync_step_s(topo, job({0.1, 0.2, 0.3})));
}

TEST_F(ParameterServer, AsynchronousWorkersShareTheServerNic) {
  // No compute: alone, 3 workers would need 3e8 / 0.160024 = 1.87 GB/s.
  // lambda = 3e8 / (1.25e9 * 0.160024) = 1.499775, and the server then
  // applies exactly its NIC's worth: 1.25e9 / 1e8 = 12.5 updates per second.
  const PsAsyncRate r = ps_async_rate(topo, job({0, 0, 0}));
  EXPECT_NEAR(r.lambda, 3e8 / (1.25e9 * 0.160024), 1e-9);
  EXPECT_NEAR(r.updates_per_s, 12.5, 1e-9);
}

TEST(Stragglers, SameSeedSameSlowdownsAndTheRequestedShare) {
  const StragglerSpec spec{0.1, 1.5, 3.0, 42};
  const auto a = draw_straggler_slowdowns(10000, spec);
  EXPECT_EQ(a, draw_straggler_slowdowns(10000, spec));
  int stragglers = 0;
  for (double f : a) {
    if (f == 1.0) continue;
    ++stragglers;
    EXPECT_GE(f, 1.5);
    EXPECT_LT(f, 3.0);
  }
  EXPECT_NEAR(stragglers / 10000.0, 0.1, 0.01);
  EXPECT_NE(a, draw_straggler_slowdowns(10000, StragglerSpec{0.1, 1.5, 3.0, 43}));
  // Worker w's factor does not depend on how many workers are drawn.
  const auto prefix = draw_straggler_slowdowns(10, spec);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), a.begin()));
  EXPECT_EQ(draw_straggler_slowdowns(3, StragglerSpec{1.0, 2.0, 2.0, 7}), (std::vector<double>{2, 2, 2}));
  EXPECT_THROW(draw_straggler_slowdowns(3, StragglerSpec{1.5, 1, 1, 0}), InputError);
  EXPECT_THROW(draw_straggler_slowdowns(3, StragglerSpec{0.5, 0.5, 1, 0}), InputError);
}

TEST_F(ParameterServer, OneStragglerSetsTheSynchronousStep) {
  // All workers compute 0.1 s; every worker is a straggler at exactly 3x:
  // step = 0.3 + 0.480024. With probability 0 the step is 0.1 + 0.480024.
  const auto slow = draw_straggler_slowdowns(3, StragglerSpec{1.0, 3.0, 3.0, 1});
  std::vector<double> compute;
  for (double f : slow) compute.push_back(0.1 * f);
  EXPECT_NEAR(ps_sync_step_s(topo, job(compute)), 0.3 + 0.480024, 1e-9);
  EXPECT_NEAR(ps_sync_step_s(topo, job({0.1, 0.1, 0.1})), 0.1 + 0.480024, 1e-9);
}

}  // namespace
}  // namespace vnsim
