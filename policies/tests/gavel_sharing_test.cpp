// Gavel with space sharing: the LPs of all three objectives with job pairs
// on examples solved by hand, the candidate-pair cap, and the round
// mechanism starting a pair on half of the same GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "../src/gavel_pairs.hpp"
#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/interference.hpp"
#include "vnsim/policies/gavel_lp.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

// One type with one GPU, two jobs; `fraction` is the table of two families
// (job m has family m when `families` is 2, else both family 0).
GavelProblem one_gpu_two_jobs(std::vector<double> throughput, std::vector<std::vector<double>> fraction,
                              std::vector<int> family) {
  GavelProblem p;
  for (double t : throughput) p.throughput.push_back({t});
  p.scale = {1, 1};
  p.type_gpus = {1};
  p.sharing.family = std::move(family);
  p.sharing.fraction = {std::move(fraction)};
  return p;
}

// Two identical ResNet-18 jobs on one V100: alone, T_eq = T / 2, so time
// slicing (X = 1/2 each) gives every job 1. Together each keeps f = 0.8966
// of T all the time: 0.8966 T / (T / 2) = 1.7932, with the pair row at 1.
TEST(GavelSharingLp, AGoodPairTakesTheWholeGpuAndBeatsTimeSlicing) {
  const double f = InterferenceTable::builtin().fraction("V100", "ResNet-18", "ResNet-18");
  ASSERT_DOUBLE_EQ(f, 0.8966);
  GavelProblem off = one_gpu_two_jobs({3, 3}, {{f}}, {0, 0});
  off.sharing = {};
  const GavelAllocation alone = gavel_max_min_fairness(off);
  EXPECT_NEAR(alone.value, 1.0, 1e-7);
  EXPECT_TRUE(alone.pairs.empty());

  const GavelAllocation a = gavel_max_min_fairness(one_gpu_two_jobs({3, 3}, {{f}}, {0, 0}));
  EXPECT_NEAR(a.value, 2 * f, 1e-7);
  EXPECT_GT(a.value, alone.value + 0.7);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_EQ(a.pairs[0].a, 0u);
  EXPECT_EQ(a.pairs[0].b, 1u);
  EXPECT_EQ(a.pairs[0].type, 0);
  EXPECT_NEAR(a.pairs[0].x, 1.0, 1e-7);
  EXPECT_NEAR(a.x[0][0], 0.0, 1e-7);
  EXPECT_NEAR(a.x[1][0], 0.0, 1e-7);
}

// Job 0 (ResNet-18, T = 2) and job 1 (ResNet-50, T = 1) on one V100; job 0
// keeps fa = 0.6171 next to job 1, job 1 keeps fb = 0.7487. T_eq = (1, 1/2),
// so with X0, X1 alone and Z together (X0 + X1 + Z <= 1) the normalised
// throughputs are 2 X0 + 2 fa Z and 2 X1 + 2 fb Z. Z = 1 gives (1.2342,
// 1.4974); giving d of Z to job 0 alone moves them by (+(2 - 2fa) d,
// -2 fb d), equal at d = (2fb - 2fa) / (2 - 2fa + 2fb) = 0.2632 / 2.2632.
// Giving time to job 1 instead lowers job 0, so this is the optimum:
// t = 2fa + (2 - 2fa) d = 1.32326 (vs 1 by time slicing).
TEST(GavelSharingLp, AnUnevenPairIsMixedWithTimeAloneForTheSlowerJob) {
  const double fa = 0.6171, fb = 0.7487;
  const GavelAllocation a = gavel_max_min_fairness(one_gpu_two_jobs({2, 1}, {{0, fa}, {fb, 0}}, {0, 1}));
  const double d = (2 * fb - 2 * fa) / (2 - 2 * fa + 2 * fb);
  EXPECT_NEAR(a.value, 2 * fa + (2 - 2 * fa) * d, 1e-7);
  EXPECT_NEAR(a.value, 1.32326, 1e-5);
  EXPECT_NEAR(a.x[0][0], d, 1e-6);
  EXPECT_NEAR(a.x[1][0], 0.0, 1e-6);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_EQ(a.pairs[0].a, 0u);
  EXPECT_EQ(a.pairs[0].b, 1u);
  EXPECT_NEAR(a.pairs[0].x, 1 - d, 1e-6);
}

