// why_infeasible: one test per reason, on a 4-GPU cluster (2 T4 + 2 K80 of
// the built-in catalog, tests/clusters/pcie-t4-k80-1x2x2.json) and a model
// whose memory is easy to count by hand: 1 GiB of weights and state plus
// 1 GiB per sample.
#include "vnsim/core/feasibility.hpp"

#include <gtest/gtest.h>

#include "test_clusters.hpp"

namespace vnsim {
namespace {

ModelCatalog gib_model() {
  return ModelCatalog::parse(R"({"models": {"m": {"alpha_compute_s": 0.1, "beta_compute_s": 0.01,
      "gradient_bytes": 1e6, "weight_state_bytes": 1073741824, "memory_per_sample_bytes": 1073741824,
      "min_local_batch": 1, "max_local_batch": 15, "default_local_batch": 8, "initial_batch": 8,
      "max_global_batch": 64, "overlap_gamma": 1}}})",
                             "test-models");
}

class Feasibility : public ::testing::Test {
 protected:
  // Fits: 2 GPUs, micro-batch 8 / 2 = 4 samples -> 5 GiB.
  JobSpec job() const {
    JobSpec j;
    j.id = "j1";
    j.model = "m";
    j.gpus = 2;
    j.global_batch = 8;
    j.iterations = 100;
    return j;
  }
  std::optional<std::string> why(const JobSpec& j) const {
    return why_infeasible(j, cluster, GpuCatalog::builtin(), models);
  }

  Cluster cluster{testing::test_cluster("pcie-t4-k80-1x2x2")};
  ModelCatalog models = gib_model();
};

TEST_F(Feasibility, FittingJobHasNoReason) {
  EXPECT_EQ(why(job()), std::nullopt);
}

TEST_F(Feasibility, GpuShareAboveOneGpu) {
  JobSpec j = job();
  j.gpu_milli = 1001;
  EXPECT_EQ(why(j), "requests gpu_milli 1001 per GPU, must be 0 (whole GPUs) or 1..1000");
  j.gpu_milli = -5;
  EXPECT_EQ(why(j), "requests gpu_milli -5 per GPU, must be 0 (whole GPUs) or 1..1000");
  j.gpu_milli = 1000;
  EXPECT_EQ(why(j), std::nullopt);
  j.gpu_milli = 250;
  EXPECT_EQ(why(j), std::nullopt);
}

TEST_F(Feasibility, EmptyId) {
  JobSpec j = job();
  j.id = "";
  EXPECT_EQ(why(j), "job id is empty");
}

TEST_F(Feasibility, NoGpus) {
  JobSpec j = job();
  j.gpus = 0;
  EXPECT_EQ(why(j), "requests 0 GPUs, must be >= 1");
}

TEST_F(Feasibility, FewerVirtualNodesThanGpus) {
  JobSpec j = job();
  j.virtual_nodes = 1;
  EXPECT_EQ(why(j), "virtual_nodes (1) must be >= gpus (2)");
  j.virtual_nodes = 0;  // unset means V = gpus
  EXPECT_EQ(why(j), std::nullopt);
}

TEST_F(Feasibility, NoIterations) {
  JobSpec j = job();
  j.iterations = 0;
  EXPECT_EQ(why(j), "iterations must be > 0");
}

TEST_F(Feasibility, NoGlobalBatch) {
  JobSpec j = job();
  j.global_batch = 0;
  EXPECT_EQ(why(j), "global_batch must be > 0");
}

TEST_F(Feasibility, UnknownModel) {
  JobSpec j = job();
  j.model = "foo";
  EXPECT_EQ(why(j), "unknown model 'foo'");
}

TEST_F(Feasibility, UnknownGpuType) {
  JobSpec j = job();
  j.gpu_type = "Z100";
  EXPECT_EQ(why(j), "unknown GPU type 'Z100'");
}

