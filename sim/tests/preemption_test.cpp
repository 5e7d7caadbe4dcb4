// Preemption in the engine, on scenarios whose timeline is computed by hand
// from the analytic iteration time T: zero-cost preemption, whole completed
// iterations kept, resume with the remaining iterations only.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "allocation_log_check.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/policies/tiresias_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

const ModelParams& any_model() {
  return ModelCatalog::builtin().at(ModelCatalog::builtin().names().front());
}

double iteration_s(const Cluster& cluster, const JobSpec& job, const std::vector<GpuId>& on) {
  const Topology topo(cluster);
  return iteration_time(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(job.model),
                        spread_virtual_nodes(on, job.effective_virtual_nodes()), job.global_batch)
      .total_s;
}

ReplayResult replay(const Cluster& cluster, const std::vector<JobSpec>& jobs, Policy& policy) {
  return run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
}

TEST(Preemption, SrtfPreemptsLongJobAndItResumesWithItsRemainingIterations) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  std::vector<JobSpec> jobs = {testing::make_job("long", 0.0, any_model(), 4, 1000)};
  const std::vector<GpuId> node = testing::gpu_range(0, 4);
  const double t = iteration_s(cluster, jobs[0], node);
  // The short job arrives mid-iteration: the long job has 2 whole iterations
  // done and loses the half one.
  const double arrival = 2.5 * t;
  jobs.push_back(testing::make_job("short", arrival, any_model(), 4, 100));
  SrtfPolicy policy;
  const ReplayResult r = replay(cluster, jobs, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());

  const JobRecord& longer = r.jobs[0];
  const JobRecord& shorter = r.jobs[1];
  ASSERT_EQ(longer.state, FinalState::Completed) << longer.reason;
  ASSERT_EQ(shorter.state, FinalState::Completed) << shorter.reason;
  const auto done = static_cast<long long>(std::floor(arrival / t));
  ASSERT_EQ(done, 2);
  EXPECT_EQ(shorter.start_s, arrival);
  EXPECT_DOUBLE_EQ(shorter.finish_s, arrival + 100 * t);
  EXPECT_EQ(longer.start_s, 0.0);  // first start
  EXPECT_DOUBLE_EQ(longer.finish_s, shorter.finish_s + static_cast<double>(1000 - done) * t);
  EXPECT_EQ(longer.restarts, 1);
  EXPECT_EQ(shorter.restarts, 0);
  EXPECT_NEAR(longer.gpu_seconds, 4 * arrival + 4 * static_cast<double>(1000 - done) * t,
              1e-9 * longer.finish_s);

  // take(long), release(long) and take(short) at the arrival, release(short)
  // and take(long) at its end, release(long).
  ASSERT_EQ(r.allocations.size(), 6u);
  EXPECT_FALSE(r.allocations[1].taken);
  EXPECT_EQ(r.allocations[1].job, 0u);
  EXPECT_EQ(r.allocations[1].time_s, arrival);
  EXPECT_TRUE(r.allocations[2].taken);
  EXPECT_EQ(r.allocations[2].job, 1u);
}

TEST(Preemption, SjfNeverPreempts) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  std::vector<JobSpec> jobs = {testing::make_job("long", 0.0, any_model(), 4, 1000)};
  const double t = iteration_s(cluster, jobs[0], testing::gpu_range(0, 4));
  jobs.push_back(testing::make_job("short", 2.5 * t, any_model(), 4, 100));
  SjfPolicy policy;
  const ReplayResult r = replay(cluster, jobs, policy);
  EXPECT_EQ(r.jobs[0].restarts, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 1000 * t);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 1100 * t);
}

