// DP x TP x PP jobs in the replay: a valid layout runs for exactly
// iterations x its idle-network layout time (layout_perf.hpp, whose numbers
// core/tests/parallel_layout_test.cpp checks by hand); bad layouts are
// rejected with the reason that jobs.csv shows. One replay per test.
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/layout_perf.hpp"
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

TEST(LayoutJobReplay, ValidLayoutRunsAtItsLayoutIterationTime) {
  // 2 nodes x 8 GPUs; 2 DP x 2 TP x 4 PP, 8 micro-batches per pipeline.
  const Cluster cluster(testing::small_spec(1, 2, 8, 1.0));
  const std::vector<JobSpec> jobs = {gpt_job("gpt", 16, 2, 4, 16)};
  testing::ScriptedPolicy policy({{0, testing::gpu_range(0, 16)}});
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  const JobRecord& rec = r.jobs.at(0);
  ASSERT_EQ(rec.state, FinalState::Completed) << rec.reason;
  const Topology topo(cluster);
  const double iteration_s =
      layout_iteration_s(topo, GpuCatalog::builtin(), jobs[0], testing::gpu_range(0, 16));
  ASSERT_GT(iteration_s, 0);
  EXPECT_NEAR(rec.finish_s - rec.start_s, 5 * iteration_s, 1e-9 * iteration_s);
}

TEST(LayoutJobReplay, BadLayoutsAreRejectedWithTheirReason) {
  const Cluster cluster(testing::small_spec(1, 2, 8, 1.0));
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