// A pair that does not fit on one GPU (fraction 0), or whose combined
// throughput is not above 1, is never packed: time slicing, X = 1/2 each.
TEST(GavelSharingLp, APairWithFractionZeroOrNoGainIsNeverPacked) {
  for (const std::vector<std::vector<double>>& fraction :
       {std::vector<std::vector<double>>{{0.99, 0}, {0, 0.99}}, {{0, 0}, {0.99, 0}}, {{0, 0.5}, {0.5, 0}}}) {
    const GavelAllocation a = gavel_max_min_fairness(one_gpu_two_jobs({1, 1}, fraction, {0, 1}));
    EXPECT_TRUE(a.pairs.empty());
    EXPECT_NEAR(a.value, 1.0, 1e-7);
    EXPECT_NEAR(a.x[0][0], 0.5, 1e-7);
    EXPECT_NEAR(a.x[1][0], 0.5, 1e-7);
  }
  // Jobs of different sizes never share either (Gavel pairs equal scales).
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{0.9}}, {0, 0});
  p.scale = {1, 2};
  p.type_gpus = {2};
  EXPECT_TRUE(gavel_max_min_fairness(p).pairs.empty());
}

// Three classes of one job each, every pair qualifying, sums 1.8 (0-1),
// 1.2 (0-2), 1.1 (1-2). With one partner per class, 0 and 1 keep each
// other and 2 keeps 0: the pair 1-2 is dropped.
TEST(GavelSharingLp, EachClassKeepsItsBestPartners) {
  GavelProblem classes;
  classes.throughput = {{1}, {1}, {1}};
  classes.scale = {1, 1, 1};
  classes.type_gpus = {4};
  GavelSharing sharing;
  sharing.fraction = {{{0, 0.9, 0.6}, {0.9, 0, 0.55}, {0.6, 0.55, 0}}};
  sharing.partners_per_class = 1;
  const auto kept = gavel_pair_candidates(classes, {0, 1, 2}, {1, 1, 1}, sharing);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].a, 0u);
  EXPECT_EQ(kept[0].b, 1u);
  EXPECT_DOUBLE_EQ(kept[0].fa + kept[0].fb, 1.8);
  EXPECT_EQ(kept[1].a, 0u);
  EXPECT_EQ(kept[1].b, 2u);
  sharing.partners_per_class = 2;
  EXPECT_EQ(gavel_pair_candidates(classes, {0, 1, 2}, {1, 1, 1}, sharing).size(), 3u);
}

// z = 0.6 of one class pair: with itself, 3 jobs each spend 2z/3 = 0.4 in
// a cycle of 3 pairs at z/3 = 0.2; 2 jobs with 3: each of the 2 spends 0.3,
// each of the 3 0.2, in 4 north-west-corner pairs (0.2, 0.1, 0.1, 0.2).
TEST(GavelSharingLp, ClassPairTimeGoesToFewJobPairs) {
  std::vector<GavelPairShare> self;
  spread_pair_time({4, 5, 6}, {4, 5, 6}, true, 1, 0.6, self);
  ASSERT_EQ(self.size(), 3u);
  const std::vector<std::pair<std::size_t, std::size_t>> cycle = {{4, 5}, {5, 6}, {4, 6}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(std::make_pair(self[i].a, self[i].b), cycle[i]);
    EXPECT_EQ(self[i].type, 1);
    EXPECT_NEAR(self[i].x, 0.2, 1e-12);
  }
  std::vector<GavelPairShare> two;
  spread_pair_time({0, 1}, {7, 8, 9}, false, 0, 0.6, two);
  const std::vector<std::tuple<std::size_t, std::size_t, double>> corner = {
      {0, 7, 0.2}, {0, 8, 0.1}, {1, 8, 0.1}, {1, 9, 0.2}};
  ASSERT_EQ(two.size(), corner.size());
  for (std::size_t i = 0; i < corner.size(); ++i) {
    EXPECT_EQ(two[i].a, std::get<0>(corner[i]));
    EXPECT_EQ(two[i].b, std::get<1>(corner[i]));
    EXPECT_NEAR(two[i].x, std::get<2>(corner[i]), 1e-12);
  }
  // The LP's rounding can leave z slightly negative: no pair, and no hang.
  std::vector<GavelPairShare> none;
  spread_pair_time({0, 1}, {7, 8, 9}, false, 0, -1e-12, none);
  spread_pair_time({0, 1, 2}, {0, 1, 2}, true, 0, -1e-12, none);
  EXPECT_TRUE(none.empty());
}

