// Gavel: the allocation LPs on examples solved by hand, and the round
// mechanism on one GPU shared by two jobs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "gavel_testing.hpp"
#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/gavel_lp.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

using gavel_testing::cifar;
using gavel_testing::decide_changed;
using gavel_testing::Rig;

double thr(const GavelProblem& p, const GavelAllocation& a, std::size_t m) {
  double out = 0;
  for (std::size_t j = 0; j < p.type_gpus.size(); ++j) out += p.throughput[m][j] * a.x[m][j];
  return out;
}

// Types A and B, one GPU each; three 1-GPU jobs with T = [[2,1],[2,1],[1,1]].
// Equal share: x_eq = 1/3 per type (row sum 2/3 <= 1, no rescale), so
// T_eq = (1, 1, 2/3) and the normalised throughputs are 2a0+b0, 2a1+b1 and
// 1.5(a2+b2). Job 2 is indifferent to the type, so it takes B; jobs 0 and 1
// share A and the rest of B: with b2 = y, 1 + (1-y)/2 = 1.5y gives y = 3/4
// and t = 9/8. Upper bound (dual): 3/8 (norm0 + norm1) + 1/4 norm2 puts at
// most 3/4 on A and 3/8 on B, so t <= 9/8: the split is optimal.
GavelProblem three_jobs_two_types() {
  GavelProblem p;
  p.throughput = {{2, 1}, {2, 1}, {1, 1}};
  p.scale = {1, 1, 1};
  p.type_gpus = {1, 1};
  return p;
}

TEST(GavelLp, EqualShareThroughputOfTheHandExample) {
  const std::vector<double> eq = gavel_equal_share_throughput(three_jobs_two_types());
  ASSERT_EQ(eq.size(), 3u);
  EXPECT_NEAR(eq[0], 1.0, 1e-12);
  EXPECT_NEAR(eq[1], 1.0, 1e-12);
  EXPECT_NEAR(eq[2], 2.0 / 3.0, 1e-12);
}

TEST(GavelLp, MaxMinFairnessGivesTheHandSplitOnTwoTypesAndThreeJobs) {
  const GavelProblem p = three_jobs_two_types();
  const GavelAllocation a = gavel_max_min_fairness(p);
  EXPECT_NEAR(a.value, 9.0 / 8.0, 1e-7);
  // Job 2 only on B, 3/4 of the time; A entirely to jobs 0 and 1.
  EXPECT_NEAR(a.x[2][0], 0.0, 1e-7);
  EXPECT_NEAR(a.x[2][1], 0.75, 1e-7);
  EXPECT_NEAR(a.x[0][0] + a.x[1][0], 1.0, 1e-7);
  EXPECT_NEAR(a.x[0][1] + a.x[1][1], 0.25, 1e-7);
  // Jobs 0 and 1 are identical: they share one LP row, so the same split.
  EXPECT_NEAR(a.x[0][0], 0.5, 1e-7);
  EXPECT_NEAR(a.x[1][1], 0.125, 1e-7);
  // Every job reaches the same normalised throughput 9/8.
  EXPECT_NEAR(thr(p, a, 0), 9.0 / 8.0, 1e-7);
  EXPECT_NEAR(thr(p, a, 1), 9.0 / 8.0, 1e-7);
  EXPECT_NEAR(thr(p, a, 2) * 1.5, 9.0 / 8.0, 1e-7);
}

// Types A and B, one GPU each. Job 0 runs only on A (T = (1, 0)), job 1
// anywhere (T = (4, 4)). Equal share x_eq = (1/2, 1/2): T_eq = (0.5, 4), so
// the normalised throughputs are 2 a0 and a1 + b1 <= 1: the minimum is
// t* = 1 (job 1 on B all the time), and job 0 reaches it with any a0 in
// [1/2, 1]. The second stage takes the most total throughput: a0 = 1.
TEST(GavelLp, MaxMinFairnessGivesSpareCapacityAwayInsteadOfSplittingArbitrarily) {
  GavelProblem p;
  p.throughput = {{1, 0}, {4, 4}};
  p.scale = {1, 1};
  p.type_gpus = {1, 1};
  const GavelAllocation a = gavel_max_min_fairness(p);
  EXPECT_NEAR(a.value, 1.0, 1e-7);
  EXPECT_NEAR(a.x[0][0], 1.0, 1e-6);
  EXPECT_NEAR(a.x[1][0], 0.0, 1e-6);
  EXPECT_NEAR(a.x[1][1], 1.0, 1e-6);
}

