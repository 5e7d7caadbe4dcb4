// Cluster energy from SimGrid's host energy plugin (docs/ELASTICITY.md, "Cost
// and energy"), checked against hand-computed totals on tiny timelines and
// against the recorder's analytic integration on a replay with rings,
// preemptions and a node failure.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "allocation_log_check.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/policies/sjf_policy.hpp"
#include "vnsim/policies/vf_wfs_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

const GpuType& reference_gpu() {
  return GpuCatalog::builtin().at(GpuCatalog::builtin().reference());
}

const ModelParams& any_model() {
  return ModelCatalog::builtin().at(ModelCatalog::builtin().names().front());
}

double iteration_s(const Cluster& cluster, const JobSpec& job, const std::vector<GpuId>& on) {
  const Topology topo(cluster);
  return iteration_time(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(job.model),
                        spread_virtual_nodes(on, job.effective_virtual_nodes()), job.global_batch)
      .total_s;
}

double busy_j(const ReplayResult& r) {
  double e = 0;
  for (const GpuTypeUsage& u : r.usage.per_type) e += u.busy_energy_j;
  return e;
}

double idle_j(const ReplayResult& r) {
  double e = 0;
  for (const GpuTypeUsage& u : r.usage.per_type) e += u.idle_energy_j;
  return e;
}

// The recorder's own integration: busy power x held time, summed per job
// (jobs.csv energy_j), plus idle power x the up-and-free time it books.
double analytic_busy_j(const ReplayResult& r) {
  double e = 0;
  for (const JobRecord& j : r.jobs) e += j.energy_j;
  return e;
}

double analytic_idle_j(const ReplayResult& r) {
  double e = 0;
  for (const GpuTypeUsage& u : r.usage.per_type)
    e += GpuCatalog::builtin().at(u.type).idle_watts * u.idle_gpu_s;
  return e;
}

// 1 node, 2 GPUs. a runs alone on GPU 0 from 0 for na iterations (about
// 100 s); b arrives at 50 s and runs on GPU 1 for about 100 s. Hand-computed
// from the iteration time T: busy over da + db GPU-seconds, idle over the
// rest of 2 GPUs x [0, 50 + db].
TEST(EnergyPlugin, TinyTimelineMatchesTheHandComputedEnergy) {
  const Cluster cluster(testing::test_cluster("sim-1x1x2"));
  JobSpec a = testing::make_job("a", 0.0, any_model(), 1, 1);
  const double t = iteration_s(cluster, a, {0});
  a.iterations = static_cast<long long>(std::round(100 / t));
  JobSpec b = a;
  b.id = "b";
  b.submit_s = 50;
  testing::ScriptedPolicy policy({{0, {0}}, {1, {1}}});
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {a, b}, policy, {});
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;

  const double d = static_cast<double>(a.iterations) * t;  // each job's run time
  const double end = 50 + d;
  ASSERT_NEAR(r.simulated_end_s, end, 1e-9 * end);
  const GpuType& gpu = reference_gpu();
  const double busy = gpu.busy_watts * 2 * d;
  const double idle = gpu.idle_watts * (2 * end - 2 * d);
  EXPECT_NEAR(busy_j(r), busy, 1e-9 * busy);
  EXPECT_NEAR(idle_j(r), idle, 1e-9 * idle);
  EXPECT_GT(idle, 0);
}

// 2 nodes of 1 GPU. a runs on node 0 over [0, d]; node 1 fails at 10 s and
// is still down when the replay ends: it draws idle power for 10 s, then
// nothing.
TEST(EnergyPlugin, ANodeStillDownAtTheEndDrawsNothing) {
  const Cluster cluster(testing::test_cluster("sim-1x2x1"));
  JobSpec a = testing::make_job("a", 0.0, any_model(), 1, 1);
  const double t = iteration_s(cluster, a, {0});
  a.iterations = static_cast<long long>(std::round(100 / t));
  testing::ScriptedPolicy policy(std::map<JobIndex, std::vector<GpuId>>{{0, {0}}});
  ReplayOptions options;
  options.node_events = {NodeEvent{10, 1, 1e6}};
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {a}, policy, options);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;

  const double d = static_cast<double>(a.iterations) * t;
  const GpuType& gpu = reference_gpu();
  EXPECT_NEAR(busy_j(r), gpu.busy_watts * d, 1e-9 * gpu.busy_watts * d);
  EXPECT_NEAR(idle_j(r), gpu.idle_watts * 10, 1e-6);
  ASSERT_EQ(r.usage.per_type.size(), 1u);
  EXPECT_NEAR(r.usage.per_type[0].down_gpu_s, d - 10, 1e-9 * d);
  EXPECT_NEAR(r.usage.per_type[0].idle_gpu_s, 10, 1e-9 * d);
}

