// Duration-to-work rule (docs/TRACES.md) on a tiny cluster built in code.
#include "vnsim/traces/work_assignment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "test_clusters.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

JobSpec trace_job(const std::string& id, int gpus, double duration_s) {
  JobSpec job;
  job.id = id;
  job.gpus = gpus;
  job.trace_duration_s = duration_s;
  return job;
}

void assign(std::vector<JobSpec>& jobs, const Cluster& cluster, std::uint64_t seed = 1) {
  assign_work(jobs, cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), seed);
}

// One reference-GPU micro-batch of the model's default local batch: the
// iteration time of a 1-GPU job (no all-reduce), by hand from the catalog.
double one_gpu_iteration_s(const std::string& model_name) {
  const ModelParams& m = ModelCatalog::builtin().at(model_name);
  const GpuType& ref = GpuCatalog::builtin().at(GpuCatalog::builtin().reference());
  return (m.alpha_compute_s + m.beta_compute_s * m.default_local_batch) / ref.speed_for(model_name);
}

TEST(ModelForGpuHours, PolluxBuckets) {
  for (const std::string id : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    const auto small = model_for_gpu_hours(0.99, 1, 7, id);
    EXPECT_TRUE(small == "cifar10" || small == "ncf") << small;
    EXPECT_EQ(model_for_gpu_hours(0.99, 2, 7, id), "cifar10") << "NCF is single-GPU only";
    for (double h : {1.0, 9.99}) {
      const auto mid = model_for_gpu_hours(h, 4, 7, id);
      EXPECT_TRUE(mid == "deepspeech2" || mid == "bert") << mid;
    }
    EXPECT_EQ(model_for_gpu_hours(10.0, 1, 7, id), "yolov3");
    EXPECT_EQ(model_for_gpu_hours(99.9, 8, 7, id), "yolov3");
    EXPECT_EQ(model_for_gpu_hours(100.0, 8, 7, id), "imagenet");
    EXPECT_EQ(model_for_gpu_hours(5000.0, 1, 7, id), "imagenet");
  }
}

TEST(ModelForGpuHours, HashSplitsRoughlyInHalfAndDependsOnSeed) {
  int ncf = 0, differs_by_seed = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string id = "philly-" + std::to_string(i);
    const auto m = model_for_gpu_hours(0.1, 1, 1, id);
    ncf += m == "ncf";
    differs_by_seed += m != model_for_gpu_hours(0.1, 1, 2, id);
    EXPECT_EQ(m, model_for_gpu_hours(0.1, 1, 1, id)) << "same seed and id give the same model";
  }
  EXPECT_GT(ncf, 900);
  EXPECT_LT(ncf, 1100);
  EXPECT_GT(differs_by_seed, 900);
  EXPECT_LT(differs_by_seed, 1100);
}

TEST(AssignWork, OneGpuJobByHand) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  JobSpec job = trace_job("j", 1, 0);
  job.model = "cifar10";
  const double t = one_gpu_iteration_s("cifar10");
  job.trace_duration_s = 1000.4 * t;
  std::vector<JobSpec> jobs = {job};
  jobs.push_back(jobs[0]);
  jobs[1].id = "k";
  jobs[1].trace_duration_s = 1000.6 * t;
  jobs.push_back(jobs[0]);
  jobs[2].id = "zero";
  jobs[2].trace_duration_s = 0;
  assign(jobs, cluster);
  EXPECT_EQ(jobs[0].iterations, 1000);
  EXPECT_EQ(jobs[1].iterations, 1001);
  EXPECT_EQ(jobs[2].iterations, 1) << "every job gets at least one iteration";
  EXPECT_EQ(jobs[0].virtual_nodes, 1);
  EXPECT_EQ(jobs[0].global_batch, ModelCatalog::builtin().at("cifar10").default_local_batch);
}