// A 2-GPU job on a type of 2 GPUs and a 1-GPU job: s_0 X_0 + s_1 X_1 <= 2
// with T = 1 everywhere. Equal share x_eq = 2/2 = 1 per job, T_eq = 1.
// Objective min(2 x0, x1): x1 = 1 leaves x0 = 1/2, so t = min(1, 1) = 1.
TEST(GavelLp, MaxMinFairnessCountsTheScaleFactorInTheCapacity) {
  GavelProblem p;
  p.throughput = {{1}, {1}};
  p.scale = {2, 1};
  p.type_gpus = {2};
  const GavelAllocation a = gavel_max_min_fairness(p);
  EXPECT_NEAR(a.value, 1.0, 1e-7);
  EXPECT_NEAR(a.x[0][0], 0.5, 1e-7);
  EXPECT_NEAR(a.x[1][0], 1.0, 1e-7);
}

// One GPU, two jobs of 100 steps at 1 step/s: both finish by T only when
// 100/T + 100/T <= 1, so the makespan is 200 s (bisection within 5%).
TEST(GavelLp, MinMakespanOnOneGpuIsTheSumOfTheJobs) {
  GavelProblem p;
  p.throughput = {{1}, {1}};
  p.scale = {1, 1};
  p.type_gpus = {1};
  p.remaining_steps = {100, 100};
  const GavelAllocation a = gavel_min_makespan(p);
  EXPECT_GE(a.value, 200.0 - 1e-6);
  EXPECT_LE(a.value, 210.0);
  EXPECT_GE(a.x[0][0] * a.value, 100 - 1e-6);
  EXPECT_GE(a.x[1][0] * a.value, 100 - 1e-6);
}

// One GPU, three jobs of 100 s alone each (R = 100, 200, 300 steps at 1, 2,
// 3 steps/s): the makespan is 300 s. From lo = 100 the bisection tries
// 100 and 200 (infeasible), 400 (feasible), then sqrt(lo hi): 282.8 no,
// 336.4 yes, 308.4 yes, 295.4 no, and stops at hi = 200 * 2^(5/8) = 308.4.
// Each step re-solves one LP from the last step's basis, after feasible and
// infeasible steps alike; one wrong verdict would end at another value.
TEST(GavelLp, MinMakespanBisectionFollowsTheHandSteps) {
  GavelProblem p;
  p.throughput = {{1}, {2}, {3}};
  p.scale = {1, 1, 1};
  p.type_gpus = {1};
  p.remaining_steps = {100, 200, 300};
  const GavelAllocation a = gavel_min_makespan(p);
  EXPECT_NEAR(a.value, 200 * std::pow(2.0, 5.0 / 8), 1e-9);
  // X is the one solved at 308.4, not at an earlier feasible 336.4 or 400:
  // every job gets its 100 s of work into 308.4 s, and the tie-break hands
  // out the rest of the GPU.
  double sum = 0;
  for (std::size_t m = 0; m < 3; ++m) {
    EXPECT_GE(a.x[m][0] * a.value, 100 - 1e-6) << m;
    sum += a.x[m][0];
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

// Same two jobs, just submitted: the isolated 1/2 share runs 0.5 step/s, so
// T_iso-time = 200 s; rho_m = (100 / thr_m) / 200, and thr_0 + thr_1 <= 1
// makes max rho >= 1, reached by halving the GPU.
TEST(GavelLp, FinishTimeFairnessHalvesTheGpuForRhoOne) {
  GavelProblem p;
  p.throughput = {{1}, {1}};
  p.scale = {1, 1};
  p.type_gpus = {1};
  p.remaining_steps = {100, 100};
  p.since_start_s = {0, 0};
  p.isolated_cum_s = {0, 0};
  EXPECT_NEAR(gavel_isolated_throughput(p)[0], 0.5, 1e-12);
  const GavelAllocation a = gavel_finish_time_fairness(p);
  EXPECT_GE(a.value, 1.0 - 1e-6);
  EXPECT_LE(a.value, 1.05);
  EXPECT_GE(a.x[0][0], 1 / (2 * a.value) - 1e-6);
  EXPECT_GE(a.x[1][0], 1 / (2 * a.value) - 1e-6);
}

// Two 1-GPU jobs on one GPU: the LP gives each X = 1/2. Time counters start
// at the pseudo-count 180 s each. Round t = 0: priorities 0.5 / (180/360) =
// 1 for both, tie broken by index: job 0 runs. Round t = 360: job 0 has
// 180 + 360 = 540 s, job 1 180 s of 720 s: priorities 0.5/0.75 = 2/3 and
// 0.5/0.25 = 2, so job 0 is preempted and job 1 starts. Round t = 720:
// 540 vs 540: tie again, job 0 back.
TEST(GavelPolicy, RoundsAlternateTwoJobsOnOneGpuByPriority) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1);
  GavelPolicy policy;

  SchedulerInput in0 = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}});
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  ASSERT_EQ(policy.allocation_of(0).size(), 1u);
  EXPECT_NEAR(policy.allocation_of(0)[0], 0.5, 1e-7);
  EXPECT_NEAR(policy.allocation_of(1)[0], 0.5, 1e-7);
  ASSERT_TRUE(policy.next_timer_s(0).has_value());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(0), 360);

  rig.view.allocate({0}, 0);
  SchedulerInput in1 =
      rig.at(360, {RunningJob{0, &a, Placement{{0}, {1}}, 0, 360, -1}}, {QueuedJob{1, &b, 0, -1}});
  const auto out1 = policy.decide(in1);
  ASSERT_EQ(out1.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out1[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out1[1]).job, 1u);
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(360), 720);

  rig.view.release({0}, 0);
  rig.view.allocate({0}, 1);
  SchedulerInput in2 =
      rig.at(720, {RunningJob{1, &b, Placement{{0}, {1}}, 360, 360, -1}}, {QueuedJob{0, &a, 360, -1}});
  const auto out2 = policy.decide(in2);
  ASSERT_EQ(out2.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out2[0]).job, 1u);
  EXPECT_EQ(std::get<StartJob>(out2[1]).job, 0u);
}

