// Offered load (docs/TRACES.md, "Offered load"): alone work over cluster
// GPUs x arrival span, by hand.
#include "vnsim/policies/offered_load.hpp"

#include <gtest/gtest.h>

#include "test_clusters.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/alone_estimate.hpp"

namespace vnsim {
namespace {

JobSpec job_at(const std::string& id, double submit_s, int gpus) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit_s;
  j.gpus = gpus;
  j.model = "imagenet";
  j.iterations = 1000;
  j.global_batch = 64 * gpus;
  return j;
}

TEST(OfferedLoad, WorkOverGpusTimesTheArrivalSpan) {
  // Submissions at 30, 10 and 110 s (any order): a span of 100 s.
  const std::vector<JobSpec> jobs = {job_at("a", 30, 1), job_at("b", 10, 2), job_at("c", 110, 1)};
  EXPECT_DOUBLE_EQ(offered_load(jobs, 8000.0, 16), 8000.0 / (16 * 100.0));
  // One job, or every job at one instant, has no span: no load.
  EXPECT_EQ(offered_load({jobs[0]}, 8000.0, 16), 0);
  EXPECT_EQ(offered_load({job_at("x", 5, 1), job_at("y", 5, 1)}, 8000.0, 16), 0);
  EXPECT_EQ(offered_load(jobs, 8000.0, 0), 0);
}

TEST(OfferedLoad, AloneWorkIsGpusTimesTheAloneRunTimeAndZeroForAJobThatCannotRun) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const auto& gpus = GpuCatalog::builtin();
  const auto& models = ModelCatalog::builtin();
  const JobSpec one = job_at("one", 0, 1);
  const JobSpec four = job_at("four", 0, 4);
  const JobSpec too_big = job_at("too-big", 0, 64);  // more GPUs than the cluster has
  const Topology topology(cluster);
  AloneEstimator alone(topology, gpus, models);
  const double t1 = alone.estimate_s(one, allowed_gpu_types(one, cluster, gpus, models));
  const double t4 = alone.estimate_s(four, allowed_gpu_types(four, cluster, gpus, models));
  ASSERT_GT(t1, 0);
  ASSERT_GT(t4, 0);
  EXPECT_DOUBLE_EQ(alone_gpu_seconds({one, four, too_big}, cluster, gpus, models), t1 + 4 * t4);
}

}  // namespace
}  // namespace vnsim
