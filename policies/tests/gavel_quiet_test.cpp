// Gavel's rounds that keep every job where it is (policies/src/gavel_quiet.cpp):
// kept without ranking, deciding and solving as the full round, and never
// where a queued job or a second GPU type can change the round's answer.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "gavel_testing.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

using gavel_testing::cifar;
using gavel_testing::decide_changed;
using gavel_testing::Rig;

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
// the same calls, each applying its decisions to its own view.
class Twins {
 public:
  Twins(const std::string& cluster, std::vector<JobSpec> specs, GavelParams quiet = {})
      : specs_(std::move(specs)), quiet_(quiet), full_(ranking_every_round(quiet)) {
    worlds_.push_back(World{std::make_unique<Rig>(cluster), &quiet_, {}});
    worlds_.push_back(World{std::make_unique<Rig>(cluster), &full_, {}});
    for (World& w : worlds_) w.in = w.rig->at(0, {}, {});
  }
  GavelPolicy& quiet() { return quiet_; }
  GavelPolicy& full() { return full_; }
  // One call in both worlds: the same decisions (checked), applied to each view.
  std::vector<std::pair<int, JobIndex>> call(std::vector<JobIndex> changed) {
    std::vector<std::pair<int, JobIndex>> first;
    for (World& w : worlds_) {
      const std::vector<Decision> out = decide_changed(*w.policy, w.in, changed);
      if (&w == &worlds_[0])
        first = summary(out);
      else
        EXPECT_EQ(summary(out), first) << "t=" << w.in.now_s;
      for (const Decision& d : out)
        if (const auto* stop = std::get_if<PreemptJob>(&d)) requeue(w, stop->job);
      for (const Decision& d : out) {
        if (const auto* start = std::get_if<StartJob>(&d)) {
          w.rig->view.allocate(start->placement.gpus, start->job);
          std::erase_if(w.in.queued, [&](const QueuedJob& q) { return q.index == start->job; });
          w.in.running.push_back(
              RunningJob{start->job, &specs_[start->job], start->placement, w.in.now_s, 0, -1});
        }
      }
    }
    return first;
  }
  void at(double t) {
    for (World& w : worlds_) w.in.now_s = t;
  }
  void submit(JobIndex job) {
    for (World& w : worlds_) w.in.queued.push_back(QueuedJob{job, &specs_[job], 0, -1});
  }
  // The engine ends a running job, or queues it again (a node's loss).
  void end(JobIndex job) {
    for (World& w : worlds_) take_off(w, job);
  }
  void requeue(JobIndex job) {
    for (World& w : worlds_) requeue(w, job);
  }

 private:
  struct World {
    std::unique_ptr<Rig> rig;
    GavelPolicy* policy;
    SchedulerInput in;
  };
  static GavelParams ranking_every_round(GavelParams p) {
    p.skip_unchanged = false;
    return p;
  }
  static bool take_off(World& w, JobIndex job) {
    for (auto it = w.in.running.begin(); it != w.in.running.end(); ++it)
      if (it->index == job) {
        w.rig->view.release(it->placement.gpus, it->index);
        w.in.running.erase(it);
        return true;
      }
    ADD_FAILURE() << "job " << job << " is not running";
    return false;
  }
  void requeue(World& w, JobIndex job) {
    if (take_off(w, job)) w.in.queued.push_back(QueuedJob{job, &specs_[job], 0, -1});
  }
  std::vector<JobSpec> specs_;
  GavelPolicy quiet_, full_;
  std::vector<World> worlds_;
};

std::vector<JobSpec> cifars(int n) {
  std::vector<JobSpec> specs;
  for (int i = 0; i < n; ++i) specs.push_back(cifar("j" + std::to_string(i), 1));
  return specs;
}

// On four GPUs of one type: five 1-GPU jobs at t = 0: X = 4/5 each, job 4
// waits. Job 0 completes at t = 100 and job 4 takes its GPU: every active
// job runs, so the rounds at 360 s (a new job set, whose solve is put off)
// and 720 s keep everyone. At t = 800 the engine queues job 1 again (not a
// round's preemption): its X must be the put-off solve's (1: four jobs on
// four GPUs), not the first solve's 4/5, before a fill ranks it. A round at
// 1080 s with job 5 waiting then ranks every job, as the full rounds do.
TEST(GavelQuiet, AKeptRoundDecidesAndSolvesAsTheFullRound) {
  Twins twins("v100-1x1x4", cifars(6));
  GavelPolicy &quiet = twins.quiet(), &full = twins.full();
  for (JobIndex i = 0; i < 5; ++i) twins.submit(i);
  EXPECT_EQ(twins.call({0, 1, 2, 3, 4}).size(), 4u);
  EXPECT_TRUE(twins.call({0, 1, 2, 3}).empty());
  EXPECT_NEAR(quiet.allocation_of(0)[0], 0.8, 1e-7);

  twins.at(100);
  twins.end(0);
  EXPECT_EQ(twins.call({0}), (std::vector<std::pair<int, JobIndex>>{{0, 4}}));
  EXPECT_TRUE(twins.call({4}).empty());

  twins.at(360);
  EXPECT_TRUE(twins.call({}).empty());
  twins.at(720);
  EXPECT_TRUE(twins.call({}).empty());
  EXPECT_EQ(quiet.skipped_rounds(), 2u);
  EXPECT_EQ(full.skipped_rounds(), 0u);
  EXPECT_EQ(quiet.counter_settles(), full.counter_settles());

  twins.at(800);
  twins.requeue(1);
  EXPECT_EQ(twins.call({1}), (std::vector<std::pair<int, JobIndex>>{{0, 1}}));
  EXPECT_NEAR(full.allocation_of(1)[0], 1.0, 1e-7);
  EXPECT_EQ(quiet.allocation_of(1), full.allocation_of(1));
  EXPECT_TRUE(twins.call({1}).empty());

  twins.at(900);
  twins.submit(5);
  EXPECT_TRUE(twins.call({5}).empty());
  twins.at(1080);
  EXPECT_FALSE(twins.call({}).empty());
  EXPECT_EQ(quiet.skipped_rounds(), 2u);
  for (JobIndex j = 1; j < 6; ++j) EXPECT_EQ(quiet.allocation_of(j), full.allocation_of(j)) << j;
}

