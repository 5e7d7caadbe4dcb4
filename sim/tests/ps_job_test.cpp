// Parameter-server jobs in the replay (sim/src/ps_job.cpp): alone on an idle
// network they take iterations x the analytic time of
// core/parameter_server_job.hpp (within 2%); sharing the server's NIC with
// a ring job slows both. One replay per test (one SimGrid engine per
// process).
#include <gtest/gtest.h>

#include "sim_test_support.hpp"
#include "vnsim/core/parameter_server.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// 1 server (GPU 0, alone on node 0) and 8 workers on nodes 2 and 3 of a
// 4 x 4-GPU rack: the server's 12.5 GB/s NIC carries every push and pull.
const Cluster& cluster() {
  static const Cluster c(testing::test_cluster("sim-1x4x4"));
  return c;
}

std::vector<GpuId> ps_placement() {
  std::vector<GpuId> gpus = {0};
  for (GpuId g = 8; g < 16; ++g) gpus.push_back(g);
  return gpus;
}

JobSpec ps_spec(const std::string& id, long long iterations, bool async) {
  const ModelParams& model = testing::most_communicating_model();
  JobSpec j = testing::make_job(id, 0, model, 9, iterations);
  j.global_batch = 8 * model.min_local_batch;
  j.ps.servers = 1;
  j.ps.async = async;
  return j;
}

double analytic_s(const JobSpec& job) {
  const Topology topo(cluster());
  return static_cast<double>(job.iterations) *
         parameter_server_iteration_s(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(job.model), job,
                                      ps_placement());
}

double run_one(const JobSpec& job) {
  testing::ScriptedPolicy policy({{0, ps_placement()}});
  const ReplayResult r =
      run_replay(cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), {job}, policy, {});
  const JobRecord& rec = r.jobs.at(0);
  EXPECT_EQ(rec.state, FinalState::Completed) << rec.reason;
  return rec.finish_s - rec.start_s;
}

TEST(PsJobReplay, SynchronousMatchesAnalyticOnIdleNetwork) {
  const JobSpec job = ps_spec("sync", 20, false);
  const double want = analytic_s(job);
  ASSERT_GT(want, 0);
  EXPECT_NEAR(run_one(job) / want, 1.0, 0.02);
}

TEST(PsJobReplay, AsynchronousMatchesAnalyticWhenServersKeepUp) {
  // 8 workers x G / (C + X) stays below the server NIC: lambda = 1, and
  // the servers apply 8 / (C + X) updates per second.
  const JobSpec job = ps_spec("async", 1600, true);
  const Topology topo(cluster());
  const ModelParams& model = ModelCatalog::builtin().at(job.model);
  const PsJob ps = parameter_server_job(topo, GpuCatalog::builtin(), model, job, ps_placement());
  ASSERT_EQ(ps_async_rate(topo, ps).lambda, 1.0);
  EXPECT_NEAR(run_one(job) / analytic_s(job), 1.0, 0.02);
}

TEST(PsJobReplay, SynchronousStragglersSlowEveryStep) {
  // Every worker is a 3x straggler: each step is 3 C + X.
  JobSpec job = ps_spec("slow", 20, false);
  job.ps.straggler_probability = 1;
  job.ps.straggler_min_slowdown = 3;
  job.ps.straggler_max_slowdown = 3;
  const double want = analytic_s(job);
  EXPECT_GT(want, analytic_s(ps_spec("fast", 20, false)) * 1.5);
  EXPECT_NEAR(run_one(job) / want, 1.0, 0.02);
}

