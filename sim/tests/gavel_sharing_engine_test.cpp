// Gavel with space sharing in the engine: the pair the LP chooses runs on
// half of one GPU each at the interference table's rate, the allocation log
// never over-commits a GPU, and every job completes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "allocation_log_check.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/interference.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/policies/gavel_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

double iteration_s(const Cluster& cluster, const JobSpec& job) {
  const Topology topo(cluster);
  std::vector<GpuId> gpus;
  for (int g = 0; g < job.gpus; ++g) gpus.push_back(g);
  return iteration_time(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(job.model),
                        spread_virtual_nodes(gpus, job.effective_virtual_nodes()), job.global_batch)
      .total_s;
}

JobSpec job_of(const std::string& id, double submit_s, const std::string& model, int gpus, double work_s,
               const Cluster& cluster) {
  JobSpec j = testing::make_job(id, submit_s, ModelCatalog::builtin().at(model), gpus, 1);
  j.iterations = static_cast<long long>(std::round(work_s / iteration_s(cluster, j)));
  return j;
}

ReplayResult replay_gavel(const Cluster& cluster, const std::vector<JobSpec>& jobs,
                          GavelObjective objective = GavelObjective::MaxMinFairness) {
  GavelParams params;
  params.objective = objective;
  params.space_sharing = true;
  GavelPolicy policy(params);
  return run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
}

// Two ResNet-18 jobs (cifar10) on one V100 keep f = 0.8966 each together:
// the LP pairs them from t = 0, half the GPU each. b (600 alone-seconds)
// ends at eB = Wb / f; a has then done f eB of its Wa and runs the rest alone
// on its half (full speed: nobody else is there), keeping its GPU at the
// next round: eA = eB + Wa - f eB.
TEST(GavelSharingEngine, AChosenPairSharesOneGpuAtTheTableRate) {
  const double f = InterferenceTable::builtin().fraction("V100", "ResNet-18", "ResNet-18");
  ASSERT_DOUBLE_EQ(f, 0.8966);
  const Cluster cluster(testing::test_cluster("sim-v100-1x1x1"));
  const std::vector<JobSpec> jobs = {job_of("a", 0, "cifar10", 1, 1000, cluster),
                                     job_of("b", 0, "cifar10", 1, 600, cluster)};
  const ReplayResult r = replay_gavel(cluster, jobs);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;
  ASSERT_EQ(r.allocations.size(), 4u);  // two starts at 0, two releases at the ends
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(r.allocations[i].taken);
    EXPECT_DOUBLE_EQ(r.allocations[i].time_s, 0);
    EXPECT_EQ(r.allocations[i].milli, 500);
  }
  const double t = iteration_s(cluster, jobs[0]);
  const double wa = static_cast<double>(jobs[0].iterations) * t;
  const double wb = static_cast<double>(jobs[1].iterations) * t;
  const double eb = wb / f;
  const double ea = eb + wa - f * eb;
  EXPECT_NEAR(r.jobs[1].finish_s, eb, 1e-9 * eb);
  EXPECT_NEAR(r.jobs[0].finish_s, ea, 1e-9 * ea);
  EXPECT_EQ(r.jobs[0].restarts, 0);
  EXPECT_EQ(r.jobs[1].restarts, 0);
}

// A busier mix on two V100s: 1- and 2-GPU jobs of four families arriving
// over time, so pairs are formed, broken at rounds and re-formed. Every
// job completes, no GPU is ever over-committed and some pair shares GPUs,
// under each objective (the round mechanism does not depend on it).
void expect_mix_completes(GavelObjective objective) {
  const Cluster cluster(testing::test_cluster("sim-v100-1x1x2"));
  const std::vector<JobSpec> jobs = {
      job_of("r18-a", 0, "cifar10", 1, 900, cluster),    job_of("r18-b", 0, "cifar10", 1, 1200, cluster),
      job_of("r50", 30, "imagenet", 1, 800, cluster),    job_of("bert", 100, "bert", 1, 700, cluster),
      job_of("ncf", 400, "ncf", 1, 500, cluster),        job_of("r18-2a", 500, "cifar10", 2, 600, cluster),
      job_of("r18-2b", 500, "cifar10", 2, 900, cluster), job_of("ds2", 900, "deepspeech2", 1, 400, cluster)};
  const ReplayResult r = replay_gavel(cluster, jobs, objective);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  for (const auto& j : r.jobs) EXPECT_EQ(j.state, FinalState::Completed) << j.reason;
  std::set<JobIndex> shared;
  for (const auto& a : r.allocations)
    if (a.taken && a.milli == 500) shared.insert(a.job);
  EXPECT_GE(shared.size(), 2u);
}

// One replay per test: one SimGrid engine per process.
TEST(GavelSharingEngine, AMixOfJobsCompletesWithoutOverCommitment) {
  expect_mix_completes(GavelObjective::MaxMinFairness);
}

TEST(GavelSharingEngine, AMixCompletesUnderMakespan) {
  expect_mix_completes(GavelObjective::Makespan);
}

TEST(GavelSharingEngine, AMixCompletesUnderFinishTimeFairness) {
  expect_mix_completes(GavelObjective::FinishTimeFairness);
}

}  // namespace
}  // namespace vnsim