// Thresholds {400 GPU-s}: two queues. A (4 GPUs) runs from 0 and crosses 400
// GPU-s at exactly 100 s; B (4 GPUs, queue 0) then preempts it. B crosses at
// 200 s and drops behind A, which entered queue 1 earlier (at 100 s): A
// resumes at 200 s and runs to the end, then B finishes.
TEST(Preemption, TiresiasDemotesExactlyAtTheThresholdAndQueuesAreFifo) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  JobSpec a = testing::make_job("a", 0.0, any_model(), 4, 1);
  const double t = iteration_s(cluster, a, testing::gpu_range(0, 4));
  ASSERT_LT(t, 10.0);
  a.iterations = static_cast<long long>(300 / t);
  JobSpec b = testing::make_job("b", 10.0, any_model(), 4, static_cast<long long>(250 / t));
  TiresiasParams params;
  params.thresholds_gpu_s = {400};
  TiresiasPolicy policy(params);
  const ReplayResult r = replay(cluster, {a, b}, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());

  ASSERT_EQ(r.allocations.size(), 8u);
  const auto expect_event = [&](std::size_t i, JobIndex job, bool taken, double time) {
    EXPECT_EQ(r.allocations[i].job, job) << "event " << i;
    EXPECT_EQ(r.allocations[i].taken, taken) << "event " << i;
    EXPECT_NEAR(r.allocations[i].time_s, time, 1e-9) << "event " << i;
  };
  expect_event(0, 0, true, 0);
  expect_event(1, 0, false, 100);  // A demoted at 4 x 100 s = 400 GPU-s
  expect_event(2, 1, true, 100);
  expect_event(3, 1, false, 200);  // B demoted at 4 x (200 - 100) s
  expect_event(4, 0, true, 200);
  const auto a_done = static_cast<long long>(std::floor(100 / t));
  const auto b_done = static_cast<long long>(std::floor(100 / t));
  const double a_finish = 200 + static_cast<double>(a.iterations - a_done) * t;
  EXPECT_NEAR(r.jobs[0].finish_s, a_finish, 1e-9 * a_finish);
  EXPECT_NEAR(r.jobs[1].finish_s, a_finish + static_cast<double>(b.iterations - b_done) * t, 1e-9 * a_finish);
  EXPECT_EQ(r.jobs[0].restarts, 1);
  EXPECT_EQ(r.jobs[1].restarts, 1);
}

// A multi-node ring job is stopped by killing its rank actors; it keeps the
// iterations done (ring_iterations_done) and runs the rest after the short job.
TEST(Preemption, RingJobIsStoppedAndResumed) {
  Cluster cluster(testing::test_cluster("sim-1x2x2"));
  const ModelParams& model = testing::most_communicating_model();
  std::vector<JobSpec> jobs = {testing::make_job("long", 0.0, model, 4, 400)};
  const double t = iteration_s(cluster, jobs[0], testing::gpu_range(0, 4));
  jobs.push_back(testing::make_job("short", 150.5 * t, model, 4, 50));
  SrtfPolicy policy;
  const ReplayResult r = replay(cluster, jobs, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  const JobRecord& longer = r.jobs[0];
  const JobRecord& shorter = r.jobs[1];
  ASSERT_EQ(longer.state, FinalState::Completed) << longer.reason;
  ASSERT_EQ(shorter.state, FinalState::Completed) << shorter.reason;
  EXPECT_EQ(longer.restarts, 1);
  EXPECT_NEAR(shorter.start_s, 150.5 * t, 1e-9);
  EXPECT_GT(longer.finish_s, shorter.finish_s);
  // On an idle network a ring job runs within a few percent of the analytic
  // time (ring_accuracy_test). Macro-iterations of k = 40 iterations: 3 are
  // done by ~120 T, and the 30 whole iterations since then are credited, so
  // 400 - 150 = 250 remain after the short job (280 without the credit).
  EXPECT_NEAR(shorter.finish_s - shorter.start_s, 50 * t, 0.05 * 50 * t);
  EXPECT_NEAR(longer.finish_s - shorter.finish_s, 250 * t, 0.05 * 250 * t);
}

std::vector<JobSpec> random_jobs(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const ModelParams& model = any_model();
  std::vector<JobSpec> jobs;
  double at = 0;
  for (int i = 0; i < count; ++i) {
    at += static_cast<double>(rng() % 1000) / 100.0;
    const int gpus = 1 << (rng() % 4);  // 1, 2, 4, 8
    jobs.push_back(testing::make_job("j" + std::to_string(i), at, model, gpus,
                                     50 + static_cast<long long>(rng() % 2000)));
  }
  return jobs;
}

void expect_all_complete_without_overcommit(Policy& policy) {
  Cluster cluster(testing::test_cluster("sim-2x2x4-os2"));
  const std::vector<JobSpec> jobs = random_jobs(40, 11);
  const ReplayResult r = replay(cluster, jobs, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  int restarts = 0;
  for (const JobRecord& rec : r.jobs) {
    EXPECT_EQ(rec.state, FinalState::Completed) << rec.id << ": " << rec.reason;
    restarts += rec.restarts;
  }
  EXPECT_GT(restarts, 0) << "the scenario should exercise preemption";
}

TEST(Preemption, SrtfRandomWorkloadNeverOvercommits) {
  SrtfPolicy policy;
  expect_all_complete_without_overcommit(policy);
}

TEST(Preemption, TiresiasRandomWorkloadNeverOvercommits) {
  TiresiasParams params;
  params.thresholds_gpu_s = {100, 1000};
  params.promote_knob = 2;
  params.placement = "topology-aware";
  TiresiasPolicy policy(params);
  expect_all_complete_without_overcommit(policy);
}

}  // namespace
}  // namespace vnsim
