// DP x TP x PP jobs in the replay: a multi-node layout job puts its PP sends
// and DP rings on SimGrid (sim/src/layout_job.cpp), and alone on an idle
// network takes iterations x its layout time (layout_perf.hpp, whose numbers
// core/tests/parallel_layout_test.cpp checks by hand) within 2%; it shares
// links with other jobs; bad layouts are rejected with the reason that
// jobs.csv shows. One replay per test.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

JobSpec gpt_job(const std::string& id, int gpus, int tp, int pp, int batch) {
  JobSpec j;
  j.id = id;
  j.model = "gpt-1.3b";
  j.gpus = gpus;
  j.virtual_nodes = gpus;
  j.tp = tp;
  j.pp = pp;
  j.global_batch = batch;
  j.iterations = 5;
  return j;
}

TEST(LayoutJobReplay, IdleNetworkMatchesLayoutTimeWithinTwoPercent) {
  // 2 nodes x 8 GPUs, one job after the other on all 16 GPUs:
  // 2 DP x 2 TP x 4 PP (PP and DP inside and across nodes), 2 DP x 8 TP
  // (DP across nodes, 8 rings on one NIC), 1 DP x 4 TP x 4 PP (PP only) and
  // 8 DP x 1 TP x 2 PP (one stage per node).
  const Cluster cluster(testing::test_cluster("sim-1x2x8"));
  const std::vector<JobSpec> jobs = {gpt_job("a", 16, 2, 4, 16), gpt_job("b", 16, 8, 1, 16),
                                     gpt_job("c", 16, 4, 4, 16), gpt_job("d", 16, 1, 2, 16)};
  std::map<JobIndex, std::vector<GpuId>> plan;
  for (JobIndex j = 0; j < jobs.size(); ++j) plan[j] = testing::gpu_range(0, 16);
  testing::ScriptedPolicy policy(plan);
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  const Topology topo(cluster);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const JobRecord& rec = r.jobs.at(j);
    ASSERT_EQ(rec.state, FinalState::Completed) << jobs[j].id << ": " << rec.reason;
    const double iteration_s =
        layout_iteration_s(topo, GpuCatalog::builtin(), jobs[j], testing::gpu_range(0, 16));
    ASSERT_GT(iteration_s, 0);
    EXPECT_NEAR((rec.finish_s - rec.start_s) / (5 * iteration_s), 1.0, 0.02) << jobs[j].id;
  }
}

TEST(LayoutJobReplay, CrossRackLayoutTrafficSharesTheUplink) {
  // 2 racks x 2 nodes x 8 GPUs, uplinks oversubscribed 4x (6.25 GB/s).
  // Layout job: 2 DP x 8 TP on node 0 of each rack, its 8 DP rings cross
  // the uplinks; ring job: node 1 of each rack, also across. Both slow down.
  const Cluster cluster(testing::test_cluster("sim-2x2x8-os4"));
  JobSpec layout = gpt_job("layout", 16, 8, 1, 16);
  layout.iterations = 20;
  const ModelParams& model = testing::most_communicating_model();
  const JobSpec ring = testing::make_job("ring", 0, model, 16, 20);
  std::vector<GpuId> layout_gpus = testing::gpu_range(0, 8), ring_gpus = testing::gpu_range(8, 8);
  for (GpuId g = 16; g < 24; ++g) layout_gpus.push_back(g);
  for (GpuId g = 24; g < 32; ++g) ring_gpus.push_back(g);
  testing::ScriptedPolicy policy({{0, layout_gpus}, {1, ring_gpus}});
  // Fluid rings (the default) do not contend with layout jobs: the actor
  // engine does.
  const ReplayResult r = run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {layout, ring},
                                    policy, testing::actor_ring_options());
  ASSERT_EQ(r.jobs.at(0).state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs.at(1).state, FinalState::Completed) << r.jobs[1].reason;
  const Topology topo(cluster);
  const double layout_alone = 20 * layout_iteration_s(topo, GpuCatalog::builtin(), layout, layout_gpus);
  const double ring_alone = 20 * iteration_time(topo, GpuCatalog::builtin(), model,
                                                spread_virtual_nodes(ring_gpus, 16), ring.global_batch)
                                     .total_s;
  EXPECT_GT(r.jobs[0].finish_s - r.jobs[0].start_s, 1.02 * layout_alone);
  EXPECT_GT(r.jobs[1].finish_s - r.jobs[1].start_s, 1.02 * ring_alone);
}

TEST(LayoutJobReplay, BadLayoutsAreRejectedWithTheirReason) {
  const Cluster cluster(testing::test_cluster("sim-1x2x8"));
  const std::vector<JobSpec> jobs = {gpt_job("split", 12, 8, 3, 12), gpt_job("wide", 16, 16, 1, 16),
                                     gpt_job("huge", 8, 1, 1, 8)};
  testing::ScriptedPolicy policy({});
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  ASSERT_EQ(r.jobs.size(), 3u);
  for (const JobRecord& rec : r.jobs) EXPECT_EQ(rec.state, FinalState::Rejected);
  EXPECT_EQ(r.jobs[0].reason, "layout tp=8 x pp=3 does not divide the 12 requested GPUs");
  EXPECT_EQ(r.jobs[1].reason, "tp=16 is larger than a node (at most 8 GPUs per node)");
  // Pure DP on 8 GPUs: every GPU holds all 1.3e9 parameters x 16 B = 21 GB,
  // more than the reference GPU's memory.
  EXPECT_NE(r.jobs[2].reason.find("under layout 8 DP x 1 TP x 1 PP"), std::string::npos) << r.jobs[2].reason;
}

}  // namespace
}  // namespace vnsim
