// ClusterView with GPU sharing: per-GPU free capacity in milli, tenants in
// arrival order, and over-commitment refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "test_clusters.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {
namespace {

struct World {
  World() : cluster(testing::test_cluster("v100-1x1x2")), topology(cluster), view(cluster, topology) {}
  Cluster cluster;
  Topology topology;
  ClusterView view;
};

TEST(ClusterViewSharing, SharesAddUpAndFreeCountsOnlyEmptyGpus) {
  World w;
  w.view.allocate({0}, 7, 460);
  EXPECT_FALSE(w.view.is_free(0));
  EXPECT_EQ(w.view.free_milli(0), 540);
  EXPECT_EQ(w.view.free_total(), 1);
  w.view.allocate({0}, 8, 540);  // exactly full: 460 + 540 = 1000
  EXPECT_EQ(w.view.free_milli(0), 0);
  ASSERT_EQ(w.view.tenants(0).size(), 2u);
  EXPECT_EQ(w.view.tenants(0)[0].job, 7u);
  EXPECT_EQ(w.view.tenants(0)[1].milli, 540);
  w.view.release({0}, 7);
  EXPECT_EQ(w.view.free_milli(0), 460);
  EXPECT_EQ(w.view.free_total(), 1);
  w.view.release({0}, 8);
  EXPECT_TRUE(w.view.is_free(0));
  EXPECT_EQ(w.view.free_total(), 2);
  EXPECT_EQ(w.view.free_on_node(0), 2);
}

TEST(ClusterViewSharing, OverCommitmentIsRefusedAndChangesNothing) {
  World w;
  w.view.allocate({1}, 1, 600);
  // 600 + 401 > 1000 on GPU 1; GPU 0 must not be taken either.
  EXPECT_THROW(w.view.allocate({0, 1}, 2, 401), std::logic_error);
  EXPECT_TRUE(w.view.is_free(0));
  EXPECT_EQ(w.view.free_milli(1), 400);
  EXPECT_THROW(w.view.allocate({1}, 3), std::logic_error);  // whole GPU on a shared one
  EXPECT_THROW(w.view.allocate({0}, 4, 0), std::logic_error);
  EXPECT_THROW(w.view.allocate({0}, 4, 1001), std::logic_error);
  EXPECT_THROW(w.view.allocate({1}, 1, 100), std::logic_error);  // job 1 is already there
  EXPECT_THROW(w.view.release({0}, 1), std::logic_error);        // not held
}

}  // namespace
}  // namespace vnsim
