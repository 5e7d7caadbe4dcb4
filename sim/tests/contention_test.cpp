// Two 8-GPU rings crossing the same rack uplinks (SimGrid 3.32, CM02 network
// model, fair sharing of a link between flows): with oversubscription 2 the uplink is the bottleneck and
// each job's communication takes twice as long as alone; with
// oversubscription 1 it is not, and nothing slows down.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// Job A on node 0 of each rack, job B on node 1 of each rack (2 racks x 2
// nodes x 4 GPUs, tests/clusters/sim-2x2x4*.json). Returns each job's
// communication time per iteration over its idle-network (alone) value.
std::vector<double> comm_slowdowns(const std::string& cluster_name) {
  Cluster cluster(testing::test_cluster(cluster_name));
  const ModelParams& model = testing::most_communicating_model();
  // Latency does not share; with small gradients it would hide the effect.
  EXPECT_GE(model.gradient_bytes, 20e6) << "test needs a communication-bound model";
  const long long iterations = 50;
  const std::vector<JobSpec> jobs = {testing::make_job("A", 0.0, model, 8, iterations),
                                     testing::make_job("B", 0.0, model, 8, iterations)};
  std::vector<GpuId> a = testing::gpu_range(0, 4), b = testing::gpu_range(4, 4);
  for (GpuId g : testing::gpu_range(8, 4)) a.push_back(g);
  for (GpuId g : testing::gpu_range(12, 4)) b.push_back(g);
  testing::ScriptedPolicy policy({{0, a}, {1, b}});
  const ReplayResult r = run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy,
                                    testing::actor_ring_options());

  const Topology topo(cluster);
  std::vector<double> out;
  for (std::size_t j = 0; j < 2; ++j) {
    const JobRecord& rec = r.jobs[j];
    EXPECT_EQ(rec.state, FinalState::Completed) << rec.reason;
    EXPECT_EQ(rec.start_s, 0.0);
    const IterationBreakdown alone =
        iteration_time(topo, GpuCatalog::builtin(), model, spread_virtual_nodes(j == 0 ? a : b, 8),
                       8 * model.min_local_batch);
    const double per_iteration = (rec.finish_s - rec.start_s) / iterations;
    out.push_back((per_iteration - alone.compute_s) / alone.allreduce_s);
  }
  return out;
}

TEST(Contention, OversubscribedUplinkDoublesCommunication) {
  for (double s : comm_slowdowns("sim-2x2x4-os2")) EXPECT_NEAR(s, 2.0, 0.04);
}

TEST(Contention, FullBisectionUplinkDoesNotSlowDown) {
  for (double s : comm_slowdowns("sim-2x2x4")) EXPECT_NEAR(s, 1.0, 0.02);
}

}  // namespace
}  // namespace vnsim
