// Optimus and Pollux on small clusters of T4 nodes (the Pollux testbed GPU,
// so the catalog's step times apply unscaled).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "goodput_test_world.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/optimus_policy.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim {
namespace {

using testing::describe;
using testing::job;
using testing::World;

TEST(Optimus, GivesGpusToTheLargestRemainingTimeReduction) {
  // One node of 4 T4, two cifar10 jobs at batch 128. Per-iteration time on
  // K GPUs: (0.01775 + 0.000664 x 128/K) + ring sync of 44.7 MB
  // (2(K-1) x (2 us + 44.7 MB / K / 15.75 GB/s)):
  //   t1 = 0.1027, t2 = 0.0602 + 0.0028 = 0.0631,
  //   t3 = 0.0461 + 0.0038 = 0.0499, t4 = 0.0390 + 0.0043 = 0.0433.
  // Both start with 1 GPU. Gains for the 3rd GPU: A (1000 iterations left)
  // 1000 x (t1 - t2) = 39.6, B (10 left) 10 x 0.0396 = 0.40 -> A. For the
  // 4th: A 1000 x (t2 - t3) = 13.2 vs B 0.40 -> A. So A = 3, B = 1.
  World w(1);
  OptimusPolicy p;
  p.estimator().use_topology(w.topology);
  const JobSpec a = job("a", "cifar10", 128, 1000);
  const JobSpec b = job("b", "cifar10", 128, 10);
  EXPECT_EQ(p.allocate({{&a, 1000}, {&b, 10}}, 4, 4, "T4"), (std::vector<int>{3, 1}));
  EXPECT_EQ(p.allocate({{&a, 10}, {&b, 1000}}, 4, 4, "T4"), (std::vector<int>{1, 3}));
  // Two GPUs: one each, whatever the remaining work.
  EXPECT_EQ(p.allocate({{&a, 1000}, {&b, 10}}, 2, 4, "T4"), (std::vector<int>{1, 1}));
  // One GPU: the earlier job.
  EXPECT_EQ(p.allocate({{&a, 10}, {&b, 1000}}, 1, 4, "T4"), (std::vector<int>{1, 0}));
}

TEST(Optimus, StartsJobsPackedAndWaitsForTheNextRound) {
  World w(1);
  OptimusPolicy p;
  const std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 1000), job("b", "cifar10", 128, 10)};
  const auto ds = p.decide(w.input(0, jobs));
  // b (1 GPU) is placed first (smallest first), then a on the other 3;
  // batch 128 over 3 GPUs needs no accumulation (42.7 <= 1024 per GPU).
  EXPECT_EQ(describe(ds), "1 start 0x1;0 start 1x1 2x1 3x1;");
  EXPECT_TRUE(p.decide(w.input(30, jobs)).empty());  // inside the 60 s round
  EXPECT_EQ(p.next_timer_s(30), 60);
}

TEST(Pollux, SameSeedSameDecisions) {
  World w(2);
  const std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 5000), job("b", "imagenet", 200, 5000),
                                     job("c", "yolov3", 8, 5000), job("d", "bert", 12, 5000)};
  PolluxParams params;
  params.seed = 7;
  PolluxPolicy p1(params);
  PolluxPolicy p2(params);
  const std::string d1 = describe(p1.decide(w.input(0, jobs)));
  EXPECT_EQ(d1, describe(p2.decide(w.input(0, jobs))));
  EXPECT_FALSE(d1.empty());
  // Every job got GPUs: 4 jobs on 8 GPUs, and a job left out would pull the
  // harmonic mean down to ~1e-3.
  EXPECT_EQ(p1.last_round().size(), 4u);
}

TEST(Pollux, BatchGrowsAsTrainingProgresses) {
  // One cifar10 job alone on one 4-GPU node. Its noise scale grows from
  // phi = 72 (first epoch) to ~5e3 at mid-training (M0 * grad_var / grad_sqr
  // of the Pollux artifact's cifar10 validation-128.csv, computed), so
  // once the policy's progress estimate has advanced the goodput-optimal
  // batch on the same GPUs is larger, and it is changed in place.
  World w(1);
  PolluxPolicy p;
  std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 39062)};
  const auto first = p.decide(w.input(0, jobs));
  ASSERT_EQ(p.last_round().count(0), 1u);
  const PolluxPolicy::Chosen start = p.last_round().at(0);
  EXPECT_GE(start.batch.global_batch, 128);
  ASSERT_FALSE(first.empty());
  const auto* s = std::get_if<StartJob>(&first.front());
  ASSERT_NE(s, nullptr);
  // The job now runs on what Pollux gave it.
  SchedulerInput later = w.running_job_0(3000, jobs, *s);
  p.decide(later);
  EXPECT_GT(p.progress_of(0), 1000);
  ASSERT_EQ(p.last_round().count(0), 1u);
  EXPECT_GT(p.last_round().at(0).batch.global_batch, start.batch.global_batch);
}