// Issue 21: a round whose job set is the one of the last solve reuses its
// allocation (only the time counters move), so it runs no LP; an arrival or
// a completion solves again. Counted, not timed.
TEST(GavelPolicy, ARoundWithTheSameJobsSolvesNoLp) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1), c = cifar("c", 1);
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}});
  ASSERT_EQ(policy.decide(in).size(), 1u);
  EXPECT_EQ(policy.solve_count(), 1u);
  rig.view.allocate({0}, 0);
  // Rounds at 360 s and 720 s with jobs 0 and 1 swapping the GPU.
  for (const double t : {360.0, 720.0}) {
    const bool a_runs = t == 360.0;
    const JobSpec& on = a_runs ? a : b;
    const JobSpec& off = a_runs ? b : a;
    const JobIndex on_i = a_runs ? 0 : 1, off_i = a_runs ? 1 : 0;
    SchedulerInput round = rig.at(t, {RunningJob{on_i, &on, Placement{{0}, {1}}, t - 360, 360, -1}},
                                  {QueuedJob{off_i, &off, 0, -1}});
    ASSERT_EQ(policy.decide(round).size(), 2u) << "t=" << t;
    EXPECT_EQ(policy.solve_count(), 1u) << "t=" << t;
    rig.view.release({0}, on_i);
    rig.view.allocate({0}, off_i);
  }
  // A third job arrives by the round at 1080 s: a new job set, a new solve.
  SchedulerInput round = rig.at(1080, {RunningJob{0, &a, Placement{{0}, {1}}, 720, 360, -1}},
                                {QueuedJob{1, &b, 360, -1}, QueuedJob{2, &c, 0, -1}});
  policy.decide(round);
  EXPECT_EQ(policy.solve_count(), 2u);
}

// Between rounds a job that arrives is not given a preempted GPU: with the
// GPU busy, an arrival at t = 100 changes nothing until the round at 360.
TEST(GavelPolicy, NoPreemptionBetweenRounds) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1);
  GavelPolicy policy;
  SchedulerInput in0 = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}});
  ASSERT_EQ(policy.decide(in0).size(), 1u);
  rig.view.allocate({0}, 0);
  SchedulerInput in1 =
      rig.at(100, {RunningJob{0, &a, Placement{{0}, {1}}, 0, 100, -1}}, {QueuedJob{1, &b, 0, -1}});
  EXPECT_TRUE(policy.decide(in1).empty());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(100), 360);
}

