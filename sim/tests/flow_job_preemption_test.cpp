// Preempting a layout or parameter-server job that runs on SimGrid
// (sim/src/flow_job.hpp): its actors stop, it keeps the whole iterations it
// did and resumes with the rest. SRTF preempts the long job when a short one
// arrives at 2.5 T; with 200 iterations and M = 100 (k = 2) the long job has
// done one macro-iteration, 2 iterations. Timeline by hand from the analytic
// iteration time T, within 2% (the network is idle). One replay per test.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// 2 nodes x 8 GPUs; every job takes all 16.
const Cluster& cluster() {
  static const Cluster c(testing::test_cluster("sim-1x2x8"));
  return c;
}

void expect_resumed_timeline(std::vector<JobSpec> jobs, double t) {
  ASSERT_GT(t, 0);
  const double arrival = 2.5 * t;
  jobs[1].submit_s = arrival;
  SrtfPolicy policy;
  const ReplayResult r =
      run_replay(cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  const JobRecord& longer = r.jobs.at(0);
  const JobRecord& shorter = r.jobs.at(1);
  ASSERT_EQ(longer.state, FinalState::Completed) << longer.reason;
  ASSERT_EQ(shorter.state, FinalState::Completed) << shorter.reason;
  EXPECT_EQ(longer.restarts, 1);
  EXPECT_NEAR(shorter.start_s / arrival, 1.0, 1e-9);
  EXPECT_NEAR((shorter.finish_s - arrival) / (20 * t), 1.0, 0.02);
  EXPECT_NEAR((longer.finish_s - shorter.finish_s) / (198 * t), 1.0, 0.02);
}

TEST(FlowJobPreemption, LayoutJobResumesWithItsRemainingIterations) {
  JobSpec j;
  j.model = "gpt-1.3b";
  j.gpus = 16;
  j.tp = 2;
  j.pp = 4;
  j.global_batch = 16;
  JobSpec longer = j, shorter = j;
  longer.id = "long";
  longer.iterations = 200;
  shorter.id = "short";
  shorter.iterations = 20;
  const Topology topo(cluster());
  expect_resumed_timeline({longer, shorter},
                          layout_iteration_s(topo, GpuCatalog::builtin(), longer, testing::gpu_range(0, 16)));
}

TEST(FlowJobPreemption, ParameterServerJobResumesWithItsRemainingIterations) {
  const ModelParams& model = testing::most_communicating_model();
  JobSpec longer = testing::make_job("long", 0, model, 16, 200);
  longer.ps.servers = 1;
  longer.global_batch = 15 * model.min_local_batch;
  JobSpec shorter = longer;
  shorter.id = "short";
  shorter.iterations = 20;
  const Topology topo(cluster());
  expect_resumed_timeline({longer, shorter}, parameter_server_iteration_s(topo, GpuCatalog::builtin(), model,
                                                                          longer, testing::gpu_range(0, 16)));
}

}  // namespace
}  // namespace vnsim