// The bisection's answer v for a hand optimum v*: v* <= v < 1.05 v*.
void expect_bisected(double value, double optimum) {
  EXPECT_GE(value, optimum * (1 - 1e-9));
  EXPECT_LT(value, optimum * 1.05);
}

// Two 1-GPU jobs of R = 3600 steps at T = 1 step/s on one GPU, each keeping
// f = 0.7 next to the other. Taking turns, the makespan is 2R/T = 7200 s;
// together both run at 0.7 T all the time: R / (0.7 T) = 5142.9 s. Mixing
// does not help: with z together and (1 - z)/2 alone each, a job's rate is
// T (1 - z)/2 + 0.7 T z = T (0.5 + 0.2 z), largest at z = 1. The feasibility
// LP's tie-break (pair worth 0.7 + 0.7 > 1 alone) then gives the pair all
// the time.
TEST(GavelSharingLp, MakespanPacksAPairThatFinishesBothSooner) {
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{0.7}}, {0, 0});
  p.remaining_steps = {3600, 3600};
  const GavelAllocation a = gavel_min_makespan(p);
  expect_bisected(a.value, 3600 / 0.7);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_EQ(a.pairs[0].a, 0u);
  EXPECT_EQ(a.pairs[0].b, 1u);
  EXPECT_EQ(a.pairs[0].type, 0);
  EXPECT_NEAR(a.pairs[0].x, 1.0, 1e-6);
  EXPECT_NEAR(a.x[0][0] + a.x[1][0], 0.0, 1e-6);

  p.sharing = {};
  const GavelAllocation off = gavel_min_makespan(p);
  expect_bisected(off.value, 7200);
  EXPECT_TRUE(off.pairs.empty());
}

// The pair above, step by step: from lo = R/T = 3600 s the bisection finds
// 3600 infeasible and 7200 feasible, then 3600 * 2^(1/2) = 5091 no (below
// 5142.9), 2^(3/4), 2^(5/8) and 2^(9/16) yes, stopping at 3600 * 2^(9/16)
// = 5316.6 s. The warm-started steps must reach the same verdicts as cold
// ones, and the pair must still be chosen at the last step.
TEST(GavelSharingLp, MakespanWithAPairFollowsTheHandBisectionSteps) {
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{0.7}}, {0, 0});
  p.remaining_steps = {3600, 3600};
  const GavelAllocation a = gavel_min_makespan(p);
  EXPECT_NEAR(a.value, 3600 * std::pow(2.0, 9.0 / 16), 1e-6);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_NEAR(a.pairs[0].x, 1.0, 1e-6);
  EXPECT_GE(0.7 * a.pairs[0].x * a.value, 3600 - 1e-6);
}

// f = 0.4 each way: together 0.8 T < T taking turns, so the pair is no
// candidate and the answer is exactly the one without sharing (2R/T).
TEST(GavelSharingLp, MakespanIgnoresAPairThatDoesNotPay) {
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{0.4}}, {0, 0});
  p.remaining_steps = {3600, 3600};
  const GavelAllocation a = gavel_min_makespan(p);
  EXPECT_TRUE(a.pairs.empty());
  expect_bisected(a.value, 7200);
  p.sharing = {};
  EXPECT_DOUBLE_EQ(a.value, gavel_min_makespan(p).value);
}

// The table allows fractions up to 1.5: at f = 1.2 each way the pair runs
// each job faster than alone, R / (1.2 T) = 3000 s, below R / T, the bound
// without sharing that the bisection must not start from.
TEST(GavelSharingLp, MakespanBelowTheAloneBoundWhenAPairRunsFaster) {
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{1.2}}, {0, 0});
  p.remaining_steps = {3600, 3600};
  const GavelAllocation a = gavel_min_makespan(p);
  expect_bisected(a.value, 3000);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_NEAR(a.pairs[0].x, 1.0, 1e-6);
}