// A round takes picks in priority order only while GPUs are left: one GPU,
// five queued 1-GPU jobs (X = 1/5 each, equal priorities, job 0 first):
// after job 0's pick the GPU is given out and the other four are not ranked.
TEST(GavelPolicy, ARoundStopsRankingOnceTheGpusAreGivenOut) {
  Rig rig("v100-1x1x1");
  std::vector<JobSpec> specs;
  for (int i = 0; i < 5; ++i) specs.push_back(cifar("j" + std::to_string(i), 1));
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {});
  for (JobIndex i = 0; i < specs.size(); ++i) in.queued.push_back(QueuedJob{i, &specs[i], 0, -1});
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 0u);
  EXPECT_EQ(policy.ranked_in_last_call(), 1u);
}

// A round hands no pick to the greedy once its width is over its type's
// room (issue 21: with GPUs left for the narrowest job, every wider pick of
// a long queue was popped and passed over). Four GPUs; three 4-GPU jobs and
// a 1-GPU job (index 3). The 1-GPU job's X is the largest (1, the 4-GPU
// jobs' 1/4 each: every job's throughput at the same multiple of its equal
// share), priorities are X times the same factor, so it goes first and
// leaves 3 GPUs: the three 4-GPU picks are then too wide and not ranked.
// 1 pick ranked, not 4; only job 3 starts.
TEST(GavelPolicy, ARoundSkipsPicksWiderThanTheirTypesRoom) {
  Rig rig("v100-1x1x4");
  const JobSpec a = cifar("a", 4), b = cifar("b", 4), c = cifar("c", 4), d = cifar("d", 1);
  GavelPolicy policy;
  SchedulerInput in = rig.at(
      0, {},
      {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}, QueuedJob{2, &c, 0, -1}, QueuedJob{3, &d, 0, -1}});
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 3u);
  EXPECT_NEAR(policy.allocation_of(3)[0], 1.0, 1e-7);
  EXPECT_NEAR(policy.allocation_of(0)[0], 0.25, 1e-7);
  EXPECT_EQ(policy.ranked_in_last_call(), 1u);
}

// A reset of the time counters renews those of the jobs active then, not
// of every job seen (issue 21: that grew with the trace). reset_s = 1000.
// t = 0: jobs 0 and 1 get the pseudo-count (2 renewals), job 0 runs. By
// t = 1080 job 0 has ended and job 2 arrived: job 2's first call (1), then
// the solve for the new job set resets (1080 >= 1000) jobs 1 and 2 (2).
TEST(GavelPolicy, AResetRenewsOnlyTheActiveJobsCounters) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1), c = cifar("c", 1);
  GavelParams params;
  params.reset_s = 1000;
  GavelPolicy policy(params);
  SchedulerInput in0 = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}});
  ASSERT_EQ(policy.decide(in0).size(), 1u);
  EXPECT_EQ(policy.time_counter_renewals(), 2u);
  SchedulerInput in1 = rig.at(1080, {}, {QueuedJob{1, &b, 0, -1}, QueuedJob{2, &c, 0, -1}});
  ASSERT_EQ(policy.decide(in1).size(), 1u);
  EXPECT_EQ(policy.solve_count(), 2u);
  EXPECT_EQ(policy.time_counter_renewals(), 5u);
}

// Between rounds only queued jobs that fit in the free GPUs are ranked
// (issue 21: the ranking of the whole queue at every arrival grew with the
// cluster). Round at t = 0 starts the 3-GPU job alone on the 4 GPUs; at
// t = 100, with 1 GPU free, of the queued 2-, 2- and 1-GPU jobs only the
// 1-GPU job is a candidate (one type: one pick), and it starts.
TEST(GavelPolicy, BetweenRoundsOnlyJobsThatFitAreRanked) {
  Rig rig("v100-1x1x4");
  const JobSpec wide = cifar("wide", 3), b = cifar("b", 2), c = cifar("c", 2), d = cifar("d", 1);
  GavelPolicy policy;
  SchedulerInput in0 = rig.at(0, {}, {QueuedJob{0, &wide, 0, -1}});
  const auto first = policy.decide(in0);
  ASSERT_EQ(first.size(), 1u);
  const Placement placed = std::get<StartJob>(first[0]).placement;
  rig.view.allocate(placed.gpus, 0);
  SchedulerInput in1 = rig.at(100, {RunningJob{0, &wide, placed, 0, 100, -1}},
                              {QueuedJob{1, &b, 0, -1}, QueuedJob{2, &c, 0, -1}, QueuedJob{3, &d, 0, -1}});
  const auto out = policy.decide(in1);
  EXPECT_EQ(policy.ranked_in_last_call(), 1u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out[0]).job, 3u);
}

