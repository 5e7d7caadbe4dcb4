// Tiresias (2D-LAS) on one 4-GPU node, thresholds worked out by hand.
#include "vnsim/policies/tiresias_policy.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

struct Scenario {
  Scenario() : cluster(testing::test_cluster("v100-1x1x4")), topology(cluster), view(cluster, topology) {
    a.id = "a";
    a.gpus = 4;
    b.id = "b";
    b.gpus = 4;
    b.submit_s = 10;
  }
  // a runs on all 4 GPUs with `attained` GPU-s; b (attained 0) waits.
  SchedulerInput input(double now, double attained) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    in.running.push_back(RunningJob{0, &a, Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, 0, attained, -1});
    in.queued.push_back(QueuedJob{1, &b, 0, -1});
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
  JobSpec a, b;
};

TEST(Tiresias, DefaultThresholdsArePublishedOnes) {
  TiresiasPolicy p;
  EXPECT_EQ(p.queue_of(0), 0);
  EXPECT_EQ(p.queue_of(3249), 0);
  EXPECT_EQ(p.queue_of(3250), 1);
  EXPECT_EQ(p.queue_of(7199), 1);
  EXPECT_EQ(p.queue_of(7200), 2);
  EXPECT_EQ(p.queue_of(1e9), 2);
}

// a holds 4 GPUs from t = 0: it crosses 3250 GPU-s at 3250 / 4 = 812.5 s.
TEST(Tiresias, TimerWakesAtTheExactCrossingAndDemotionPreempts) {
  Scenario s;
  s.view.allocate({0, 1, 2, 3}, 0);
  TiresiasPolicy p;
  EXPECT_TRUE(p.decide(s.input(10, 40)).empty()) << "same queue: a arrived first";
  ASSERT_TRUE(p.next_timer_s(10).has_value());
  EXPECT_DOUBLE_EQ(*p.next_timer_s(10), 812.5);

  EXPECT_TRUE(p.decide(s.input(812.4, 3249.6)).empty()) << "not crossed yet";
  const auto out = p.decide(s.input(812.5, 3250));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 1u);
}

TEST(Tiresias, NoTimerWhenEveryRunningJobIsInTheLastQueue) {
  Scenario s;
  s.view.allocate({0, 1, 2, 3}, 0);
  TiresiasPolicy p;
  p.decide(s.input(5000, 20000));
  EXPECT_FALSE(p.next_timer_s(5000).has_value());
}

// Knob 1: b ran 100 s on 4 GPUs (400 GPU-s: queue 1 with threshold 300),
// was preempted at t = 200; it is promoted once it has waited 1 x 100 s.
TEST(Tiresias, StarvationPromotionAfterKnobTimesExecutedTime) {
  Scenario s;
  TiresiasParams params;
  params.thresholds_gpu_s = {300};
  params.promote_knob = 1;
  TiresiasPolicy p(params);
  SchedulerInput running;  // t = 150: b runs (a waits)
  running.now_s = 150;
  running.view = &s.view;
  s.view.allocate({0, 1, 2, 3}, 1);
  running.running.push_back(RunningJob{1, &s.b, Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, 100, 200, -1});
  running.queued.push_back(QueuedJob{0, &s.a, 5000, -1});
  p.decide(running);
  s.view.release({0, 1, 2, 3}, 1);

  // t = 200: b preempted (queue 1), a holds the node (also queue 1, earlier).
  s.view.allocate({0, 1, 2, 3}, 0);
  auto at = [&](double now) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &s.view;
    in.running.push_back(
        RunningJob{0, &s.a, Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, 200, 5000 + 4 * (now - 200), -1});
    in.queued.push_back(QueuedJob{1, &s.b, 400, -1});
    return in;
  };
  EXPECT_TRUE(p.decide(at(200)).empty());
  EXPECT_DOUBLE_EQ(*p.next_timer_s(200), 300);  // 200 + 1 x (400 / 4)
  EXPECT_TRUE(p.decide(at(299)).empty());
  const auto out = p.decide(at(300));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 1u);
}

// Threshold 10 GPU-s. c (4 GPUs, queue 0) waits ahead of a and b (2 GPUs
// each, demoted) that hold the node; d, e, f (1 GPU, queue 1) wait behind
// them. Order: c, a, b, d, e, f. c takes the 4 GPUs by count, so no queued
// job after it can be chosen: the pass walks c, then only the running a
// and b (the victims, b first), not d, e, f.
TEST(Tiresias, APassStopsWalkingTheQueueOnceNoQueuedJobCanBeChosen) {
  Scenario s;
  TiresiasParams params;
  params.thresholds_gpu_s = {10};
  TiresiasPolicy p(params);
  std::vector<JobSpec> specs(6);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].id = std::string(1, static_cast<char>('a' + i));
    specs[i].gpus = i < 2 ? 2 : i == 2 ? 4 : 1;
    specs[i].submit_s = i < 2 ? 0 : static_cast<double>(i) + 3;
  }
  s.view.allocate({0, 1}, 0);
  s.view.allocate({2, 3}, 1);
  SchedulerInput in;
  in.now_s = 20;
  in.view = &s.view;
  in.running.push_back(RunningJob{0, &specs[0], Placement{{0, 1}, {1, 1}}, 0, 40, -1});
  in.running.push_back(RunningJob{1, &specs[1], Placement{{2, 3}, {1, 1}}, 0, 40, -1});
  for (JobIndex j = 2; j < 6; ++j) in.queued.push_back(QueuedJob{j, &specs[j], j == 2 ? 0.0 : 40.0, -1});
  const auto out = p.decide(in);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, 1u);
  EXPECT_EQ(std::get<PreemptJob>(out[1]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out[2]).job, 2u);
  EXPECT_EQ(p.last_walk_length(), 3u);
}

TEST(Tiresias, RejectsBadThresholds) {
  TiresiasParams params;
  params.thresholds_gpu_s = {100, 50};
  EXPECT_THROW(TiresiasPolicy{params}, InputError);
  params.thresholds_gpu_s = {0};
  EXPECT_THROW(TiresiasPolicy{params}, InputError);
}

}  // namespace
}  // namespace vnsim