// Finish-time fairness, same GPU, R = 3600 steps each at T = 1, both just
// submitted (since_start = isolated_cum = 0). T_iso = 1/2 (half the GPU),
// so rho_m = (R / thr_m) / (R / (1/2)) = 1 / (2 thr_m). Taking turns,
// thr = 1/2 and rho = 1. Job 0 keeps fa = 0.9 next to job 1, job 1 keeps
// fb = 0.6: with z together and x0, x1 alone (x0 + x1 + z <= 1),
// maximising min(x0 + 0.9 z, x1 + 0.6 z) gives x0 = 0, x1 = 1 - z and
// 1 - 0.4 z = 0.9 z, so z = 1/1.3 and thr = 0.9/1.3 (duals 0.3077, 0.6923
// confirm it), rho* = 1.3 / 1.8 = 0.7222. z = 1 alone would leave job 1
// at 0.6 (rho 0.833).
TEST(GavelSharingLp, FinishTimeFairnessPacksAnUnevenPair) {
  GavelProblem p = one_gpu_two_jobs({1, 1}, {{0, 0.9}, {0.6, 0}}, {0, 1});
  p.remaining_steps = {3600, 3600};
  p.since_start_s = {0, 0};
  p.isolated_cum_s = {0, 0};
  const GavelAllocation a = gavel_finish_time_fairness(p);
  expect_bisected(a.value, 1.3 / 1.8);
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_EQ(a.pairs[0].a, 0u);
  EXPECT_EQ(a.pairs[0].b, 1u);
  // The allocation returned reaches the rho it reports, for both jobs.
  const double z = a.pairs[0].x;
  EXPECT_LE(a.x[0][0] + a.x[1][0] + z, 1 + 1e-6);
  EXPECT_LE(1 / (2 * (a.x[0][0] + 0.9 * z)), a.value * (1 + 1e-6));
  EXPECT_LE(1 / (2 * (a.x[1][0] + 0.6 * z)), a.value * (1 + 1e-6));
  EXPECT_GT(z, 0.7);

  p.sharing = {};
  const GavelAllocation off = gavel_finish_time_fairness(p);
  expect_bisected(off.value, 1.0);
  EXPECT_TRUE(off.pairs.empty());
}

JobSpec cifar(const std::string& id) {
  JobSpec j;
  j.id = id;
  j.model = "cifar10";  // Gavel family ResNet-18
  j.gpus = 1;
  j.global_batch = 128;
  j.iterations = 1000000;
  return j;
}

// The policy on one V100 with two ResNet-18 jobs: the LP pairs them (for
// every objective: together each keeps f = 0.8966, more than the 1/2 of
// taking turns), so the first round starts both on GPU 0 with half of it
// each; at the next round the pair is kept (no decision).
void expect_pair_started_and_kept(GavelObjective objective) {
  const Cluster cluster(testing::test_cluster("v100-1x1x1"));
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  const JobSpec a = cifar("a"), b = cifar("b");
  GavelParams params;
  params.objective = objective;
  params.space_sharing = true;
  GavelPolicy policy(params);
  SchedulerInput in0;
  in0.view = &view;
  in0.queued = {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}};
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& start = std::get<StartJob>(out0[i]);
    EXPECT_EQ(start.job, i);
    EXPECT_EQ(start.placement.gpus, (std::vector<GpuId>{0}));
    EXPECT_EQ(start.gpu_milli, 500);
  }
  ASSERT_EQ(policy.pair_allocation_of(1, 0).size(), 1u);
  EXPECT_NEAR(policy.pair_allocation_of(1, 0)[0], 1.0, 1e-7);
  EXPECT_NEAR(policy.allocation_of(0)[0], 0.0, 1e-7);

  view.allocate({0}, 0, 500);
  view.allocate({0}, 1, 500);
  SchedulerInput in1;
  in1.now_s = 360;
  in1.view = &view;
  in1.running = {RunningJob{0, &a, Placement{{0}, {1}}, 0, 180, -1},
                 RunningJob{1, &b, Placement{{0}, {1}}, 0, 180, -1}};
  EXPECT_TRUE(policy.decide(in1).empty());
  EXPECT_DOUBLE_EQ(*policy.next_timer_s(360), 720);
}

TEST(GavelSharingPolicy, StartsAChosenPairOnHalfOfTheSameGpuAndKeepsIt) {
  expect_pair_started_and_kept(GavelObjective::MaxMinFairness);
}

TEST(GavelSharingPolicy, MakespanStartsAPairOnHalfOfTheSameGpu) {
  expect_pair_started_and_kept(GavelObjective::Makespan);
}

TEST(GavelSharingPolicy, FinishTimeFairnessStartsAPairOnHalfOfTheSameGpu) {
  expect_pair_started_and_kept(GavelObjective::FinishTimeFairness);
}