// Free GPUs per type on a node of mixed types (V100, P100, P100; types
// sorted: P100 = 0, V100 = 1): with the V100 busy, a P100-only arrival
// between rounds starts on a P100 and a V100-only one is not ranked.
TEST(GavelPolicy, BetweenRoundsFreeGpusAreCountedPerTypeOnAMixedNode) {
  Rig rig("sim-v100-p100-1x1x3");
  const GpuTypeMask p100 = rig.cluster.type_mask("P100"), v100 = rig.cluster.type_mask("V100");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1), c = cifar("c", 1);
  GavelPolicy policy;
  SchedulerInput in0 = rig.at(0, {}, {QueuedJob{0, &a, 0, -1, v100}});
  const auto first = policy.decide(in0);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(std::get<StartJob>(first[0]).placement.gpus, std::vector<GpuId>{0});
  rig.view.allocate({0}, 0);
  SchedulerInput in1 = rig.at(100, {RunningJob{0, &a, Placement{{0}, {1}}, 0, 100, -1}},
                              {QueuedJob{1, &b, 0, -1, v100}, QueuedJob{2, &c, 0, -1, p100}});
  const auto out = policy.decide(in1);
  EXPECT_EQ(policy.ranked_in_last_call(), 1u);
  ASSERT_EQ(out.size(), 1u);
  const auto& start = std::get<StartJob>(out[0]);
  EXPECT_EQ(start.job, 2u);
  ASSERT_EQ(start.placement.gpus.size(), 1u);
  EXPECT_NE(start.placement.gpus[0], 0u);
}

// Issue 21: between rounds an event brings up to date the time counters of
// the jobs it changes only, not of every running job (that walk was half of
// the 1M-job run). Four 1-GPU jobs fill the 4 GPUs at t = 0. An arrival at
// t = 10 settles no counter (a walk: 4), the completion of job 0 at t = 20
// settles job 0's alone, the start of the arrival in its GPU none; the round
// at 360 settles each of the 4 running jobs once.
TEST(GavelPolicy, BetweenRoundsAnEventSettlesOnlyTheJobsItChanges) {
  Rig rig("v100-1x1x4");
  std::vector<JobSpec> specs;
  for (int i = 0; i < 5; ++i) specs.push_back(cifar("j" + std::to_string(i), 1));
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {});
  for (JobIndex i = 0; i < 4; ++i) in.queued.push_back(QueuedJob{i, &specs[i], 0, -1});
  const auto first = decide_changed(policy, in, {0, 1, 2, 3});
  ASSERT_EQ(first.size(), 4u);
  in.queued.clear();
  for (const Decision& d : first) {
    const auto& start = std::get<StartJob>(d);
    rig.view.allocate(start.placement.gpus, start.job);
    in.running.push_back(RunningJob{start.job, &specs[start.job], start.placement, 0, 0, -1});
  }
  EXPECT_TRUE(decide_changed(policy, in, {0, 1, 2, 3}).empty());
  const std::size_t settled = policy.counter_settles();

  in.now_s = 10;
  in.queued = {QueuedJob{4, &specs[4], 0, -1}};
  EXPECT_TRUE(decide_changed(policy, in, {4}).empty());
  EXPECT_EQ(policy.counter_settles(), settled);

  in.now_s = 20;
  rig.view.release(in.running[0].placement.gpus, in.running[0].index);
  const JobIndex done = in.running[0].index;
  in.running.erase(in.running.begin());
  const auto filled = decide_changed(policy, in, {done});
  EXPECT_EQ(policy.counter_settles(), settled + 1);
  ASSERT_EQ(filled.size(), 1u);
  const auto& start = std::get<StartJob>(filled[0]);
  EXPECT_EQ(start.job, 4u);
  rig.view.allocate(start.placement.gpus, 4);
  in.queued.clear();
  in.running.push_back(RunningJob{4, &specs[4], start.placement, 20, 0, -1});
  EXPECT_TRUE(decide_changed(policy, in, {4}).empty());
  EXPECT_EQ(policy.counter_settles(), settled + 1);

  in.now_s = 360;
  decide_changed(policy, in, {});
  EXPECT_EQ(policy.counter_settles(), settled + 1 + 4);
}

