// Max-min sharing of an oversubscribed rack uplink between collectives, with
// hand-computed expectations. Cluster: 2 racks x 4 nodes x 1 GPU, NIC
// 100 Gb/s = 12.5 GB/s, oversubscription 4, so each rack uplink carries
// 4 x 12.5 / 4 = 12.5 GB/s per direction. Job k is a 2-rank ring all-reduce
// between GPU k (rack 0) and GPU 4 + k (rack 1): 2 steps of S/2 per
// direction, one flow per job on each uplink direction.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/sim/collective_bench.hpp"

namespace vnsim {
namespace {

constexpr double kBytes = 100e6;
constexpr double kUplinkBps = 12.5e9;

const Cluster& cluster() {
  static const Cluster c(testing::test_cluster("sim-2x4x1-os4"));
  return c;
}

CollectiveSchedule allreduce(GpuId a, GpuId b) {
  return build_schedule(cluster(), CollectiveOp::AllReduce, CollectiveAlgo::Ring, {a, b}, kBytes);
}

// Route latency across racks: GPU link 0.5 + NIC 1 + uplink 1 µs, each twice.
double cross_rack_time(int sharing_jobs) {
  return 2 * (5e-6 + kBytes / 2 / (kUplinkBps / sharing_jobs));
}

TEST(CollectiveContention, JobsOnOneUplinkGetEqualShares) {
  std::vector<std::vector<CollectiveSchedule>> batches;
  for (int jobs = 1; jobs <= 4; ++jobs) {
    batches.emplace_back();
    for (int k = 0; k < jobs; ++k) batches.back().push_back(allreduce(k, 4 + k));
  }
  const auto t = simulate_collective_batches(cluster(), GpuCatalog::builtin(), batches);
  for (int jobs = 1; jobs <= 4; ++jobs)
    for (double each : t[jobs - 1]) EXPECT_NEAR(each / cross_rack_time(jobs), 1.0, 0.005) << jobs << " jobs";
}

TEST(CollectiveContention, RackLocalJobUnaffectedByCrossRackTraffic) {
  // Rack-local job on GPUs 0 and 1 (two nodes of rack 0): NICs only, latency
  // 0.5 + 1 µs each way, 12.5 GB/s.
  const double local_alone = 2 * (3e-6 + kBytes / 2 / 12.5e9);
  const auto t =
      simulate_collective_batches(cluster(), GpuCatalog::builtin(),
                                  {{allreduce(0, 1)}, {allreduce(0, 1), allreduce(2, 6), allreduce(3, 7)}});
  EXPECT_NEAR(t[0][0] / local_alone, 1.0, 1e-6);
  EXPECT_NEAR(t[1][0] / local_alone, 1.0, 1e-6);
  EXPECT_NEAR(t[1][1] / cross_rack_time(2), 1.0, 0.005);
  EXPECT_NEAR(t[1][2] / cross_rack_time(2), 1.0, 0.005);
}

}  // namespace
}  // namespace vnsim