// Three ResNet-18 jobs on one V100: the LP fills the GPU with pairs (value
// 2f, each job 2/3 of the time in pairs), spread as the cycle (0,1), (1,2),
// (0,2) at X = 1/3 each. Round 0: equal priorities, (0,1) first by index.
// Round 360: (0,1) has run 180 + 360 s, the others only the pseudo-count,
// so (0,2) wins (tie with (1,2) by index): 0 and 1 leave their pair and 0
// restarts at once next to 2 on half of GPU 0; 1 waits.
TEST(GavelSharingPolicy, RoundsRotateThePairsOfThreeJobs) {
  const Cluster cluster(testing::test_cluster("v100-1x1x1"));
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  const JobSpec a = cifar("a"), b = cifar("b"), c = cifar("c");
  GavelParams params;
  params.space_sharing = true;
  GavelPolicy policy(params);
  SchedulerInput in0;
  in0.view = &view;
  in0.queued = {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}, QueuedJob{2, &c, 0, -1}};
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 2u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out0[1]).job, 1u);
  for (const auto& [x, y] : std::vector<std::pair<JobIndex, JobIndex>>{{0, 1}, {1, 2}, {0, 2}}) {
    ASSERT_EQ(policy.pair_allocation_of(x, y).size(), 1u);
    EXPECT_NEAR(policy.pair_allocation_of(x, y)[0], 1.0 / 3.0, 1e-7);
  }

  view.allocate({0}, 0, 500);
  view.allocate({0}, 1, 500);
  SchedulerInput in1;
  in1.now_s = 360;
  in1.view = &view;
  in1.running = {RunningJob{0, &a, Placement{{0}, {1}}, 0, 180, -1},
                 RunningJob{1, &b, Placement{{0}, {1}}, 0, 180, -1}};
  in1.queued = {QueuedJob{2, &c, 0, -1}};
  const auto out1 = policy.decide(in1);
  ASSERT_EQ(out1.size(), 4u);
  EXPECT_EQ(std::get<PreemptJob>(out1[0]).job, 0u);
  EXPECT_EQ(std::get<PreemptJob>(out1[1]).job, 1u);
  for (std::size_t i = 2; i < 4; ++i) {
    const auto& start = std::get<StartJob>(out1[i]);
    EXPECT_EQ(start.job, i == 2 ? 0u : 2u);
    EXPECT_EQ(start.placement.gpus, (std::vector<GpuId>{0}));
    EXPECT_EQ(start.gpu_milli, 500);
  }
}

// space_sharing=off: the same two jobs take turns on the whole GPU.
TEST(GavelSharingPolicy, OffKeepsWholeGpuTimeSlicing) {
  const Cluster cluster(testing::test_cluster("v100-1x1x1"));
  const Topology topology(cluster);
  ClusterView view(cluster, topology);
  const JobSpec a = cifar("a"), b = cifar("b");
  GavelPolicy policy;
  SchedulerInput in0;
  in0.view = &view;
  in0.queued = {QueuedJob{0, &a, 0, -1}, QueuedJob{1, &b, 0, -1}};
  const auto out0 = policy.decide(in0);
  ASSERT_EQ(out0.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).job, 0u);
  EXPECT_EQ(std::get<StartJob>(out0[0]).gpu_milli, 0);
  EXPECT_TRUE(policy.pair_allocation_of(0, 1).empty());
}

TEST(GavelSharingPolicy, RegistryParameter) {
  EXPECT_EQ(make_policy("gavel", {{"space_sharing", "on"}})->name(), "gavel");
  EXPECT_THROW(make_policy("gavel", {{"space_sharing", "yes"}}), InputError);
  // Space sharing works with every objective.
  for (const char* objective : {"max_min_fairness", "finish_time_fairness", "makespan"})
    EXPECT_EQ(make_policy("gavel", {{"space_sharing", "on"}, {"objective", objective}})->name(), "gavel")
        << objective;
  EXPECT_EQ(make_policy("gavel", {{"space_sharing", "on"}, {"partners_per_class", "2"}})->name(), "gavel");
  for (const char* bad : {"0", "2.5", "1e9", "nan"})
    EXPECT_THROW(make_policy("gavel", {{"partners_per_class", bad}}), InputError) << bad;
  bool listed = false;
  for (const PolicyParamInfo& info : policy_parameters("gavel"))
    if (info.key == "space_sharing") listed = info.default_value == "off";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace vnsim
