// On an idle network, a multi-node job simulated as a ring of actors must
// run at the analytic per-iteration time of core's perf model, whatever the
// number of macro-iterations.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// One 8-GPU job over 2 nodes of 4 GPUs; returns simulated / analytic
// per-iteration time.
double simulated_over_analytic(int macro_iterations, long long iterations) {
  Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const ModelParams& model = testing::most_communicating_model();
  const std::vector<JobSpec> jobs = {testing::make_job("ring8", 0.0, model, 8, iterations)};
  testing::ScriptedPolicy policy({{0, testing::gpu_range(0, 8)}});
  ReplayOptions opts = testing::actor_ring_options();
  opts.macro_iterations = macro_iterations;
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, opts);

  const JobRecord& rec = r.jobs.at(0);
  EXPECT_EQ(rec.state, FinalState::Completed) << rec.reason;
  EXPECT_EQ(rec.start_s, 0.0);
  const Topology topo(cluster);
  const IterationBreakdown analytic =
      iteration_time(topo, GpuCatalog::builtin(), model, spread_virtual_nodes(testing::gpu_range(0, 8), 8),
                     jobs[0].global_batch);
  EXPECT_GT(analytic.allreduce_s, 0);
  EXPECT_DOUBLE_EQ(r.simulated_end_s, rec.finish_s);
  return (rec.finish_s - rec.start_s) / static_cast<double>(iterations) / analytic.total_s;
}

TEST(RingAccuracy, OneMacroIterationMatchesAnalytic) {
  EXPECT_NEAR(simulated_over_analytic(1, 100), 1.0, 0.01);
}

TEST(RingAccuracy, TenMacroIterationsMatchAnalytic) {
  EXPECT_NEAR(simulated_over_analytic(10, 100), 1.0, 0.01);
}

TEST(RingAccuracy, UnevenLastMacroIterationMatchesAnalytic) {
  // 97 = 10 macro-iterations of 10 iterations, the last one of 7.
  EXPECT_NEAR(simulated_over_analytic(10, 97), 1.0, 0.01);
}

TEST(RingAccuracy, EveryIterationSimulatedMatchesAnalytic) {
  EXPECT_NEAR(simulated_over_analytic(0, 20), 1.0, 0.01);
}

}  // namespace
}  // namespace vnsim