// Two 500-milli tenants on one GPU (docs/HETEROGENEITY.md): the GPU draws
// busy power while either holds it, whereas each job's energy_j counts half
// of busy power for its own time.
TEST(EnergyPlugin, ASharedGpuIsBusyWhileAnyTenantHoldsIt) {
  const Cluster cluster(testing::test_cluster("sim-1x1x1"));
  JobSpec a = testing::make_job("a", 0.0, any_model(), 1, 1);
  const double t = iteration_s(cluster, a, {0});
  a.iterations = static_cast<long long>(std::round(100 / t));
  JobSpec b = a;
  b.id = "b";
  b.submit_s = 30;
  class Share : public Policy {
   public:
    std::string name() const override { return "share"; }
    std::vector<Decision> decide(const SchedulerInput& in) override {
      std::vector<Decision> out;
      for (const QueuedJob& q : in.queued)
        out.push_back(StartJob{q.index, spread_virtual_nodes({0}, q.spec->effective_virtual_nodes()), 500});
      return out;
    }
  } policy;
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), {a, b}, policy, {});
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;
  ASSERT_EQ(r.jobs[1].start_s, 30.0);
  ASSERT_LT(r.jobs[1].start_s, r.jobs[0].finish_s);  // they overlap: no idle gap

  const GpuType& gpu = reference_gpu();
  const double end = r.simulated_end_s;
  EXPECT_NEAR(busy_j(r), gpu.busy_watts * end, 1e-9 * gpu.busy_watts * end);
  EXPECT_NEAR(idle_j(r), 0, 1e-9);
  const double held = r.jobs[0].finish_s + (r.jobs[1].finish_s - r.jobs[1].start_s);
  EXPECT_NEAR(analytic_busy_j(r), gpu.busy_watts * 0.5 * held, 1e-9 * gpu.busy_watts * held);
}

// VF-WFS halves a in place when b arrives and grows it back when b ends
// (two resizes). The GPUs a keeps stay Held throughout, so the plugin's busy
// energy is exactly a's and b's held time at busy power.
TEST(EnergyPlugin, ResizesInPlaceMatchTheAnalyticEnergy) {
  const Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const ModelParams& model = ModelCatalog::builtin().at("bert");
  const std::vector<JobSpec> jobs = {testing::make_job("a", 0.0, model, 4, 3000),
                                     testing::make_job("b", 100.0, model, 4, 1000)};
  VfWfsPolicy policy;
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, {});
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;
  ASSERT_EQ(r.jobs[0].restarts, 2);

  const double busy = reference_gpu().busy_watts * (r.jobs[0].gpu_seconds + r.jobs[1].gpu_seconds);
  EXPECT_NEAR(busy_j(r), busy, 1e-9 * busy);
  EXPECT_NEAR(busy_j(r), analytic_busy_j(r), 1e-9 * busy);
  EXPECT_NEAR(idle_j(r), analytic_idle_j(r), 1e-9 * busy);
}

// 2 racks x 2 nodes x 4 GPUs under SRTF: 8-GPU jobs ring across nodes, short
// arrivals preempt longer jobs, and node 1 fails for 300 s at 500 s. With
// whole GPUs only, the plugin and the analytic integration are the same
// physical model: they must agree to rounding.
TEST(EnergyPlugin, MatchesTheAnalyticTotalWithRingsPreemptionsAndANodeDown) {
  const Cluster cluster(testing::test_cluster("sim-2x2x4-os2"));
  const ModelParams& model = testing::most_communicating_model();
  std::vector<JobSpec> jobs;
  const int sizes[] = {8, 1, 4, 2, 8, 1, 16, 4, 2, 1, 8, 4};
  const long long iters[] = {3000, 400, 1500, 800, 600, 200, 1000, 300, 2000, 100, 900, 700};
  for (int i = 0; i < 12; ++i)
    jobs.push_back(testing::make_job("j" + std::to_string(i), 120.0 * i, model, sizes[i], iters[i]));
  ReplayOptions options;
  options.node_events = {NodeEvent{500, 1, 300}};
  SrtfPolicy policy;
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, options);
  testing::expect_no_overcommit(r, cluster.gpu_count());

  int restarts = 0;
  bool multi_node = false;
  for (const JobRecord& j : r.jobs) {
    ASSERT_EQ(j.state, FinalState::Completed) << j.id << ": " << j.reason;
    restarts += j.restarts;
    multi_node = multi_node || j.requested_gpus > 4;
  }
  EXPECT_GT(restarts, 0);
  EXPECT_TRUE(multi_node);
  EXPECT_EQ(r.usage.node_events, 1);
  EXPECT_GT(r.usage.per_type.at(0).down_gpu_s, 0);

  const double plugin = busy_j(r) + idle_j(r);
  const double analytic = analytic_busy_j(r) + analytic_idle_j(r);
  EXPECT_NEAR(plugin, analytic, 1e-6 * analytic);
  EXPECT_NEAR(busy_j(r), analytic_busy_j(r), 1e-6 * analytic);
  EXPECT_NEAR(idle_j(r), analytic_idle_j(r), 1e-6 * analytic);
}

}  // namespace
}  // namespace vnsim
