// GpuSharing on its own, without an engine: a job's speed next to the
// co-tenants of its GPUs, read from a ClusterView.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_sharing.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/interference.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim::sim {
namespace {

// Models with no Gavel family: every pair shares at the table's default
// fraction f.
std::vector<JobSpec> jobs_without_family(int n) {
  std::vector<JobSpec> jobs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    jobs[static_cast<std::size_t>(i)].id = "j" + std::to_string(i);
    jobs[static_cast<std::size_t>(i)].model = "no-family-" + std::to_string(i);
  }
  return jobs;
}

struct Fixture {
  Cluster cluster{testing::test_cluster("sim-1x1x4")};
  Topology topology{cluster};
  ClusterView view{cluster, topology};
  std::vector<JobSpec> jobs = jobs_without_family(3);
  GpuSharing sharing{cluster, jobs, view};
};

TEST(GpuSharingRates, TheProductOfFractionsPerGpuAndTheSlowestGpuForTheJob) {
  Fixture t;
  const double f = InterferenceTable::builtin().default_fraction();
  t.view.allocate({0, 1}, 0, 500);  // job 0 on GPUs 0 and 1
  t.view.allocate({1}, 1, 250);     // job 1 beside it on GPU 1
  t.view.allocate({1, 2}, 2, 250);  // job 2 beside both on GPU 1, alone on GPU 2
  EXPECT_EQ(t.sharing.gpu_rate(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(t.sharing.gpu_rate(0, 1), f * f);  // next to jobs 1 and 2
  EXPECT_DOUBLE_EQ(t.sharing.slowest_rate(0, {0, 1}), f * f);
  EXPECT_EQ(t.sharing.slowest_rate(2, {2}), 1.0);
  EXPECT_EQ(t.sharing.co_tenants({0, 1, 2}, 0), (std::vector<JobIndex>{1, 2}));  // once each, in order
  EXPECT_TRUE(t.sharing.co_tenants({3}, 0).empty());
}

TEST(GpuSharingRates, AShareOutside0To1000MilliIsTheNamedPolicysError) {
  Fixture t;
  StartJob d{1, Placement{}, 1001};
  try {
    t.sharing.check_share("p", d, {0});
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "policy 'p' started job 'j1' with a share of 1001 milli, must be 0..1000");
  }
}

}  // namespace
}  // namespace vnsim::sim