TEST(AssignWork, MultiGpuUsesConsolidatedPlacementOnTheEmptyCluster) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  const Topology topo(cluster);
  const ModelParams& bert = ModelCatalog::builtin().at("bert");
  std::vector<JobSpec> jobs = {trace_job("four", 4, 3600), trace_job("eight", 8, 3600)};
  for (auto& j : jobs) j.model = "bert";
  assign(jobs, cluster);
  // 4 GPUs fit node 0 (GPUs 0-3); 8 GPUs need both nodes.
  const double t4 = iteration_time(topo, GpuCatalog::builtin(), bert, spread_virtual_nodes({0, 1, 2, 3}, 4),
                                   4 * bert.default_local_batch)
                        .total_s;
  const double t8 =
      iteration_time(topo, GpuCatalog::builtin(), bert, spread_virtual_nodes({0, 1, 2, 3, 4, 5, 6, 7}, 8),
                     8 * bert.default_local_batch)
          .total_s;
  EXPECT_EQ(jobs[0].iterations, std::llround(3600 / t4));
  EXPECT_EQ(jobs[1].iterations, std::llround(3600 / t8));
  EXPECT_EQ(jobs[1].global_batch, 8 * bert.default_local_batch);
  EXPECT_EQ(jobs[1].virtual_nodes, 8);
  // Communication makes a multi-GPU iteration slower than the 1-GPU one.
  EXPECT_GT(t4, one_gpu_iteration_s("bert"));
}

TEST(AssignWork, JobsTheClusterCannotRunAreKeptWithAComputeOnlyEstimate) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  const double t = one_gpu_iteration_s("cifar10");
  std::vector<JobSpec> jobs = {trace_job("too-big", 9, 500 * t), trace_job("bad-type", 1, 300 * t)};
  for (auto& j : jobs) j.model = "cifar10";
  jobs[1].gpu_type = "NoSuchGpu";
  assign(jobs, cluster);
  ASSERT_EQ(jobs.size(), 2u);
  // One micro-batch of the default local batch per iteration, reference speed.
  EXPECT_EQ(jobs[0].iterations, 500);
  EXPECT_EQ(jobs[0].virtual_nodes, 9);
  EXPECT_EQ(jobs[1].iterations, 300);
}

TEST(AssignWork, ModelChosenByGpuHours) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  std::vector<JobSpec> jobs = {trace_job("small", 2, 1000),         // 0.56 GPU-h, 2 GPUs -> cifar10
                               trace_job("mid", 1, 5 * 3600.0),     // 5 GPU-h
                               trace_job("big", 4, 10 * 3600.0),    // 40 GPU-h
                               trace_job("huge", 8, 20 * 3600.0)};  // 160 GPU-h
  assign(jobs, cluster);
  EXPECT_EQ(jobs[0].model, "cifar10");
  EXPECT_TRUE(jobs[1].model == "deepspeech2" || jobs[1].model == "bert") << jobs[1].model;
  EXPECT_EQ(jobs[2].model, "yolov3");
  EXPECT_EQ(jobs[3].model, "imagenet");
  for (const auto& j : jobs) EXPECT_GE(j.iterations, 1) << j.id;
}

TEST(AssignWork, IndependentOfJobOrder) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 300; ++i)
    jobs.push_back(trace_job("j" + std::to_string(i), 1 << (i % 4), 60.0 * (i + 1)));
  std::vector<JobSpec> shuffled = jobs;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(3));
  assign(jobs, cluster, 11);
  assign(shuffled, cluster, 11);
  std::map<std::string, const JobSpec*> by_id;
  for (const auto& j : shuffled) by_id[j.id] = &j;
  for (const auto& j : jobs) {
    EXPECT_EQ(j.model, by_id.at(j.id)->model) << j.id;
    EXPECT_EQ(j.iterations, by_id.at(j.id)->iterations) << j.id;
  }
}