TEST(Pollux, WithoutAdaptiveBatchEveryJobKeepsItsOwnBatch) {
  // As above, but adaptive_batch = 0: the job starts and stays at its trace
  // batch of 128 (no in-place batch change later), and the policy's rate
  // uses that batch's statistical efficiency, so its progress estimate
  // still advances.
  World w(1);
  PolluxParams params;
  params.adaptive_batch = false;
  PolluxPolicy p(params);
  std::vector<JobSpec> jobs = {job("a", "cifar10", 128, 39062)};
  const auto first = p.decide(w.input(0, jobs));
  ASSERT_EQ(p.last_round().count(0), 1u);
  EXPECT_EQ(p.last_round().at(0).batch.global_batch, 128);
  ASSERT_EQ(first.size(), 1u);
  const auto* s = std::get_if<StartJob>(&first.front());
  ASSERT_NE(s, nullptr);
  SchedulerInput later = w.running_job_0(3000, jobs, *s);
  EXPECT_TRUE(p.decide(later).empty());
  EXPECT_GT(p.progress_of(0), 1000);
  EXPECT_EQ(p.last_round().at(0).batch.global_batch, 128);
}

TEST(Pollux, GrowthLimitDoublesTheMostGpusAJobHasRunOn) {
  // One imagenet job alone on 16 T4 (4 nodes): it scales well, so without a
  // limit Pollux gives it more than 2 GPUs at once. With growth_limit = 2 it
  // starts on max(1, 2 x 0) = 1 GPU, may then take 2 x 1 = 2, then 2 x 2 = 4.
  World free_world(4);
  const std::vector<JobSpec> jobs = {job("a", "imagenet", 200, 500000)};
  PolluxPolicy unlimited;
  unlimited.decide(free_world.input(0, jobs));
  ASSERT_EQ(unlimited.last_round().count(0), 1u);
  EXPECT_GT(unlimited.last_round().at(0).gpus, 2);

  World w(4);
  PolluxParams params;
  params.growth_limit = 2;
  PolluxPolicy p(params);
  const auto first = p.decide(w.input(0, jobs));
  ASSERT_EQ(first.size(), 1u);
  const auto* start = std::get_if<StartJob>(&first.front());
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->placement.gpus.size(), 1u);
  int expected = 2;
  StartJob now_on = *start;
  for (double t : {600.0, 1200.0}) {
    SchedulerInput later = w.running_job_0(t, jobs, now_on);
    const auto next = p.decide(later);
    ASSERT_EQ(next.size(), 1u) << "at " << t;
    const auto* resize = std::get_if<ResizeJob>(&next.front());
    ASSERT_NE(resize, nullptr) << "at " << t;
    EXPECT_EQ(static_cast<int>(resize->placement.gpus.size()), expected) << "at " << t;
    w.view.release(now_on.placement.gpus, 0);
    now_on.placement = resize->placement;
    expected *= 2;
  }
  PolluxParams negative;
  negative.growth_limit = -1;
  EXPECT_THROW(PolluxPolicy{negative}, InputError);
}

TEST(GoodputEstimator, FixedBatchGoodputIsThroughputTimesEfficiencyOfTheOwnBatch) {
  // cifar10 at batch 128 on 2 T4 of one node: local batch 64, no
  // accumulation; goodput = 128 / iteration time x (phi + M0) / (phi + 128)
  // at the job's progress. Beyond 128 GPUs the batch cannot be split.
  World w(1);
  GoodputEstimator e;
  e.use_topology(w.topology);
  const JobSpec a = job("a", "cifar10", 128, 1000);
  const NoiseScaleProfile* noise = e.noise(a);
  ASSERT_NE(noise, nullptr);
  const double phi = noise->phi_at(500);
  const double m0 = noise->initial_batch;
  const BatchChoice c = e.fixed_batch_goodput(a, "T4", 500, 1, 2);
  EXPECT_EQ(c.global_batch, 128);
  EXPECT_EQ(c.accumulation_steps, 0);
  EXPECT_EQ(c.local_batch, 64);
  EXPECT_NEAR(c.efficiency, (phi + m0) / (phi + 128), 1e-12);
  EXPECT_NEAR(c.goodput, 128 / c.iteration_s * c.efficiency, 1e-9);
  EXPECT_EQ(e.fixed_batch_goodput(job("b", "cifar10", 2, 10), "T4", 0, 1, 4).goodput, 0);
}

