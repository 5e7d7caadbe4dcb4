// VirtualFlow weighted fair share: shares and decisions computed by hand
// from the rules in vf_wfs_policy.hpp (VirtualFlow's WFS scheduler,
// andrewor14/models deploy/scheduler.py).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/vf_wfs_policy.hpp"

namespace vnsim {
namespace {

TEST(WfsShares, PowerOfTwoSharesWaterFillingAndLeftoverDoubling) {
  // 16 GPUs, weights 1, 5, 10, demand 8 each. Round 1: 16 x w / 16 = 1, 5,
  // 10 -> powers of 2: 1, 4, 8; the weight-10 job reaches its demand (8) and
  // is fixed, 8 GPUs left. Round 2 over weights 1 + 5: 8/6 = 1.33 -> 1 and
  // 40/6 = 6.67 -> 4; nobody reaches demand. Total 13, spare 3. Doubling by
  // weight: the 10 is at its demand; the 5 needs 4 more (> 3); the 1 doubles
  // to 2 (spare 2) and to 4 (spare 0).
  EXPECT_EQ(wfs_shares({{1, 8}, {5, 8}, {10, 8}}, 16), (std::vector<int>{4, 4, 8}));
}

TEST(WfsShares, DemandCapsAShareAndTheRestIsSharedAgain) {
  // 8 GPUs, equal weights, demands 3 and 8: 8/2 = 4 >= 3, so the first gets
  // 3; the second then gets floor_pow2(5) = 4. Spare 1 cannot double 4.
  EXPECT_EQ(wfs_shares({{1, 3}, {1, 8}}, 8), (std::vector<int>{3, 4}));
}

TEST(WfsShares, OversubscriptionHalvesTheLowestPriorityThatCanBeHalved) {
  // 4 GPUs, weights 10, 1, 1, 1: 40/13 = 3.08 -> 2, 4/13 -> minimum 1 each:
  // total 5 > 4. Only the weight-10 job has a share >= 2, so it is halved.
  EXPECT_EQ(wfs_shares({{10, 8}, {1, 8}, {1, 8}, {1, 8}}, 4), (std::vector<int>{1, 1, 1, 1}));
}

TEST(WfsShares, WhenEveryoneIsAtOneTheLatestLowestPriorityJobIsDropped) {
  // 5 jobs of weight 1 on 4 GPUs: 4/5 -> 1 each, total 5; nobody can be
  // halved, so the last in admission order gets 0.
  EXPECT_EQ(wfs_shares({{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}}, 4), (std::vector<int>{1, 1, 1, 1, 0}));
}

TEST(WfsShares, ARigidJobGetsItsWholeDemandOrNothing) {
  // 8 GPUs, equal weights, a rigid job of demand 5 and an elastic one of 8:
  // 8/2 = 4 < 5, so the rigid job gets 0 and is not fixed; the elastic one
  // gets 4. Spare 4 < 5 cannot start the rigid job; it doubles the elastic
  // one to 8.
  EXPECT_EQ(wfs_shares({{1, 5, true}, {1, 8}}, 8), (std::vector<int>{0, 8}));
  // 16 GPUs: 8 each; the rigid job reaches 5 and gets exactly 5.
  EXPECT_EQ(wfs_shares({{1, 5, true}, {1, 8}}, 16), (std::vector<int>{5, 8}));
  // Weights 10 and 1 on 8: 80/11 -> 4 < 5 -> 0, 8/11 -> 1. Spare 7 by
  // weight: the rigid job's 5 fits (spare 2), then the elastic one doubles
  // to 2 (spare 1).
  EXPECT_EQ(wfs_shares({{10, 5, true}, {1, 8}}, 8), (std::vector<int>{5, 2}));
}

TEST(WfsShares, NoJobsOrNoGpus) {
  EXPECT_TRUE(wfs_shares({}, 8).empty());
  EXPECT_EQ(wfs_shares({{1, 2}}, 0), (std::vector<int>{0}));
}

struct Fixture {
  // One node of 4 GPUs (ids 0-3) and a second node of 4 (ids 4-7).
  Cluster cluster{testing::test_cluster("v100-1x2x4")};
  Topology topology{cluster};
  ClusterView view{cluster, topology};
  std::vector<std::unique_ptr<JobSpec>> specs;

