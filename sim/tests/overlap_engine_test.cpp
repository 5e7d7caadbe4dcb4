// The macro-iteration engine must respect a model's compute/communication
// overlap: on an idle network a multi-node ring job runs at the analytic
// (1-f)*C + max(f*C, A) per iteration, for any number of macro-iterations.
// One replay per test: one SimGrid engine per process.
#include <gtest/gtest.h>

#include <string>

#include "sim_test_support.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// Compute per iteration on the T4 reference: 0.05 + 0.0 * batch = 0.05 s.
// Ring over 2 nodes of 4 GPUs, 100 Gb/s NIC: 2*7/8 * 400 MB / 12.5 GB/s =
// 56 ms (+ latencies), so A > f*C for every f and overlap saves f*C.
ModelCatalog overlap_catalog(double overlap_fraction) {
  const std::string text = R"({"models": {"ovl": {"alpha_compute_s": 0.05, "beta_compute_s": 0,
      "gradient_bytes": 4e8, "weight_state_bytes": 0, "memory_per_sample_bytes": 0,
      "min_local_batch": 1, "max_local_batch": 8, "default_local_batch": 1, "initial_batch": 1,
      "max_global_batch": 64, "overlap_gamma": 1, "overlap_fraction": )" +
                           std::to_string(overlap_fraction) + "}}}";
  return ModelCatalog::parse(text, "overlap-test");
}

struct OverlapRun {
  double simulated_per_iteration_s;
  double analytic_per_iteration_s;
  double analytic_compute_s;
  double analytic_allreduce_s;
};

OverlapRun run(double overlap_fraction, int macro_iterations) {
  Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const ModelCatalog models = overlap_catalog(overlap_fraction);
  const ModelParams& model = models.at("ovl");
  const long long iterations = 40;
  const std::vector<JobSpec> jobs = {testing::make_job("ovl8", 0.0, model, 8, iterations)};
  testing::ScriptedPolicy policy({{0, testing::gpu_range(0, 8)}});
  ReplayOptions opts = testing::actor_ring_options();
  opts.macro_iterations = macro_iterations;
  const ReplayResult r = run_replay(cluster, GpuCatalog::builtin(), models, jobs, policy, opts);
  const JobRecord& rec = r.jobs.at(0);
  EXPECT_EQ(rec.state, FinalState::Completed) << rec.reason;
  const Topology topo(cluster);
  const IterationBreakdown it =
      iteration_time(topo, GpuCatalog::builtin(), model, spread_virtual_nodes(testing::gpu_range(0, 8), 8),
                     jobs[0].global_batch);
  return {(rec.finish_s - rec.start_s) / static_cast<double>(iterations), it.total_s, it.compute_s,
          it.allreduce_s};
}

TEST(OverlapEngine, HalfOverlapMatchesAnalyticWithMacroIterations) {
  const OverlapRun r = run(0.5, 10);
  EXPECT_NEAR(r.simulated_per_iteration_s / r.analytic_per_iteration_s, 1.0, 0.005);
}

TEST(OverlapEngine, FullOverlapMatchesAnalyticIterationByIteration) {
  const OverlapRun r = run(1.0, 0);
  EXPECT_NEAR(r.simulated_per_iteration_s / r.analytic_per_iteration_s, 1.0, 0.005);
}

TEST(OverlapEngine, FullOverlapHidesTheWholeCompute) {
  // A (56 ms) > C (50 ms), so with f = 1 an iteration lasts A, not C + A:
  // an engine ignoring the overlap would be 1.9x slower.
  const OverlapRun full = run(1.0, 10);
  ASSERT_GT(full.analytic_allreduce_s, full.analytic_compute_s);
  EXPECT_NEAR(full.simulated_per_iteration_s / full.analytic_allreduce_s, 1.0, 0.005);
}

}  // namespace
}  // namespace vnsim
