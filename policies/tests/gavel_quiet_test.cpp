// Gavel's rounds that keep every job where it is (policies/src/gavel_quiet.cpp):
// kept without ranking, deciding and solving as the full round, and never
// where a queued job or a second GPU type can change the round's answer.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "gavel_testing.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

using gavel_testing::cifar;
using gavel_testing::decide_changed;
using gavel_testing::Rig;

GavelParams full_rounds() {
  GavelParams p;
  p.skip_unchanged = false;
  return p;
}

// Each decision as (kind, job) for comparing two policies' calls.
std::vector<std::pair<int, JobIndex>> summary(const std::vector<Decision>& out) {
  std::vector<std::pair<int, JobIndex>> s;
  for (const Decision& d : out) {
    if (const auto* start = std::get_if<StartJob>(&d)) s.emplace_back(0, start->job);
    if (const auto* stop = std::get_if<PreemptJob>(&d)) s.emplace_back(1, stop->job);
  }
  return s;
}

// Two policies, one keeping quiet rounds and one ranking every round, fed
// the same calls on four GPUs of one type. Five 1-GPU jobs at t = 0: X =
// 4/5 each, job 4 waits. Job 0 completes at t = 100 and job 4 takes its
// GPU: every active job runs, so the rounds at 360 s (a new job set, whose
// solve is put off) and 720 s keep everyone. At t = 800 the engine queues
// job 1 again (not a round's preemption): its X must be the put-off solve's
// (1: four jobs on four GPUs), not the first solve's 4/5, before a fill
// ranks it. A round at 1080 s with job 5 waiting then ranks every job, as
// the full rounds do.
TEST(GavelQuiet, AKeptRoundDecidesAndSolvesAsTheFullRound) {
  std::vector<JobSpec> specs;
  for (int i = 0; i < 6; ++i) specs.push_back(cifar("j" + std::to_string(i), 1));
  Rig quiet_rig("v100-1x1x4"), full_rig("v100-1x1x4");
  GavelPolicy quiet, full(full_rounds());
  struct World {
    Rig& rig;
    GavelPolicy& policy;
    SchedulerInput in;
  };
  World worlds[] = {{quiet_rig, quiet, quiet_rig.at(0, {}, {})}, {full_rig, full, full_rig.at(0, {}, {})}};
  // One call in both worlds: the same decisions, applied to each view.
  auto call = [&](std::vector<JobIndex> changed) {
    std::vector<std::pair<int, JobIndex>> first;
    for (World& w : worlds) {
      const std::vector<Decision> out = decide_changed(w.policy, w.in, changed);
      if (&w == &worlds[0])
        first = summary(out);
      else
        EXPECT_EQ(summary(out), first) << "t=" << w.in.now_s;
      for (const Decision& d : out) {
        if (const auto* stop = std::get_if<PreemptJob>(&d)) {
          for (auto it = w.in.running.begin(); it != w.in.running.end(); ++it)
            if (it->index == stop->job) {
              w.rig.view.release(it->placement.gpus, it->index);
              w.in.queued.push_back(QueuedJob{it->index, it->spec, 0, -1});
              w.in.running.erase(it);
              break;
            }
        }
      }
      for (const Decision& d : out) {
        if (const auto* start = std::get_if<StartJob>(&d)) {
          w.rig.view.allocate(start->placement.gpus, start->job);
          std::erase_if(w.in.queued, [&](const QueuedJob& q) { return q.index == start->job; });
          w.in.running.push_back(
              RunningJob{start->job, &specs[start->job], start->placement, w.in.now_s, 0, -1});
        }
      }
    }
    return first;
  };
  auto at = [&](double t) {
    for (World& w : worlds) w.in.now_s = t;
  };
  for (World& w : worlds)
    for (JobIndex i = 0; i < 5; ++i) w.in.queued.push_back(QueuedJob{i, &specs[i], 0, -1});
  EXPECT_EQ(call({0, 1, 2, 3, 4}).size(), 4u);
  EXPECT_TRUE(call({0, 1, 2, 3}).empty());
  EXPECT_NEAR(quiet.allocation_of(0)[0], 0.8, 1e-7);

  at(100);
  for (World& w : worlds) {
    w.rig.view.release(w.in.running[0].placement.gpus, 0);
    w.in.running.erase(w.in.running.begin());
  }
  EXPECT_EQ(call({0}), (std::vector<std::pair<int, JobIndex>>{{0, 4}}));
  EXPECT_TRUE(call({4}).empty());

  at(360);
  EXPECT_TRUE(call({}).empty());
  at(720);
  EXPECT_TRUE(call({}).empty());
  EXPECT_EQ(quiet.skipped_rounds(), 2u);
  EXPECT_EQ(full.skipped_rounds(), 0u);
  EXPECT_EQ(quiet.counter_settles(), full.counter_settles());

  at(800);
  for (World& w : worlds) {
    const RunningJob r = w.in.running[0];
    ASSERT_EQ(r.index, 1u);
    w.rig.view.release(r.placement.gpus, r.index);
    w.in.running.erase(w.in.running.begin());
    w.in.queued.push_back(QueuedJob{r.index, r.spec, 0, -1});
  }
  EXPECT_EQ(call({1}), (std::vector<std::pair<int, JobIndex>>{{0, 1}}));
  EXPECT_NEAR(full.allocation_of(1)[0], 1.0, 1e-7);
  EXPECT_EQ(quiet.allocation_of(1), full.allocation_of(1));
  EXPECT_TRUE(call({1}).empty());

  at(900);
  for (World& w : worlds) w.in.queued.push_back(QueuedJob{5, &specs[5], 0, -1});
  EXPECT_TRUE(call({5}).empty());
  at(1080);
  EXPECT_FALSE(call({}).empty());
  EXPECT_EQ(quiet.skipped_rounds(), 2u);
  for (JobIndex j = 1; j < 6; ++j) EXPECT_EQ(quiet.allocation_of(j), full.allocation_of(j)) << j;
}