TEST(PsJobReplay, ServerNicIsSharedWithOtherJobs) {
  // A ring over node 0 (GPUs 1-3, beside the server) and node 1 sends one
  // flow into node 0's NIC, which also carries the 8 workers' pushes.
  const JobSpec ps = ps_spec("ps", 20, false);
  const ModelParams& model = testing::most_communicating_model();
  const JobSpec ring = testing::make_job("ring", 0, model, 7, 20);
  const std::vector<GpuId> ring_gpus = {1, 2, 3, 4, 5, 6, 7};
  testing::ScriptedPolicy policy({{0, ps_placement()}, {1, ring_gpus}});
  // Fluid rings (the default) do not contend with parameter-server jobs: the
  // actor engine does.
  const ReplayResult r = run_replay(cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), {ps, ring},
                                    policy, testing::actor_ring_options());
  ASSERT_EQ(r.jobs.at(0).state, FinalState::Completed);
  ASSERT_EQ(r.jobs.at(1).state, FinalState::Completed);
  const Topology topo(cluster());
  const double ring_alone = 20 * iteration_time(topo, GpuCatalog::builtin(), model,
                                                spread_virtual_nodes(ring_gpus, 7), ring.global_batch)
                                     .total_s;
  const double ps_took = r.jobs[0].finish_s - r.jobs[0].start_s;
  const double ring_took = r.jobs[1].finish_s - r.jobs[1].start_s;
  // The ring's one flow takes 1/9 of the NIC during the pushes: a small
  // but certain slowdown for the PS job, a large one for the ring.
  EXPECT_GT(ps_took, 1.002 * analytic_s(ps));
  EXPECT_GT(ring_took, 1.05 * ring_alone);
}

TEST(PsJobReplay, TwoJobsWithServersOnOneNodeShareItsNic) {
  // Servers on GPUs 0 and 1 (node 0), 4 workers each on nodes 2 and 3. The
  // identical jobs push and pull in lockstep, so node 0's NIC carries 8
  // gradients per phase: each step is that of one server with 8 workers
  // whose compute is a 4-worker job's.
  JobSpec a = ps_spec("a", 20, false), b = ps_spec("b", 20, false);
  a.gpus = b.gpus = 5;
  const std::vector<GpuId> a_gpus = {0, 8, 9, 10, 11}, b_gpus = {1, 12, 13, 14, 15};
  testing::ScriptedPolicy policy({{0, a_gpus}, {1, b_gpus}});
  const ReplayResult r =
      run_replay(cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), {a, b}, policy, {});
  const Topology topo(cluster());
  const ModelParams& model = ModelCatalog::builtin().at(a.model);
  PsJob shared = parameter_server_job(topo, GpuCatalog::builtin(), model, a, a_gpus);
  const double alone_step = ps_sync_step_s(topo, shared);
  shared.workers = testing::gpu_range(8, 8);
  shared.worker_compute_s.assign(8, shared.worker_compute_s.front());
  const double shared_step = ps_sync_step_s(topo, shared);
  ASSERT_GT(shared_step, 1.2 * alone_step);
  for (const JobRecord& rec : r.jobs) {
    ASSERT_EQ(rec.state, FinalState::Completed) << rec.reason;
    EXPECT_NEAR((rec.finish_s - rec.start_s) / (20 * shared_step), 1.0, 0.02) << rec.id;
  }
}

}  // namespace
}  // namespace vnsim

namespace vnsim {
namespace {

// For docs/NETWORK.md only (run with --gtest_also_run_disabled_tests):
// asynchronous workers that saturate the server's NIC (lambda > 1), where the
// fluid model lets pushes and pulls overlap freely.
TEST(PsJobReplay, DISABLED_SaturatedAsynchronousForTheRecord) {
  // 1 server alone on node 0, 16 workers on nodes 1-4 of a 5 x 4-GPU rack.
  const Cluster c(testing::test_cluster("sim-1x5x4"));
  const ModelParams& model = testing::most_communicating_model();
  JobSpec job = testing::make_job("sat", 0, model, 17, 3200);
  job.global_batch = 16 * model.min_local_batch;
  job.ps.servers = 1;
  job.ps.async = true;
  std::vector<GpuId> gpus = {0};
  for (GpuId g = 4; g < 20; ++g) gpus.push_back(g);
  const Topology topo(c);
  const PsJob ps = parameter_server_job(topo, GpuCatalog::builtin(), model, job, gpus);
  const PsAsyncRate rate = ps_async_rate(topo, ps);
  testing::ScriptedPolicy policy({{0, gpus}});
  const ReplayResult r = run_replay(c, GpuCatalog::builtin(), ModelCatalog::builtin(), {job}, policy, {});
  const double took = r.jobs.at(0).finish_s - r.jobs.at(0).start_s;
  std::printf("lambda=%.4f analytic=%.3f s simulated=%.3f s ratio=%.4f\n", rate.lambda,
              3200 / rate.updates_per_s, took, took * rate.updates_per_s / 3200);
}

}  // namespace
}  // namespace vnsim
