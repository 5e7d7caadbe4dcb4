// Gavel's throughput matrix: steps/s per GPU type from the perf model.
#include "../src/type_throughput.hpp"

#include <gtest/gtest.h>

#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"

namespace vnsim {
namespace {

JobSpec cifar(int gpus) {
  JobSpec j;
  j.id = "c";
  j.model = "cifar10";
  j.gpus = gpus;
  j.global_batch = 128 * gpus;
  j.iterations = 100;
  return j;
}

TEST(TypeThroughput, RowIsTheInverseIterationTimeOnEachType) {
  // One rack: node n-V100 with one V100, node n-K80 with one K80.
  const Cluster cluster(testing::test_cluster("pcie-v100-k80-1x2x1"));
  const Topology topology(cluster);
  TypeThroughput t(GpuCatalog::builtin(), ModelCatalog::builtin());
  const int v100 = cluster.type_index("V100"), k80 = cluster.type_index("K80");
  const JobSpec job = cifar(1);
  const std::vector<double> row = t.row(topology, job, kAnyGpuType);
  ASSERT_EQ(row.size(), 2u);
  const ModelParams& model = ModelCatalog::builtin().at("cifar10");
  // GPU 0 is the V100 (node n-V100 comes first), GPU 1 the K80.
  const double v100_s =
      iteration_time(topology, GpuCatalog::builtin(), model, Placement{{0}, {1}}, 128).total_s;
  const double k80_s =
      iteration_time(topology, GpuCatalog::builtin(), model, Placement{{1}, {1}}, 128).total_s;
  EXPECT_DOUBLE_EQ(row[v100], 1 / v100_s);
  EXPECT_DOUBLE_EQ(row[k80], 1 / k80_s);
  EXPECT_GT(row[v100], row[k80]) << "a V100 is faster than a K80";
}

TEST(TypeThroughput, ZeroWhereTheMaskExcludesTheTypeOrItHasTooFewGpus) {
  // One rack: node n-V100 with one V100, node n-K80 with one K80.
  const Cluster cluster(testing::test_cluster("pcie-v100-k80-1x2x1"));
  const Topology topology(cluster);
  TypeThroughput t(GpuCatalog::builtin(), ModelCatalog::builtin());
  const int v100 = cluster.type_index("V100"), k80 = cluster.type_index("K80");
  const GpuTypeMask only_v100 = GpuTypeMask{1} << v100;
  EXPECT_GT(t.steps_per_s(topology, cifar(1), only_v100, v100), 0);
  EXPECT_EQ(t.steps_per_s(topology, cifar(1), only_v100, k80), 0);
  EXPECT_EQ(t.row(topology, cifar(2), kAnyGpuType), (std::vector<double>{0, 0})) << "one GPU per type";
}

}  // namespace
}  // namespace vnsim
