// Gandiva time-slicing: two jobs that each want the whole node take turns
// at every slice boundary.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/gandiva_policy.hpp"

namespace vnsim {
namespace {

struct World {
  World() : cluster(testing::test_cluster("v100-1x1x4")), topology(cluster), view(cluster, topology) {
    a.id = "a";
    a.gpus = 4;
    b.id = "b";
    b.gpus = 4;
  }
  // `runner` holds the node since `start`; the other job waits.
  SchedulerInput holding(double now, JobIndex runner, double start) {
    SchedulerInput in;
    in.now_s = now;
    in.view = &view;
    const JobSpec* specs[] = {&a, &b};
    in.running = {RunningJob{runner, specs[runner], Placement{{0, 1, 2, 3}, {1, 1, 1, 1}}, start, 0, -1}};
    in.queued = {QueuedJob{1 - runner, specs[1 - runner], 0, -1}};
    return in;
  }
  void hand_over(JobIndex from, JobIndex to) {
    view.release({0, 1, 2, 3}, from);
    view.allocate({0, 1, 2, 3}, to);
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
  JobSpec a, b;
};

// slice 60 s: a starts at 0 (b waits); an event at 30 s changes nothing
// (no preemption inside a slice); at 60 b gets the node, at 120 a again.
TEST(Gandiva, TwoJobsWantingTheSameGpusAlternateAtTheSliceLength) {
  World w;
  GandivaPolicy policy;  // slice_s = 60
  SchedulerInput in0;
  in0.view = &w.view;
  in0.queued = {QueuedJob{0, &w.a, 0, -1}, QueuedJob{1, &w.b, 0, -1}};
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  ASSERT_TRUE(policy.next_timer_s(0).has_value());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(0), 60);
  w.view.allocate({0, 1, 2, 3}, 0);

  EXPECT_TRUE(policy.decide(w.holding(30, 0, 0)).empty());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(30), 60);

