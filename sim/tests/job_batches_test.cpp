// JobBatches on its own: the spec's batch and V until a policy changes them.
#include "job_batches.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace vnsim::sim {
namespace {

std::vector<JobSpec> two_jobs() {
  JobSpec a;
  a.id = "a";
  a.model = "cifar10";
  a.gpus = 2;
  a.virtual_nodes = 4;
  a.global_batch = 128;
  a.iterations = 1000;
  JobSpec b = a;
  b.id = "b";
  b.virtual_nodes = 0;  // one per GPU
  return {a, b};
}

TEST(JobBatches, TheSpecsBatchAndVirtualNodesUntilAPolicyChangesThem) {
  const std::vector<JobSpec> jobs = two_jobs();
  JobBatches batches(jobs);
  EXPECT_EQ(batches.batch_of(0), 128);
  EXPECT_EQ(batches.virtual_nodes_of(0), 4);
  EXPECT_EQ(batches.virtual_nodes_of(1), 2);
  batches.set_virtual_nodes(1, 8);  // a start on other virtual nodes
  EXPECT_EQ(batches.virtual_nodes_of(1), 8);
  batches.set_virtual_nodes(1, 0);  // 0: the spec's again
  EXPECT_EQ(batches.virtual_nodes_of(1), 2);
}

TEST(JobBatches, AChangeToTheSameBatchOrWithNothingLeftKeepsTheIterationsDone) {
  const std::vector<JobSpec> jobs = two_jobs();
  JobBatches batches(jobs);
  EXPECT_EQ(batches.change_batch(0, 128, 8, 300), 300);
  EXPECT_EQ(batches.virtual_nodes_of(0), 8);
  EXPECT_EQ(batches.change_batch(0, 256, 8, 1000), 1000);  // nothing left to re-express
  EXPECT_EQ(batches.batch_of(0), 256);
  EXPECT_EQ(batches.batch_of(1), 128);  // the other job keeps its own
}

TEST(JobBatches, ABatchChangeKeepsTheSamplesLeftWithoutANoiseProfile) {
  std::vector<JobSpec> jobs = two_jobs();
  jobs[0].model = "no-noise-profile";  // efficiency 1 (core/goodput.hpp)
  JobBatches batches(jobs);
  // 700 steps left at batch 128 are 89,600 samples: 175 steps at 512.
  EXPECT_EQ(batches.change_batch(0, 512, 16, 300), 1000 - 175);
  EXPECT_EQ(batches.batch_of(0), 512);
  EXPECT_EQ(batches.virtual_nodes_of(0), 16);
}

}  // namespace
}  // namespace vnsim::sim