// A round told of no change that must not be kept: job 0 runs on the one
// GPU, job 1 waits, and by t = 360 job 1's priority has overtaken job 0's
// (the hand numbers of RoundsAlternateTwoJobsOnOneGpuByPriority).
TEST(GavelQuiet, ARoundWithAJobQueuedIsRanked) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1);
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}});
  ASSERT_EQ(decide_changed(policy, in, {0, 1}).size(), 1u);
  rig.view.allocate({0}, 0);
  in.running = {RunningJob{0, &a, Placement{{0}, {1}}, 0, 0, -1}};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  EXPECT_TRUE(decide_changed(policy, in, {0}).empty());
  in.now_s = 360;
  const auto out = decide_changed(policy, in, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out[1]).job, 1u);
  EXPECT_EQ(policy.skipped_rounds(), 0u);
}

// With two GPU types a round with nothing queued may still move a job: job
// 0 was started on the K80 while the V100 was taken; once the V100 is free,
// the round moves it there (its X on the V100 is 1).
TEST(GavelQuiet, ARoundOnTwoTypesIsRanked) {
  Rig rig("pcie-v100-k80-1x2x1");
  const JobSpec a = cifar("a", 1);
  GavelPolicy policy;
  GpuId k80 = 0;
  while (rig.cluster.gpu(k80).type != "K80") ++k80;
  rig.view.allocate({k80}, 0);
  SchedulerInput in = rig.at(360, {RunningJob{0, &a, Placement{{k80}, {1}}, 0, 0, -1}}, {});
  const auto out = decide_changed(policy, in, {0});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<PreemptJob>(out[0]).job, 0u);
  EXPECT_EQ(policy.skipped_rounds(), 0u);
}

}  // namespace
}  // namespace vnsim