TEST(AssignWork, WorkloadJobsUseTheProfileTarget) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  auto workload_job = [](const std::string& model, int gpus, int batch) {
    JobSpec j;
    j.id = model;
    j.model = model;
    j.gpus = gpus;
    j.virtual_nodes = gpus;
    j.global_batch = batch;
    return j;
  };
  std::vector<JobSpec> jobs = {workload_job("cifar10", 6, 2048), workload_job("ncf", 1, 32768),
                               workload_job("bert", 2, 24)};
  assign(jobs, cluster);
  // The Pollux simulator's count: sum over epochs of the epoch's progress /
  // the gain (var + sqr) / (var / s + sqr) of the job's own batch (s = M / M0).
  // bert at 24 (s = 2), validation-24.csv: epoch 1 gain
  // (7.4125e15 + 8.2892e13) / (3.7063e15 + 8.2892e13) = 1.97810 over 7387 units
  // -> 3734.4 steps; epoch 2 gain (6.6634e13 + 2.1130e11) / (3.3317e13 + 2.1130e11)
  // = 1.99370 over 7387 units -> 3705.2 steps.
  EXPECT_EQ(jobs[2].iterations, 7440);
  // The same sum over 100 and 10 epochs (statistics interpolated in M where
  // the batch is not validated); samples / batch would give 2441 and 1517.
  EXPECT_EQ(jobs[0].iterations, 3343);
  EXPECT_EQ(jobs[1].iterations, 1552);
  EXPECT_EQ(model_target_samples("imagenet"), 576525.0 * 200);
  EXPECT_FALSE(model_target_samples("no-such-model"));
}

TEST(AssignWork, LeavesJobsThatAlreadyHaveWork) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  JobSpec j = trace_job("done", 2, 5000);
  j.model = "yolov3";
  j.iterations = 42;
  j.global_batch = 16;
  JobSpec no_info;
  no_info.id = "no-info";  // no duration, no model: nothing to derive work from
  std::vector<JobSpec> jobs = {j, no_info};
  assign(jobs, cluster);
  EXPECT_EQ(jobs[0].iterations, 42);
  EXPECT_EQ(jobs[0].model, "yolov3");
  EXPECT_EQ(jobs[0].global_batch, 16);
  EXPECT_EQ(jobs[0].virtual_nodes, 0);
  EXPECT_EQ(jobs[1].iterations, 0);
  EXPECT_TRUE(jobs[1].model.empty());
}

// A JSONL job with iterations and a model but no batch trains at the model's
// default batch (it was rejected with "global_batch must be > 0"); a given
// batch, an unknown model and a job without iterations are left as they are.
TEST(FillDefaultBatches, JobsWithIterationsButNoBatchGetTheModelsDefault) {
  const ModelCatalog& models = ModelCatalog::builtin();
  const int local = models.find("imagenet")->default_local_batch;
  JobSpec plain;
  plain.id = "plain";
  plain.gpus = 2;
  plain.model = "imagenet";
  plain.iterations = 100;
  JobSpec accumulating = plain;  // 3 virtual nodes per GPU
  accumulating.id = "accumulating";
  accumulating.virtual_nodes = 6;
  JobSpec given = plain;
  given.id = "given";
  given.global_batch = 96;
  JobSpec unknown = plain;
  unknown.id = "unknown";
  unknown.model = "no-such-model";
  JobSpec no_work = plain;
  no_work.id = "no-work";
  no_work.iterations = 0;
  std::vector<JobSpec> jobs = {plain, accumulating, given, unknown, no_work};
  fill_default_batches(jobs, models);
  EXPECT_EQ(jobs[0].global_batch, 2 * local);
  EXPECT_EQ(jobs[1].global_batch, 6 * local);
  EXPECT_EQ(jobs[2].global_batch, 96);
  EXPECT_EQ(jobs[3].global_batch, 0);
  EXPECT_EQ(jobs[4].global_batch, 0);
  EXPECT_EQ(jobs[0].virtual_nodes, 0);  // the default stays implicit
}

}  // namespace
}  // namespace vnsim