TEST_F(Feasibility, GpuTypeNotInCluster) {
  JobSpec j = job();
  j.gpu_type = "A100";
  EXPECT_EQ(why(j), "GPU type 'A100' not in cluster");
}

TEST_F(Feasibility, TooManyGpusOfTheType) {
  JobSpec j = job();
  j.gpu_type = "T4";
  j.gpus = 3;
  EXPECT_EQ(why(j), "requests 3 GPUs of type T4, cluster has 2");
}

TEST_F(Feasibility, TooManyGpus) {
  JobSpec j = job();
  j.gpus = 5;
  EXPECT_EQ(why(j), "requests 5 GPUs, cluster has 4");
  j.gpus = 4;
  EXPECT_EQ(why(j), std::nullopt);
}

TEST_F(Feasibility, MicroBatchLargerThanTheLargestGpu) {
  // 32 / 2 = 16 samples -> 17 GiB; the largest type in the cluster is the
  // 16 GiB T4.
  JobSpec j = job();
  j.global_batch = 32;
  EXPECT_EQ(why(j), "needs 17.0 GiB per GPU, largest allowed GPU (T4) has 16.0 GiB");
  // Twice the virtual nodes halve the micro-batch: 8 samples -> 9 GiB.
  j.virtual_nodes = 4;
  EXPECT_EQ(why(j), std::nullopt);
}

TEST_F(Feasibility, MemoryIsCheckedOnTheConstrainedType) {
  // 24 / 2 = 12 samples -> 13 GiB: fits a T4, not a 12 GiB K80.
  JobSpec j = job();
  j.global_batch = 24;
  j.gpu_type = "K80";
  EXPECT_EQ(why(j), "needs 13.0 GiB per GPU, largest allowed GPU (K80) has 12.0 GiB");
  j.gpu_type = "T4";
  EXPECT_EQ(why(j), std::nullopt);
}