TEST(GoodputEstimator, MemoisedBestEqualsAFreshEstimateInEveryEpoch) {
  // One estimator asked in turn across cifar10's epochs (and back), against
  // a fresh estimator per question: the memo per epoch must give the very
  // same choice, and a new epoch a new one.
  World w(4);
  const JobSpec j = job("a", "cifar10", 128, 39062);
  const NoiseScaleProfile* noise = NoiseScaleCatalog::builtin().find("cifar10");
  ASSERT_NE(noise, nullptr);
  ASSERT_GE(noise->epoch_end.size(), 3u);
  GoodputEstimator memo;
  memo.use_topology(w.topology);
  std::vector<double> progress;
  for (std::size_t e = 0; e < 3; ++e) {
    const double lo = e == 0 ? 0.0 : noise->epoch_end[e - 1];
    progress.push_back(lo);
    progress.push_back(0.5 * (lo + noise->epoch_end[e]));
  }
  progress.push_back(noise->epoch_end.back() * 2);
  progress.push_back(progress[1]);  // back to the first epoch
  int distinct = 0;
  double last_goodput = -1;
  for (double x : progress)
    for (const auto& [nodes, gpus] : std::vector<std::pair<int, int>>{{1, 1}, {1, 4}, {2, 8}, {4, 16}}) {
      GoodputEstimator fresh;
      fresh.use_topology(w.topology);
      const BatchChoice a = memo.best(j, "T4", x, nodes, gpus);
      const BatchChoice b = fresh.best(j, "T4", x, nodes, gpus);
      EXPECT_EQ(a.goodput, b.goodput) << x << " " << nodes << " " << gpus;
      EXPECT_EQ(a.global_batch, b.global_batch);
      EXPECT_EQ(a.accumulation_steps, b.accumulation_steps);
      EXPECT_EQ(a.iteration_s, b.iteration_s);
      if (nodes == 1 && gpus == 4 && a.goodput != last_goodput) {
        ++distinct;
        last_goodput = a.goodput;
      }
    }
  EXPECT_GE(distinct, 3);  // the epochs do differ
}

TEST(GoodputEstimator, RingsOnAnyGpuTypeMayUseTheLargerNodesOfAnotherType) {
  // K80s sit 2 per node: 8 of them on one node do not exist, unless the
  // ring may lie on any type's GPUs (Pollux, Optimus), where it is the ring
  // over the P40 node's 8 GPUs.
  World w(testing::test_cluster("pcie-k80-p40"));
  GoodputEstimator e;
  e.use_topology(w.topology);
  const ModelParams& m = e.model(job("a", "imagenet", 200, 1));
  EXPECT_TRUE(std::isinf(e.sync_s(m, "K80", 1, 8)));
  EXPECT_TRUE(std::isfinite(e.sync_s(m, "K80", 2, 4)));  // 2 + 2 on the two K80 nodes
  e.rings_on_any_gpu_type(true);
  EXPECT_EQ(e.sync_s(m, "K80", 1, 8), e.sync_s(m, "P40", 1, 8));
  EXPECT_GT(e.sync_s(m, "K80", 1, 8), 0);
}

TEST(Pollux, UsesMoreGpusPerNodeThanItsFirstTypesNodesHold) {
  // One imagenet job on 2 x 2 K80 + 1 x 8 P40. Pollux prices every GPU as
  // a K80; before its rings could lie on any type it could put at most 2
  // GPUs on a node (it took 2 + 2 on two nodes).
  World w(testing::test_cluster("pcie-k80-p40"));
  PolluxPolicy p;
  const std::vector<JobSpec> jobs = {job("a", "imagenet", 200, 100000)};
  p.decide(w.input(0, jobs));
  ASSERT_EQ(p.last_round().count(0), 1u);
  const PolluxPolicy::Chosen& c = p.last_round().at(0);
  EXPECT_GT(c.gpus, 2 * c.nodes);
}