// The lazily kept counters give the round the hand numbers of
// RoundsAlternateTwoJobsOnOneGpuByPriority through the driver's changes,
// with an arrival between rounds that settles nothing: at t = 360 job 0 has
// 180 + 360 = 540 s against job 1's 180 s, so job 0 is preempted for job 1
// (had its 360 s not been counted, the tie would keep job 0).
TEST(GavelPolicy, ALazilyCountedJobIsPreemptedAtTheRound) {
  Rig rig("v100-1x1x1");
  const JobSpec a = cifar("a", 1), b = cifar("b", 1), c = cifar("c", 2);
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}});
  const auto out0 = decide_changed(policy, in, {0, 1});
  ASSERT_EQ(out0.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  rig.view.allocate({0}, 0);
  in.running = {RunningJob{0, &a, Placement{{0}, {1}}, 0, 0, -1}};
  in.queued = {QueuedJob{1, &b, 0, -1}};
  EXPECT_TRUE(decide_changed(policy, in, {0}).empty());
  // A 2-GPU job no type can hold arrives at t = 100: rejected, nothing settled.
  in.now_s = 100;
  const std::size_t settled = policy.counter_settles();
  in.queued.push_back(QueuedJob{2, &c, 0, -1});
  const auto out1 = decide_changed(policy, in, {2});
  ASSERT_EQ(out1.size(), 1u);
  EXPECT_NE(std::get_if<RejectJob>(&out1[0]), nullptr);
  EXPECT_EQ(policy.counter_settles(), settled);
  in.queued.pop_back();
  in.now_s = 360;
  const auto out2 = decide_changed(policy, in, {2});
  ASSERT_EQ(out2.size(), 2u);
  EXPECT_EQ(std::get<PreemptJob>(out2[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out2[1]).job, 1u);
}

TEST(GavelPolicy, RejectsAJobNoTypeCanHold) {
  Rig rig("v100-1x1x1");
  const JobSpec big = cifar("big", 2);
  GavelPolicy policy;
  SchedulerInput in = rig.at(0, {}, {QueuedJob{0, &big, 0, -1}});
  const auto out = policy.decide(in);
  ASSERT_EQ(out.size(), 1u);
  const auto* reject = std::get_if<RejectJob>(&out[0]);
  ASSERT_NE(reject, nullptr);
  EXPECT_NE(reject->reason.find("2 GPUs"), std::string::npos) << reject->reason;
}

TEST(GavelPolicy, ObjectiveNamesAndBadParameters) {
  EXPECT_EQ(gavel_objective_from_string("makespan"), GavelObjective::Makespan);
  EXPECT_EQ(gavel_objective_from_string("finish_time_fairness"), GavelObjective::FinishTimeFairness);
  EXPECT_THROW(gavel_objective_from_string("fastest"), InputError);
  GavelParams params;
  params.round_s = 0;
  EXPECT_THROW(GavelPolicy{params}, InputError);
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

// The registry passes --policy-param values through to these policies.
TEST(GavelPolicy, RegistryParametersOfTheRoundPolicies) {
  for (const char* objective : {"max_min_fairness", "finish_time_fairness", "makespan"})
    EXPECT_EQ(make_policy("gavel", {{"objective", objective}, {"round_s", "60"}})->name(), "gavel");
  EXPECT_THROW(make_policy("gavel", {{"objective", "fastest"}}), InputError);
  EXPECT_THROW(make_policy("gavel", {{"round_s", "-1"}}), InputError);
  EXPECT_EQ(make_policy("gavel", {{"skip_unchanged", "0"}})->name(), "gavel");
  EXPECT_EQ(make_policy("themis", {{"fairness_knob", "0.5"}, {"lease_s", "300"}})->name(), "themis");
  EXPECT_THROW(make_policy("themis", {{"fairness_knob", "1"}}), InputError);
  EXPECT_EQ(make_policy("gandiva", {{"slice_s", "30"}, {"placement", "first-fit"}})->name(), "gandiva");
  EXPECT_THROW(make_policy("gandiva", {{"slice", "30"}}), InputError);
}

}  // namespace
}  // namespace vnsim