// memory_per_sample_bytes is derived so that the largest profiled local
// batch fills the 16 GiB reference GPU less a 1 GiB reserve: 15 GiB, which
// fits a T4 but not a 12 GiB K80. (The Gavel-only models are sized for the
// K80 instead: GavelModels.CatalogHasEveryFamilyOfGavelsTable.)
TEST_F(Feasibility, BuiltinModelsAtTheirLargestLocalBatchFitT4NotK80) {
  for (const char* name : {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}) {
    const ModelParams& m = ModelCatalog::builtin().at(name);
    JobSpec j = job();
    j.model = name;
    j.global_batch = 2 * m.max_local_batch;
    j.gpu_type = "T4";
    EXPECT_EQ(why_infeasible(j, cluster, GpuCatalog::builtin(), ModelCatalog::builtin()), std::nullopt)
        << name;
    j.gpu_type = "K80";
    EXPECT_EQ(why_infeasible(j, cluster, GpuCatalog::builtin(), ModelCatalog::builtin()),
              "needs 15.0 GiB per GPU, largest allowed GPU (K80) has 12.0 GiB")
        << name;
  }
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

// T4 has 16 GiB and K80 12 GiB. Micro-batch of 12 samples = 13 GiB: only T4.
TEST_F(Feasibility, AllowedTypesAreThoseWhoseMemoryHoldsTheMicroBatch) {
  JobSpec j = job();
  EXPECT_EQ(allowed_gpu_types(j, cluster, GpuCatalog::builtin(), models),
            cluster.type_mask("K80") | cluster.type_mask("T4"));
  j.global_batch = 24;  // 12 per GPU
  EXPECT_EQ(allowed_gpu_types(j, cluster, GpuCatalog::builtin(), models), cluster.type_mask("T4"));
  j.gpu_type = "K80";
  EXPECT_EQ(allowed_gpu_types(j, cluster, GpuCatalog::builtin(), models), GpuTypeMask{0});
}

TEST_F(Feasibility, TooFewGpusWithEnoughMemory) {
  JobSpec j = job();
  j.gpus = 3;
  j.global_batch = 36;  // 12 per GPU, 13 GiB: only the two T4 hold it
  EXPECT_EQ(why(j), "requests 3 GPUs, cluster has only 2 GPUs with the 13.0 GiB per GPU it needs");
}

// Gradient accumulation to fit memory. T4: 16 GiB -> 15 samples per
// micro-batch beside the 1 GiB of weights; K80: 12 GiB -> 11 samples.
TEST_F(Feasibility, AccumulationIsTheSmallestVirtualNodesThatFit) {
  const auto fit = [&](const JobSpec& j) {
    return virtual_nodes_to_fit(j, cluster, GpuCatalog::builtin(), models);
  };
  EXPECT_EQ(fit(job()), 2);  // 8 / 2 = 4 samples fit: its own V
  JobSpec j = job();
  j.global_batch = 100;  // 50 per GPU: ceil(100 / (2 x 15)) = 4 micro-batches per GPU
  EXPECT_EQ(fit(j), 8);  // 12.5 samples; V = 6 would need 16.7
  j.virtual_nodes = 3;   // its own V does not fit either
  EXPECT_EQ(fit(j), 8);
  j.virtual_nodes = 10;  // fits already: kept
  EXPECT_EQ(fit(j), 10);
  j.virtual_nodes = 0;
  j.gpu_type = "K80";  // ceil(100 / (2 x 11)) = 5
  EXPECT_EQ(fit(j), 10);
  j.gpu_type.reset();
  j.global_batch = 30;  // exactly 15 per GPU: fits without accumulation
  EXPECT_EQ(fit(j), 2);
  j.global_batch = 31;
  EXPECT_EQ(fit(j), 4);
  // The chosen V passes the memory check.
  j.global_batch = 100;
  j.virtual_nodes = *fit(j);
  EXPECT_EQ(why(j), std::nullopt);
}

TEST_F(Feasibility, NoAccumulationFitsWhenOneSampleDoesNot) {
  models = ModelCatalog::parse(R"({"models": {"m": {"alpha_compute_s": 0.1, "beta_compute_s": 0.01,
      "gradient_bytes": 1e6, "weight_state_bytes": 16106127360, "memory_per_sample_bytes": 1073741824,
      "min_local_batch": 1, "max_local_batch": 15, "default_local_batch": 8, "initial_batch": 8,
      "max_global_batch": 64, "overlap_gamma": 1}}})",
                               "test-models");  // 15 GiB of weights + 1 GiB per sample
  JobSpec j = job();
  j.global_batch = 2;  // one sample per GPU: 16 GiB fits a T4 exactly
  EXPECT_EQ(virtual_nodes_to_fit(j, cluster, GpuCatalog::builtin(), models), 2);
  j.global_batch = 8;  // 4 per GPU: V = 8 fits (one sample each)
  EXPECT_EQ(virtual_nodes_to_fit(j, cluster, GpuCatalog::builtin(), models), 8);
  models = ModelCatalog::parse(R"({"models": {"m": {"alpha_compute_s": 0.1, "beta_compute_s": 0.01,
      "gradient_bytes": 1e6, "weight_state_bytes": 16106127360, "memory_per_sample_bytes": 2147483648,
      "min_local_batch": 1, "max_local_batch": 15, "default_local_batch": 8, "initial_batch": 8,
      "max_global_batch": 64, "overlap_gamma": 1}}})",
                               "test-models");  // 15 GiB + 2 GiB per sample: nothing fits
  EXPECT_EQ(virtual_nodes_to_fit(j, cluster, GpuCatalog::builtin(), models), std::nullopt);
  EXPECT_EQ(why(j),
            "needs 23.0 GiB per GPU, largest allowed GPU (T4) has 16.0 GiB; no gradient accumulation fits "
            "(weights and the smallest micro-batch, 1 sample(s), need 17.0 GiB)");
}

}  // namespace
}  // namespace vnsim