// "" when every start and resize of `ds` fits the memory of each of its
// GPUs (the engine's check: the model's memory at batch / virtual nodes),
// else the first that does not. A start runs the job's own batch; a resize
// its new one; a start followed by a resize of the same job in the same
// round is checked at the resize's batch.
std::string memory_misfits(const World& w, const std::vector<JobSpec>& jobs,
                           const std::vector<Decision>& ds) {
  const GpuCatalog& gpus = GpuCatalog::builtin();
  std::map<JobIndex, std::pair<Placement, int>> final_of;  // job -> (placement, batch)
  for (const Decision& d : ds) {
    if (const auto* s = std::get_if<StartJob>(&d))
      final_of[s->job] = {s->placement, jobs[s->job].global_batch};
    if (const auto* r = std::get_if<ResizeJob>(&d))
      final_of[r->job] = {r->placement, r->global_batch > 0 ? r->global_batch : jobs[r->job].global_batch};
  }
  for (const auto& [job, pb] : final_of) {
    const auto& [placement, batch] = pb;
    int vn = 0;
    for (int v : placement.vn_per_gpu) vn += v;
    const double needed =
        ModelCatalog::builtin().at(jobs[job].model).memory_needed_bytes(static_cast<double>(batch) / vn);
    for (GpuId g : placement.gpus)
      if (needed > gpus.at(w.cluster.gpu(g).type).memory_bytes)
        return "job " + std::to_string(job) + " on GPU " + std::to_string(g) + " (" + w.cluster.gpu(g).type +
               ") at batch " + std::to_string(batch) + " over " + std::to_string(vn) + " virtual nodes";
  }
  return "";
}

TEST(Optimus, ChoosesAccumulationForTheSmallestMemoryGpuOfThePlacement) {
  // One imagenet job whose batch is 4 x the V100's largest local batch: on
  // 4 V100 it needs no accumulation, but its 4 GPUs are 2 V100 + 2 K80, and
  // a K80 holds a smaller local batch, so each GPU must accumulate. Priced
  // as the first type (V100) it ran 1 virtual node per GPU and overfilled
  // the K80s.
  // One node of 2 V100 (16 GiB) first, then one of 2 K80 (12 GiB): the first
  // type has the most memory (Gavel's simulated cluster lists V100 first).
  World w(testing::test_cluster("pcie-v100-k80-1x2x2"));
  OptimusPolicy p;
  p.estimator().use_topology(w.topology);
  const JobSpec probe = job("a", "imagenet", 1, 1);
  const int v100_local = p.estimator().max_local_batch(probe, "V100");
  ASSERT_GT(v100_local, p.estimator().max_local_batch(probe, "K80"));
  const std::vector<JobSpec> jobs = {job("a", "imagenet", 4 * v100_local, 100000)};
  const auto ds = p.decide(w.input(0, jobs));
  ASSERT_EQ(ds.size(), 1u) << describe(ds);
  EXPECT_EQ(std::get<StartJob>(ds[0]).placement.gpus.size(), 4u) << describe(ds);
  EXPECT_EQ(memory_misfits(w, jobs, ds), "") << describe(ds);
}

TEST(Pollux, ChoosesEachBatchForTheSmallestMemoryGpuOfItsAllocation) {
  // Four bert jobs on 2 V100 + 2 K80: one GPU each, so two run on K80s.
  // Priced as the first type (V100), a K80 job was given batch 12 on one
  // virtual node, which a V100 holds and a K80 does not. Priced as the K80,
  // its micro-batch fits the K80.
  World w(testing::test_cluster("pcie-v100-k80-1x2x2"));
  PolluxPolicy p;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back(job("j" + std::to_string(i), "bert", 32, 1000000));
  const auto ds = p.decide(w.input(0, jobs));
  ASSERT_EQ(p.last_round().size(), 4u) << describe(ds);
  EXPECT_EQ(memory_misfits(w, jobs, ds), "") << describe(ds);
}

TEST(Pollux, GreedySeedUsesTheGpusTheCappedSearchLeavesIdle) {
  // 200 queued cifar10 jobs on 625 nodes x 4 T4 (2,500 GPUs): the search
  // runs 100 generations (2e6 / (100 x 200)), too few for a genetic child
  // carrying ~60 random row changes to grow many jobs: each job keeps the
  // one GPU of the fill seed (200 GPUs in all). The greedy seed hands out
  // GPUs while a job's speedup still rises: all 2,500.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 200; ++i) jobs.push_back(job("j" + std::to_string(i), "cifar10", 128, 100000, i));
  auto total = [](const PolluxPolicy& p) {
    int gpus = 0;
    for (const auto& [j, c] : p.last_round()) gpus += c.gpus;
    return gpus;
  };
  World plain_world(625);
  PolluxParams plain_params;
  plain_params.greedy_seed = false;
  PolluxPolicy plain(plain_params);
  plain.decide(plain_world.input(0, jobs));
  World w(625);
  PolluxPolicy seeded;
  seeded.decide(w.input(0, jobs));
  EXPECT_EQ(seeded.last_round().size(), 200u);
  EXPECT_GT(total(seeded), 2 * total(plain));
  EXPECT_EQ(total(seeded), 2500);  // cifar10's speedup still rises at 12-13 GPUs
}

}  // namespace
}  // namespace vnsim