  JobIndex runner = 0;
  for (double t : {60.0, 120.0, 180.0}) {
    const auto out = policy.decide(w.holding(t, runner, t - 60));
    ASSERT_EQ(out.size(), 2u) << "t = " << t;
    EXPECT_EQ(std::get<PreemptJob>(out[0]).job, runner) << "t = " << t;
    EXPECT_EQ(std::get<StartJob>(out[1]).job, 1 - runner) << "t = " << t;
    EXPECT_DOUBLE_EQ(*policy.next_timer_s(t), t + 60);
    w.hand_over(runner, 1 - runner);
    runner = 1 - runner;
  }
}

// Three 4-GPU jobs: the one suspended longest ago resumes first. a runs
// 0-60, b 60-120; at 120 c (never run, submitted 0) and a (suspended at 60)
// wait: c, waiting since 0, goes first.
TEST(Gandiva, TheJobWaitingLongestResumesFirst) {
  World w;
  JobSpec c;
  c.id = "c";
  c.gpus = 4;
  GandivaPolicy policy;
  SchedulerInput in0;
  in0.view = &w.view;
  in0.queued = {QueuedJob{0, &w.a, 0, -1}, QueuedJob{1, &w.b, 0, -1}, QueuedJob{2, &c, 0, -1}};
  ASSERT_EQ(std::get<StartJob>(policy.decide(in0).at(0)).job, 0u);
  w.view.allocate({0, 1, 2, 3}, 0);

  SchedulerInput in1 = w.holding(60, 0, 0);
  in1.queued.push_back(QueuedJob{2, &c, 0, -1});
  const auto out1 = policy.decide(in1);
  ASSERT_EQ(out1.size(), 2u);
  EXPECT_EQ(std::get<StartJob>(out1[1]).job, 1u) << "b and c both wait since 0: lower index";
  w.hand_over(0, 1);

  SchedulerInput in2 = w.holding(120, 1, 60);
  in2.queued.push_back(QueuedJob{2, &c, 0, -1});
  const auto out2 = policy.decide(in2);
  ASSERT_EQ(out2.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out2[0]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(out2[1]).job, 2u);
}

// The turn order is kept from call to call (gandiva_turns.cpp): checked
// against the rule itself over many slices of random arrivals and ends.
// Eight 1-GPU jobs on 4 GPUs: at each boundary the pass chooses the first
// four of (waiting, by when they last ran or else submission, then index;
// then the running ones), so the jobs started are exactly the waiting ones
// among the first four of that order, in that order.
TEST(Gandiva, TurnOrderFollowsTheRuleOverManySlices) {
  World w;
  std::vector<JobSpec> specs(40);
  for (std::size_t j = 0; j < specs.size(); ++j) {
    specs[j].id = "j" + std::to_string(j);
    specs[j].gpus = 1;
    specs[j].submit_s = static_cast<double>((j * 37) % 150) * 60;  // ties too
  }
  GandivaPolicy policy;
  std::mt19937 rng(7);
  std::map<JobIndex, std::pair<GpuId, double>> running;  // job -> GPU, start
  std::map<JobIndex, double> since;                      // waiting job -> its key
  std::set<JobIndex> done;
  std::optional<double> timer;
  int checked = 0;
  for (int slice = 0; slice < 400; ++slice) {
    const double now = 60.0 * slice;
    for (JobIndex j = 0; j < specs.size(); ++j)
      if (specs[j].submit_s <= now && !running.count(j) && !since.count(j) && !done.count(j))
        since[j] = specs[j].submit_s;
    if (!running.empty() && rng() % 4 == 0) {  // a running job ends
      auto it = std::next(running.begin(), static_cast<long>(rng() % running.size()));
      w.view.release({it->second.first}, it->first);
      done.insert(it->first);
      running.erase(it);
    }
    const bool boundary = timer && *timer <= now;
    SchedulerInput in;
    in.now_s = now;
    in.view = &w.view;
    for (const auto& [j, r] : running)
      in.running.push_back(RunningJob{j, &specs[j], Placement{{r.first}, {1}}, r.second, 0, -1});
    for (const auto& [j, key] : since) in.queued.push_back(QueuedJob{j, &specs[j], 0, -1});
    std::vector<std::pair<double, JobIndex>> order;
    for (const auto& [j, key] : since) order.emplace_back(key, j);
    std::sort(order.begin(), order.end());
    const std::size_t room = boundary ? 4 : 4 - running.size();
    std::vector<JobIndex> expected;
    for (std::size_t k = 0; k < order.size() && k < room; ++k) expected.push_back(order[k].second);
    std::vector<JobIndex> started;
    for (const Decision& d : policy.decide(in)) {
      if (const auto* p = std::get_if<PreemptJob>(&d)) {
        w.view.release({running.at(p->job).first}, p->job);
        running.erase(p->job);
        since[p->job] = now;
      } else {
        const StartJob& s = std::get<StartJob>(d);
        started.push_back(s.job);
        w.view.allocate(s.placement.gpus, s.job);
        running[s.job] = {s.placement.gpus.at(0), now};
        since.erase(s.job);
      }
    }
    ASSERT_EQ(started, expected) << "slice " << slice;
    checked += static_cast<int>(started.size());
    timer = policy.next_timer_s(now);
  }
  EXPECT_EQ(done.size(), specs.size()) << "every job ran to its end";
  EXPECT_GT(checked, 200);
}

TEST(Gandiva, NoTimerWhenNobodyWaits) {
  World w;
  GandivaPolicy policy;
  SchedulerInput in;
  in.view = &w.view;
  in.queued = {QueuedJob{0, &w.a, 0, -1}};
  ASSERT_EQ(policy.decide(in).size(), 1u);
  EXPECT_FALSE(policy.next_timer_s(0).has_value());
}

// slice_jobs = 2: five 4-GPU jobs on one 4-GPU node. Starting a leaves
// four waiting, so the first boundary is ceil(4 / 2) = 2 slices later, at
// 120; there a is swapped for b, four wait again (a, c, d, e), the next
// boundary is at 240, and an event at 150 does not move it. Without
// slice_jobs the boundaries are at 60 and 180.
TEST(Gandiva, SliceJobsLengthensTheSliceWithTheJobsLeftWaiting) {
  World w;
  std::vector<JobSpec> more(3, w.a);
  const auto waiting_with = [&](SchedulerInput in) {
    for (JobIndex j = 2; j < 5; ++j) in.queued.push_back(QueuedJob{j, &more[j - 2], 0, -1});
    return in;
  };
  for (const int slice_jobs : {0, 2}) {
    GandivaParams params;
    params.slice_jobs = slice_jobs;
    GandivaPolicy policy(params);
    SchedulerInput in0;
    in0.view = &w.view;
    in0.queued = {QueuedJob{0, &w.a, 0, -1}, QueuedJob{1, &w.b, 0, -1}};
    in0 = waiting_with(in0);
    ASSERT_EQ(std::get<StartJob>(policy.decide(in0).at(0)).job, 0u);
    w.view.allocate({0, 1, 2, 3}, 0);
    EXPECT_DOUBLE_EQ(*policy.next_timer_s(0), slice_jobs == 0 ? 60 : 120) << "five wait: ceil(4 / 2) slices";

    const auto out = policy.decide(waiting_with(w.holding(120, 0, 0)));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(std::get<StartJob>(out[1]).job, 1u);
    w.hand_over(0, 1);
    const double next = slice_jobs == 0 ? 180 : 240;
    EXPECT_DOUBLE_EQ(*policy.next_timer_s(120), next) << "slice_jobs " << slice_jobs;
    EXPECT_TRUE(policy.decide(waiting_with(w.holding(150, 1, 120))).empty());
    EXPECT_DOUBLE_EQ(*policy.next_timer_s(150), next) << "an event between boundaries keeps the boundary";
    w.view.release({0, 1, 2, 3}, 1);
  }
}

TEST(Gandiva, RejectsANonPositiveSlice) {
  GandivaParams params;
  params.slice_s = 0;
  EXPECT_THROW(GandivaPolicy{params}, InputError);
}

}  // namespace
}  // namespace vnsim