// The calls of a job set that changes between kept rounds on four GPUs of
// one type, on times with fractions (so that a replay out of order or with
// other operations rounds differently): jobs 0 and 1 start at t = 0, job 2
// arrives and starts at 100.3, job 3 at 250.6; the rounds at 360.1 (a new
// job set, its solve put off) and 720.3 keep everyone.
void start_staggered(Twins& twins) {
  twins.submit(0);
  twins.submit(1);
  ASSERT_EQ(twins.call({0, 1}).size(), 2u);
  EXPECT_TRUE(twins.call({0, 1}).empty());
  for (auto [job, t] : {std::pair<JobIndex, double>{2, 100.3}, {3, 250.6}}) {
    twins.at(t);
    twins.submit(job);
    EXPECT_EQ(twins.call({job}), (std::vector<std::pair<int, JobIndex>>{{0, job}}));
    EXPECT_TRUE(twins.call({job}).empty());
  }
  for (double t : {360.1, 720.3}) {
    twins.at(t);
    EXPECT_TRUE(twins.call({}).empty());
  }
}

void expect_same_counters(Twins& twins, double now, JobIndex jobs) {
  for (JobIndex j = 0; j < jobs; ++j)
    EXPECT_EQ(twins.quiet().time_counters_of(j), twins.full().time_counters_of(j))
        << "job " << j << " at " << now;
  EXPECT_EQ(twins.quiet().type_time_totals(now), twins.full().type_time_totals(now)) << now;
}

// Kept rounds leave each job's counters to its next use, a round ranked
// settles them (gavel_kept.cpp). reset_s = 1000. After start_staggered:
// job 0 ends at 800.9 and job 4 starts; the round at 1080.7 (a new job
// set) keeps everyone and resets the counters; job 1 ends at 1150.2 and
// job 5 starts; the round at 1441.1 keeps everyone; a 2-GPU job waits from
// 1500.3, so the round at 1801.3 ranks (and solves, without a reset). Every
// job's counters are then the full rounds' to the bit.
TEST(GavelQuiet, CountersLeftByKeptRoundsAreTheFullRoundsAfterARankedRound) {
  GavelParams params;
  params.reset_s = 1000;
  std::vector<JobSpec> specs = cifars(6);
  specs.push_back(cifar("wide", 2));
  Twins twins("v100-1x1x4", specs, params);
  start_staggered(twins);
  for (auto [ends, starts, t] : {std::tuple<JobIndex, JobIndex, double>{0, 4, 800.9}, {1, 5, 1150.2}}) {
    twins.at(t);
    twins.end(ends);
    twins.submit(starts);
    EXPECT_EQ(twins.call({ends, starts}), (std::vector<std::pair<int, JobIndex>>{{0, starts}}));
    EXPECT_TRUE(twins.call({starts}).empty());
    twins.at(t < 1000 ? 1080.7 : 1441.1);
    EXPECT_TRUE(twins.call({}).empty());
  }
  EXPECT_EQ(twins.quiet().skipped_rounds(), 4u);
  EXPECT_EQ(twins.quiet().time_counter_renewals(), twins.full().time_counter_renewals());
  twins.at(1500.3);
  twins.submit(6);
  EXPECT_TRUE(twins.call({6}).empty());
  twins.at(1801.3);
  twins.call({});
  EXPECT_EQ(twins.quiet().skipped_rounds(), 4u);
  EXPECT_EQ(twins.quiet().counter_settles(), twins.full().counter_settles());
  EXPECT_EQ(twins.quiet().time_counter_renewals(), twins.full().time_counter_renewals());
  expect_same_counters(twins, 1801.3, 7);
  // The ranked rounds forgot the kept rounds every running job replayed.
  EXPECT_EQ(twins.quiet().kept_rounds_held(), 0u);
}

// The totals a kept round leaves stale are summed again, as that round
// summed them, by a fill that ranks a job with an allocation
// (gavel_kept.cpp): after start_staggered and a round kept at 1080.5, the
// engine queues job 1 again at 1300.7, and the fill restarts it by its X
// (the put-off solve's) and the totals. Every job's counters and the totals
// are the full rounds' to the bit (on these times the totals summed in the
// order the jobs are tracked at the fill, 0, 3, 2, 1, are 1 ulp off).
TEST(GavelQuiet, TotalsLeftByKeptRoundsAreTheFullRoundsForARequeueFill) {
  GavelParams params;
  params.reset_s = 1e9;
  Twins twins("v100-1x1x4", cifars(4), params);
  start_staggered(twins);
  twins.at(1080.5);
  EXPECT_TRUE(twins.call({}).empty());
  EXPECT_EQ(twins.quiet().skipped_rounds(), 3u);
  twins.at(1300.7);
  twins.requeue(1);
  EXPECT_EQ(twins.call({1}), (std::vector<std::pair<int, JobIndex>>{{0, 1}}));
  EXPECT_EQ(twins.quiet().ranked_in_last_call(), 1u);
  expect_same_counters(twins, 1300.7, 4);
  // The fill's sums caught every running job up: the kept rounds are forgotten.
  EXPECT_EQ(twins.quiet().kept_rounds_held(), 0u);
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
