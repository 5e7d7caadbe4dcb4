// SJF and SRTF on a 1-rack x 2-node x 4-GPU cluster (tests/clusters/v100-1x2x4.json;
// GPUs 0..7, node n holds 4n..4n+3), with durations chosen by hand.
#include <gtest/gtest.h>

#include <memory>
#include <variant>

#include "test_clusters.hpp"
#include "vnsim/policies/sjf_policy.hpp"

namespace vnsim {
namespace {

struct Scenario {
  Scenario() : cluster(testing::test_cluster("v100-1x2x4")), topology(cluster), view(cluster, topology) {
    specs.reserve(16);
  }
  JobIndex add(int gpus, double submit_s) {
    JobSpec s;
    s.id = "j" + std::to_string(specs.size());
    s.gpus = gpus;
    s.submit_s = submit_s;
    specs.push_back(s);
    return specs.size() - 1;
  }
  void queue(JobIndex j, double estimate_s, double attained = 0) {
    in.queued.push_back(QueuedJob{j, &specs[j], attained, estimate_s});
  }
  void run(JobIndex j, std::vector<GpuId> gpus, double attained, double remaining_s) {
    view.allocate(gpus, j);
    in.running.push_back(RunningJob{j, &specs[j], Placement{gpus, std::vector<int>(gpus.size(), 1)}, 0,
                                    attained, remaining_s});
  }
  SchedulerInput& input() {
    in.view = &view;
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<JobSpec> specs;
  SchedulerInput in;
};

JobIndex started(const Decision& d) {
  return std::get<StartJob>(d).job;
}

TEST(Sjf, StartsShortestFirstAndSkipsJobsThatDoNotFit) {
  Scenario s;
  const JobIndex a = s.add(4, 0), b = s.add(8, 1), c = s.add(2, 2), d = s.add(4, 3);
  s.queue(a, 300);
  s.queue(b, 50);
  s.queue(c, 10);
  s.queue(d, 200);
  SjfPolicy policy;
  // Order c (10), b (50), d (200), a (300). c takes 2 of 8 GPUs; b needs 8:
  // skipped; d fits in the 6 left; a (4) does not fit in the last 2.
  const auto out = policy.decide(s.input());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(started(out[0]), c);
  EXPECT_EQ(started(out[1]), d);
  EXPECT_EQ(std::get<StartJob>(out[0]).placement.gpus, (std::vector<GpuId>{0, 1}));
  EXPECT_EQ(std::get<StartJob>(out[1]).placement.gpus, (std::vector<GpuId>{4, 5, 6, 7}));
}

TEST(Sjf, UnknownDurationsGoLastInSubmissionOrder) {
  Scenario s;
  const JobIndex a = s.add(8, 0), b = s.add(8, 1);
  s.queue(a, -1);
  s.queue(b, 1000);
  SjfPolicy policy;
  const auto out = policy.decide(s.input());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(started(out[0]), b);
}

TEST(Sjf, NeverPreemptsARunningJob) {
  Scenario s;
  const JobIndex a = s.add(8, 0), b = s.add(8, 1);
  s.run(a, {0, 1, 2, 3, 4, 5, 6, 7}, 8000, 5000);
  s.queue(b, 1);
  SjfPolicy policy;
  EXPECT_TRUE(policy.decide(s.input()).empty());
}

TEST(Srtf, PreemptsTheLongerRunningJobForAShorterOne) {
  Scenario s;
  const JobIndex a = s.add(8, 0), b = s.add(8, 1);
  // a ran 100 s on 8 GPUs with 500 s left (first seen here: total 600 s).
  s.run(a, {0, 1, 2, 3, 4, 5, 6, 7}, 800, 500);
  s.queue(b, 499);
  SrtfPolicy policy;
  const auto out = policy.decide(s.input());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, a);
  EXPECT_EQ(started(out[1]), b);
  EXPECT_EQ(std::get<StartJob>(out[1]).placement.gpus.size(), 8u);
}

TEST(Srtf, KeepsTheRunningJobWhenItIsShorter) {
  Scenario s;
  const JobIndex a = s.add(8, 0), b = s.add(8, 1);
  s.run(a, {0, 1, 2, 3, 4, 5, 6, 7}, 800, 500);
  s.queue(b, 501);
  SrtfPolicy policy;
  EXPECT_TRUE(policy.decide(s.input()).empty());
}

TEST(Srtf, PreemptsOnlyWhatTheShorterJobNeeds) {
  Scenario s;
  const JobIndex a = s.add(4, 0), b = s.add(4, 0), c = s.add(4, 1);
  s.run(a, {0, 1, 2, 3}, 0, 900);  // longest: the only victim
  s.run(b, {4, 5, 6, 7}, 0, 800);
  s.queue(c, 100);
  SrtfPolicy policy;
  const auto out = policy.decide(s.input());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, a);
  EXPECT_EQ(started(out[1]), c);
  EXPECT_EQ(std::get<StartJob>(out[1]).placement.gpus, (std::vector<GpuId>{0, 1, 2, 3}));
}

TEST(Srtf, RemainingTimeComesFromTheFirstEstimateAndExecutedTime) {
  Scenario s;
  const JobIndex a = s.add(8, 0), b = s.add(8, 1);
  SrtfPolicy policy;
  {  // first sight of a: 1000 s total
    Scenario first;
    first.add(8, 0);
    first.queue(0, 1000);
    ASSERT_EQ(policy.decide(first.input()).size(), 1u);
  }
  // Later a has executed 700 s (5600 GPU-s on 8 GPUs): 300 s left, whatever
  // the engine now estimates for it; b (310 s) must not preempt it.
  s.run(a, {0, 1, 2, 3, 4, 5, 6, 7}, 5600, 999);
  s.queue(b, 310);
  EXPECT_TRUE(policy.decide(s.input()).empty());
}

}  // namespace
}  // namespace vnsim