  const JobSpec& job(const std::string& id, int gpus, int virtual_nodes) {
    auto s = std::make_unique<JobSpec>();
    s->id = id;
    s->gpus = gpus;
    s->virtual_nodes = virtual_nodes;
    specs.push_back(std::move(s));
    return *specs.back();
  }
};

// An id whose drawn weight is `w` (the draw is a hash, so search for one).
std::string id_with_weight(const VfWfsPolicy& p, double w, const std::string& prefix) {
  for (int i = 0; i < 1000; ++i)
    if (p.weight_of(prefix + std::to_string(i)) == w) return prefix + std::to_string(i);
  ADD_FAILURE() << "no id with weight " << w;
  return prefix;
}

TEST(VfWfsPolicy, ANewJobOfEqualPriorityHalvesTheRunningOneInPlaceKeepingV) {
  Fixture f;
  VfWfsPolicy policy;
  const JobSpec& a = f.job("a", 8, 8);
  const JobSpec& b = f.job("b", 8, 8);
  const std::vector<GpuId> all = {0, 1, 2, 3, 4, 5, 6, 7};
  f.view.allocate(all, 0);
  SchedulerInput in;
  in.view = &f.view;
  in.running.push_back(RunningJob{0, &a, spread_virtual_nodes(all, 8), 0, 0, -1});
  in.queued.push_back(QueuedJob{1, &b});
  // Shares on 8 GPUs, equal weights: 4 + 4. a keeps the GPUs of the node it
  // has most on (a tie: the lowest ids, node 0) and b starts on node 1 with
  // V = 8 spread as 2 per GPU.
  const std::vector<Decision> d = policy.decide(in);
  ASSERT_EQ(d.size(), 2u);
  const auto& resize = std::get<ResizeJob>(d[0]);
  EXPECT_EQ(resize.job, 0u);
  EXPECT_EQ(resize.placement.gpus, (std::vector<GpuId>{0, 1, 2, 3}));
  EXPECT_EQ(resize.mode, ResizeMode::InPlace);
  EXPECT_EQ(resize.global_batch, 0);  // V and the batch stay as they are
  const auto& start = std::get<StartJob>(d[1]);
  EXPECT_EQ(start.job, 1u);
  EXPECT_EQ(start.placement.gpus, (std::vector<GpuId>{4, 5, 6, 7}));
  EXPECT_EQ(start.placement.vn_per_gpu, (std::vector<int>{2, 2, 2, 2}));
}

TEST(VfWfsPolicy, ALowerPriorityJobMayNotShrinkAHigherOne) {
  Fixture f;
  VfWfsParams params;
  params.priorities = {1, 10};
  VfWfsPolicy policy(params);
  const JobSpec& high = f.job(id_with_weight(policy, 10, "h"), 8, 8);
  const JobSpec& low = f.job(id_with_weight(policy, 1, "l"), 8, 8);
  const std::vector<GpuId> all = {0, 1, 2, 3, 4, 5, 6, 7};
  f.view.allocate(all, 0);
  SchedulerInput in;
  in.view = &f.view;
  in.running.push_back(RunningJob{0, &high, spread_virtual_nodes(all, 8), 0, 0, -1});
  in.queued.push_back(QueuedJob{1, &low});
  // With low admitted: 8 x 10/11 = 7.3 -> 4, 8/11 -> 1; spare 3: high
  // cannot double (needs 4), low doubles to 2 and then 4. High would drop
  // from 8 to 4, so low waits and nothing changes.
  EXPECT_TRUE(policy.decide(in).empty());
}

TEST(VfWfsPolicy, FreedGpusGrowARunningJobUpToItsDemand) {
  Fixture f;
  VfWfsParams params;
  params.mode = ResizeMode::CheckpointRestart;
  VfWfsPolicy policy(params);
  const JobSpec& a = f.job("a", 8, 8);
  f.view.allocate({0, 1}, 0);
  SchedulerInput in;
  in.view = &f.view;
  in.running.push_back(RunningJob{0, &a, spread_virtual_nodes({0, 1}, 8), 0, 0, -1});
  // Alone on 8 GPUs, a's share is its demand 8: it grows onto node 0 first,
  // then node 1, in the configured mode.
  const std::vector<Decision> d = policy.decide(in);
  ASSERT_EQ(d.size(), 1u);
  const auto& resize = std::get<ResizeJob>(d[0]);
  EXPECT_EQ(resize.placement.gpus, (std::vector<GpuId>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(resize.mode, ResizeMode::CheckpointRestart);
}

TEST(VfWfsPolicy, DemandIsCappedByTheVirtualNodes) {
  Fixture f;
  VfWfsPolicy policy;
  const JobSpec& a = f.job("a", 8, 2);  // V = 2: never more than 2 GPUs
  SchedulerInput in;
  in.view = &f.view;
  in.queued.push_back(QueuedJob{0, &a});
  const std::vector<Decision> d = policy.decide(in);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(std::get<StartJob>(d[0]).placement.gpus.size(), 2u);
}

// A parameter-server job (1 server + 4 workers) runs only on its 5 GPUs:
// vf-wfs must not shrink it to a power of 2 (the engine would stop with
// "placement has 4 GPUs, job requests 5").
TEST(VfWfsPolicy, ARunningParameterServerJobKeepsItsGpus) {
  Fixture f;
  VfWfsPolicy policy;
  f.job("p", 5, 5);
  f.specs.back()->ps.servers = 1;
  const JobSpec& ps = *f.specs.back();
  const JobSpec& b = f.job("b", 8, 8);
  const std::vector<GpuId> held = {0, 1, 2, 3, 4};
  f.view.allocate(held, 0);
  SchedulerInput in;
  in.view = &f.view;
  in.running.push_back(RunningJob{0, &ps, spread_virtual_nodes(held, 5), 0, 0, -1});
  in.queued.push_back(QueuedJob{1, &b});
  // p is outside the sharing; b shares the 3 free GPUs alone:
  // floor_pow2(3) = 2, and 2 more cannot double it.
  const std::vector<Decision> d = policy.decide(in);
  ASSERT_EQ(d.size(), 1u);
  const auto& start = std::get<StartJob>(d[0]);
  EXPECT_EQ(start.job, 1u);
  EXPECT_EQ(start.placement.gpus.size(), 2u);
}

TEST(VfWfsPolicy, AQueuedParameterServerJobWaitsForItsWholeDemand) {
  Fixture f;
  VfWfsPolicy policy;
  const JobSpec& a = f.job("a", 8, 8);
  f.job("p", 5, 5);
  f.specs.back()->ps.servers = 1;
  const JobSpec& ps = *f.specs.back();
  const std::vector<GpuId> all = {0, 1, 2, 3, 4, 5, 6, 7};
  f.view.allocate(all, 0);
  SchedulerInput in;
  in.view = &f.view;
  in.running.push_back(RunningJob{0, &a, spread_virtual_nodes(all, 8), 0, 0, -1});
  in.queued.push_back(QueuedJob{1, &ps});
  // Equal weights on 8: a 4, p 4 < 5 -> 0; the spare 4 doubles a back to 8
  // and p's 5 does not fit: p is not admitted and a keeps its 8 GPUs.
  EXPECT_TRUE(policy.decide(in).empty());
}

TEST(VfWfsPolicy, RegistryParamsAreCheckedWithTheirName) {
  EXPECT_EQ(make_policy("vf-wfs", {{"priorities", "1,5,10"}, {"mode", "checkpoint-restart"}})->name(),
            "vf-wfs");
  try {
    make_policy("vf-wfs", {{"mode", "sideways"}});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'mode'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_policy("vf-wfs", {{"priorities", "1,0"}}), InputError);
}

TEST(VfWfsPolicy, RejectsNonPositivePriorities) {
  VfWfsParams params;
  params.priorities = {1, 0};
  EXPECT_THROW(VfWfsPolicy{params}, std::invalid_argument);
}

}  // namespace
}  // namespace vnsim
