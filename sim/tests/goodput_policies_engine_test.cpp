// Pollux, Sia and Optimus through the engine: their resizes (checkpoint-
// restart moves, in-place batch changes) are accepted, no GPU is
// over-committed and every job completes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "allocation_log_check.hpp"
#include "sim_test_support.hpp"
#include "vnsim/policies/optimus_policy.hpp"
#include "vnsim/policies/pollux_policy.hpp"
#include "vnsim/policies/sia_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

std::vector<JobSpec> mixed_jobs(int count, std::uint64_t seed) {
  const std::vector<std::string> models = {"cifar10", "imagenet", "yolov3", "deepspeech2", "bert"};
  std::mt19937_64 rng(seed);
  std::vector<JobSpec> jobs;
  double at = 0;
  for (int i = 0; i < count; ++i) {
    at += static_cast<double>(rng() % 6000) / 100.0;
    const ModelParams& model =
        ModelCatalog::builtin().at(models[static_cast<std::size_t>(i) % models.size()]);
    const int gpus = 1 << (rng() % 3);  // 1, 2, 4
    jobs.push_back(testing::make_job("j" + std::to_string(i), at, model, gpus,
                                     300 + static_cast<long long>(rng() % 3000)));
  }
  return jobs;
}

void expect_all_complete(Policy& policy) {
  const Cluster cluster(testing::small_spec(1, 2, 4, 1.0));
  const std::vector<JobSpec> jobs = mixed_jobs(12, 5);
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  testing::expect_no_overcommit(r, cluster.gpu_count());
  int restarts = 0;
  for (const JobRecord& rec : r.jobs) {
    EXPECT_EQ(rec.state, FinalState::Completed) << rec.id << ": " << rec.reason;
    restarts += rec.restarts;
  }
  EXPECT_GT(restarts, 0) << "the scenario should exercise resizes";
}

TEST(GoodputPoliciesEngine, PolluxCompletesEveryJob) {
  PolluxParams params;
  params.seed = 3;
  PolluxPolicy policy(params);
  expect_all_complete(policy);
}

TEST(GoodputPoliciesEngine, SiaCompletesEveryJob) {
  SiaPolicy policy;
  expect_all_complete(policy);
}

TEST(GoodputPoliciesEngine, OptimusCompletesEveryJob) {
  OptimusPolicy policy;
  expect_all_complete(policy);
}

}  // namespace
}  // namespace vnsim
