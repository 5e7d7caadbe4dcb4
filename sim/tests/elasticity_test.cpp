// Elastic resize, checkpoints, revocations, cost and energy in the engine, on
// scenarios whose timeline is computed by hand from the analytic iteration
// time T (docs/ELASTICITY.md, docs/SPOT.md).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "allocation_log_check.hpp"
#include "sim_test_support.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/transformer_models.hpp"
#include "vnsim/policies/fifo_policy.hpp"
#include "vnsim/policies/vf_wfs_policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

const ModelParams& bert() {
  return ModelCatalog::builtin().at("bert");
}
// Weights + optimizer state of bert: weight_state - gradient = 1.76e9 - 0.44e9.
constexpr double kBertStateBytes = 1.32e9;

double iteration_s(const Cluster& cluster, const JobSpec& job, const std::vector<GpuId>& on) {
  const Topology topo(cluster);
  return iteration_time(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(job.model),
                        spread_virtual_nodes(on, job.effective_virtual_nodes()), job.global_batch)
      .total_s;
}

// Starts every queued job on `start` whenever those GPUs are free, and at
// `at_s` applies `action` once.
class OneActionPolicy : public Policy {
 public:
  OneActionPolicy(std::vector<GpuId> start, double at_s, std::optional<Decision> action)
      : start_(std::move(start)), at_s_(at_s), action_(std::move(action)) {}
  std::string name() const override { return "one-action"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    std::vector<Decision> out;
    if (action_ && !acted_ && in.now_s >= at_s_ && !in.running.empty()) {
      acted_ = true;
      out.push_back(*action_);
      return out;
    }
    for (const QueuedJob& q : in.queued) {
      bool free = true;
      for (GpuId g : start_) free = free && in.view->is_free(g);
      if (free)
        out.push_back(StartJob{q.index, spread_virtual_nodes(start_, q.spec->effective_virtual_nodes())});
      break;
    }
    return out;
  }
  std::optional<double> next_timer_s(double now_s) const override {
    if (action_ && !acted_ && at_s_ > now_s) return at_s_;
    return std::nullopt;
  }

 private:
  std::vector<GpuId> start_;
  double at_s_;
  std::optional<Decision> action_;
  bool acted_ = false;
};

// One bert job with V = 2 virtual nodes, started on GPU 0 alone.
JobSpec bert_job(long long iterations) {
  JobSpec j = testing::make_job("j", 0.0, bert(), 1, iterations);
  j.virtual_nodes = 2;
  j.global_batch = 2 * bert().min_local_batch;
  return j;
}

ReplayResult replay(const Cluster& cluster, const std::vector<JobSpec>& jobs, Policy& policy,
                    const ReplayOptions& options = {}) {
  return run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, options);
}

TEST(Resize, InPlaceCostsSetupPlusStateOverTheLinkAndKeepsProgress) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  const double t1 = iteration_s(cluster, job, {0});
  const double t2 = iteration_s(cluster, job, {0, 1});
  const double at = 10.5 * t1;  // 10 whole iterations done, half of one lost
  OneActionPolicy policy({0}, at, ResizeJob{0, Placement{{0, 1}, {}}, ResizeMode::InPlace, 0});
  const ReplayResult r = replay(cluster, {job}, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  // Hand computation: communicator rebuild 1 s (default) + 1.32e9 B from GPU 0
  // to GPU 1 over NVLink 300 GB/s (4.4 ms) + two NVLink hops of 0.5 us.
  const double resize = 1.0 + kBertStateBytes / 300e9 + 2 * 0.5e-6;
  EXPECT_NEAR(resize, 1.004401, 1e-9);
  EXPECT_NEAR(r.jobs[0].finish_s, at + resize + 990 * t2, 1e-6);
  EXPECT_EQ(r.jobs[0].restarts, 1);
  EXPECT_EQ(r.jobs[0].lost_work_s, 0.0);
  EXPECT_EQ(r.jobs[0].gpus, (std::vector<GpuId>{0, 1}));
}

TEST(Resize, InPlaceAcrossNodesPaysTheNicBandwidth) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  const double t1 = iteration_s(cluster, job, {0});
  const double at = 10.5 * t1;
  OneActionPolicy policy({0}, at, ResizeJob{0, Placement{{0, 4}, {}}, ResizeMode::InPlace, 0});
  const ReplayResult r = replay(cluster, {job}, policy);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  // 1 s + 1.32e9 B over the 100 Gb/s NICs (12.5 GB/s: 0.1056 s) + latencies
  // NVLink 0.5 us, NIC 1 us, NIC 1 us, NVLink 0.5 us (same rack: no uplink).
  const double resize = 1.0 + kBertStateBytes / 12.5e9 + 3e-6;
  const double t2 = iteration_s(cluster, job, {0, 4});
  // Cross-node runs are ring jobs: iteration times are simulated, so compare
  // loosely (macro-iterations, contention-free here).
  EXPECT_NEAR(r.jobs[0].finish_s, at + resize + 990 * t2, 1e-3 * r.jobs[0].finish_s);
  EXPECT_GT(r.jobs[0].finish_s, at + resize + 990 * t2 - 1e-3 * r.jobs[0].finish_s);
}

TEST(Resize, CheckpointRestartCostsSaveRestartAndRestoreWithPerModelDelay) {
  ClusterSpec spec = testing::test_cluster("sim-1x2x4");
  spec.elasticity.storage_bandwidth_Bps = 2e9;
  spec.elasticity.restart_delay_by_model_s["bert"] = 7;
  const Cluster cluster(spec);
  const JobSpec job = bert_job(1000);
  const double t1 = iteration_s(cluster, job, {0});
  const double t2 = iteration_s(cluster, job, {0, 1});
  const double at = 10.5 * t1;
  OneActionPolicy policy({0}, at, ResizeJob{0, Placement{{0, 1}, {}}, ResizeMode::CheckpointRestart, 0});
  const ReplayResult r = replay(cluster, {job}, policy);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  // Save 1.32e9 / 2e9 = 0.66 s, restart 7 s (bert override), restore 0.66 s.
  const double resize = 0.66 + 7 + 0.66;
  EXPECT_NEAR(r.jobs[0].finish_s, at + resize + 990 * t2, 1e-6);
}

TEST(Resize, ShrinkOnlyRebuildsTheCommunicator) {
  ClusterSpec spec = testing::test_cluster("sim-1x2x4");
  spec.elasticity.communicator_setup_s = 2.5;
  const Cluster cluster(spec);
  JobSpec job = bert_job(1000);
  const double t2 = iteration_s(cluster, job, {0, 1});
  const double t1 = iteration_s(cluster, job, {0});
  const double at = 20.5 * t2;
  OneActionPolicy policy({0, 1}, at, ResizeJob{0, Placement{{0}, {}}, ResizeMode::InPlace, 0});
  const ReplayResult r = replay(cluster, {job}, policy);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_NEAR(r.jobs[0].finish_s, at + 2.5 + 980 * t1, 1e-6);
}

TEST(Resize, OntoGpusThatAreTakenIsAPolicyBug) {
  const Cluster cluster(testing::test_cluster("sim-1x1x4"));
  JobSpec a = bert_job(1000);
  JobSpec b = bert_job(1000);
  b.id = "b";
  class TwoJobs : public Policy {
   public:
    std::string name() const override { return "two"; }
    std::vector<Decision> decide(const SchedulerInput& in) override {
      if (in.queued.size() == 2)
        return {StartJob{0, spread_virtual_nodes({0}, 2)}, StartJob{1, spread_virtual_nodes({1}, 2)},
                ResizeJob{0, Placement{{0, 1}, {}}, ResizeMode::InPlace, 0}};
      return {};
    }
  } policy;
  EXPECT_THROW(replay(cluster, {a, b}, policy), std::logic_error);
}

TEST(Checkpoints, PreemptionLosesTheWorkSinceTheLastCheckpointAndPaysARestore) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(2000);
  const double t = iteration_s(cluster, job, {0});
  ReplayOptions options;
  options.checkpoint_interval_s = 100;
  const double at = 250;
  ASSERT_LT(at, 2000 * t);
  OneActionPolicy policy({0}, at, PreemptJob{0});
  const ReplayResult r = replay(cluster, {job}, policy, options);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  // Checkpoints at 100 and 200 s: the 50 s since the last one are lost; the
  // job restarts at once and first restores: 30 s + 1.32e9 B / 1.25e9 B/s.
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_work_s, 50);
  const auto kept = static_cast<long long>(std::floor(200 / t));
  const double restore = 30 + kBertStateBytes / 1.25e9;
  EXPECT_NEAR(r.jobs[0].finish_s, at + restore + static_cast<double>(2000 - kept) * t, 1e-6);
  EXPECT_EQ(r.jobs[0].restarts, 1);
}

// A DP x TP x PP job's model (gpt-1.3b) is not in the data-parallel catalog:
// its restore reads 14 B per parameter of the transformer model (the run
// used to stop with "unknown model 'gpt-1.3b'").
TEST(Checkpoints, ALayoutJobRestoresItsTransformerState) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  JobSpec job;
  job.id = "g";
  job.model = "gpt-1.3b";
  job.gpus = 4;
  job.tp = 2;
  job.pp = 2;
  job.global_batch = 16;
  job.iterations = 2000;
  const Topology topo(cluster);
  const double t = layout_iteration_s(topo, GpuCatalog::builtin(), job, {0, 1, 2, 3});
  ReplayOptions options;
  options.checkpoint_interval_s = 100;
  const double at = 250;
  ASSERT_LT(at, 2000 * t);
  OneActionPolicy policy({0, 1, 2, 3}, at, PreemptJob{0});
  const ReplayResult r = replay(cluster, {job}, policy, options);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_work_s, 50);
  const auto kept = static_cast<long long>(std::floor(200 / t));
  const double state = 14 * find_transformer_model("gpt-1.3b")->parameter_count();
  const double restore = 30 + state / 1.25e9;
  EXPECT_NEAR(r.jobs[0].finish_s, at + restore + static_cast<double>(2000 - kept) * t, 1e-6);
  EXPECT_EQ(r.jobs[0].restarts, 1);
}

TEST(Checkpoints, WithoutAnIntervalPreemptionStaysFree) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(2000);
  const double t = iteration_s(cluster, job, {0});
  const double at = 250;
  OneActionPolicy policy({0}, at, PreemptJob{0});
  const ReplayResult r = replay(cluster, {job}, policy);
  const auto kept = static_cast<long long>(std::floor(at / t));
  EXPECT_EQ(r.jobs[0].lost_work_s, 0.0);
  EXPECT_NEAR(r.jobs[0].finish_s, at + static_cast<double>(2000 - kept) * t, 1e-6);
}

// A model calibration's start charge (the Sia artifact's rescale_time)
// delays every start, resume and checkpoint-restart move by the model's
// charge, in place of the restart, save and restore. One replay per process,
// so one case per test.
ReplayResult run_charged(const Cluster& cluster, const JobSpec& job, Policy& policy) {
  const ModelCatalog charged = ModelCatalog::builtin().with_start_charges({{"bert", 12}}, 30);
  EXPECT_EQ(charged.at("bert").start_charge_s, 12);
  EXPECT_EQ(charged.at("cifar10").start_charge_s, 30);  // not named: the default
  return run_replay(cluster, GpuCatalog::builtin(), charged, {job}, policy, {});
}

TEST(StartCharge, DelaysTheFirstStart) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  OneActionPolicy plain({0}, 0, std::nullopt);
  const ReplayResult r = run_charged(cluster, job, plain);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_NEAR(r.jobs[0].finish_s, 12 + 1000 * iteration_s(cluster, job, {0}), 1e-6);
}

// Preempted at `at` (no checkpoints: progress kept) and resumed at once: the
// resume pays 12 s again.
TEST(StartCharge, DelaysAResume) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  const double t1 = iteration_s(cluster, job, {0});
  const double at = 12 + 100.5 * t1;
  OneActionPolicy preempt({0}, at, PreemptJob{0});
  const ReplayResult r = run_charged(cluster, job, preempt);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_NEAR(r.jobs[0].finish_s, at + 12 + 900 * t1, 1e-6);
}

// A checkpoint-restart move to two GPUs pays 12 s, not save + restart +
// restore (1.32e9 / 1.25e9 + 30 + 1.32e9 / 1.25e9 s without the charge).
TEST(StartCharge, ReplacesTheCostOfACheckpointRestartMove) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  const double t1 = iteration_s(cluster, job, {0});
  const double at = 12 + 100.5 * t1;
  OneActionPolicy move({0}, at, ResizeJob{0, Placement{{0, 1}, {}}, ResizeMode::CheckpointRestart, 0});
  const ReplayResult r = run_charged(cluster, job, move);
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_NEAR(r.jobs[0].finish_s, at + 12 + 900 * iteration_s(cluster, job, {0, 1}), 1e-6);
}

TEST(StartCharge, TheUncalibratedCatalogChargesNothingOnAStart) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(1000);
  EXPECT_FALSE(bert().start_charge_s.has_value());
  OneActionPolicy plain({0}, 0, std::nullopt);
  const ReplayResult r = replay(cluster, {job}, plain);
  EXPECT_NEAR(r.jobs[0].finish_s, 1000 * iteration_s(cluster, job, {0}), 1e-6);
}

TEST(Spot, RevokedJobLosesWorkSinceCheckpointAndWaitsForItsNode) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const JobSpec job = bert_job(2000);
  const double t = iteration_s(cluster, job, {0});
  ReplayOptions options;
  options.checkpoint_interval_s = 100;
  options.node_events.push_back(NodeEvent{250, 0, 400});  // node 0 down over [250, 650)
  OneActionPolicy policy({0}, 0, std::nullopt);
  const ReplayResult r = replay(cluster, {job}, policy, options);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_work_s, 50);
  const auto kept = static_cast<long long>(std::floor(200 / t));
  const double restore = 30 + kBertStateBytes / 1.25e9;
  EXPECT_NEAR(r.jobs[0].finish_s, 650 + restore + static_cast<double>(2000 - kept) * t, 1e-6);
  EXPECT_EQ(r.usage.node_events, 1);
  EXPECT_EQ(r.usage.jobs_revoked, 1);
  // Node 0's 4 GPUs were down for 400 s of the run.
  EXPECT_NEAR(r.usage.per_type.at(0).down_gpu_s, 4 * 400, 1e-6);
}

TEST(Spot, NoJobIsLostAcrossRandomRevocations) {
  const Cluster cluster(testing::test_cluster("sim-2x2x4-spot"));  // every node spot
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 40; ++i) {
    const int gpus = 1 << (i % 4);  // 1, 2, 4, 8: some span nodes
    JobSpec j = testing::make_job("j" + std::to_string(i), 30.0 * i, bert(), gpus, 200 + 37 * i);
    jobs.push_back(j);
  }
  ReplayOptions options;
  options.checkpoint_interval_s = 60;
  options.revocation_rate_per_node_hour = 2;
  options.node_down_s = 300;
  options.seed = 7;
  FifoPolicy policy(true);
  const ReplayResult r = replay(cluster, jobs, policy, options);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  std::size_t completed = 0, rejected = 0;
  for (const JobRecord& j : r.jobs) (j.state == FinalState::Completed ? completed : rejected) += 1;
  EXPECT_EQ(completed + rejected, jobs.size());
  EXPECT_EQ(rejected, 0u);
  EXPECT_GT(r.usage.node_events, 0);
  EXPECT_GT(r.usage.jobs_revoked, 0);
  EXPECT_GT(r.usage.lost_work_s, 0);
  double lost = 0;
  for (const JobRecord& j : r.jobs) {
    EXPECT_LT(j.lost_work_s, 60.0 * (j.restarts + 1)) << j.id;  // at most one interval per revocation
    lost += j.lost_work_s;
  }
  EXPECT_NEAR(lost, r.usage.lost_work_s, 1e-6);
}

TEST(Accounting, EnergyAndCostFollowBusyAndIdleTimeAndTheSpotPrice) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4-spot-r0n1"));  // node 1 spot
  JobSpec a = bert_job(500);
  JobSpec b = bert_job(500);
  b.id = "b";
  class Place : public Policy {
   public:
    std::string name() const override { return "place"; }
    std::vector<Decision> decide(const SchedulerInput& in) override {
      std::vector<Decision> out;
      for (const QueuedJob& q : in.queued)
        out.push_back(StartJob{q.index, spread_virtual_nodes({q.index == 0 ? 0 : 4}, 2)});
      return out;
    }
  } policy;
  const ReplayResult r = replay(cluster, {a, b}, policy);
  const GpuType& t4 = GpuCatalog::builtin().at("T4");
  const double d = r.jobs[0].finish_s;  // both run alone on one T4 for the same time
  ASSERT_NEAR(r.jobs[1].finish_s, d, 1e-9);
  EXPECT_NEAR(r.jobs[0].energy_j, t4.busy_watts * d, 1e-6);
  EXPECT_NEAR(r.jobs[0].cost_usd, t4.usd_per_gpu_hour * d / 3600, 1e-9);
  EXPECT_NEAR(r.jobs[1].cost_usd, t4.spot_usd_per_gpu_hour * d / 3600, 1e-9);
  ASSERT_EQ(r.usage.per_type.size(), 1u);
  const GpuTypeUsage& u = r.usage.per_type[0];
  EXPECT_NEAR(u.on_demand_busy_gpu_s, d, 1e-9);
  EXPECT_NEAR(u.spot_busy_gpu_s, d, 1e-9);
  EXPECT_NEAR(u.idle_gpu_s, 6 * d, 1e-6);  // 8 GPUs over [0, d], 2 busy
  EXPECT_NEAR(u.idle_energy_j, t4.idle_watts * 6 * d, 1e-3);
  EXPECT_NEAR(u.busy_energy_j, t4.busy_watts * 2 * d, 1e-3);
}

TEST(VfWfsInEngine, SecondJobHalvesTheFirstInPlaceAndBothComplete) {
  const Cluster cluster(testing::test_cluster("sim-1x1x4"));
  JobSpec a = testing::make_job("a", 0.0, bert(), 4, 3000);
  JobSpec b = testing::make_job("b", 100.0, bert(), 4, 1000);
  VfWfsPolicy policy;
  const ReplayResult r = replay(cluster, {a, b}, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;
  // b arrives: shares 2 + 2, a shrinks in place (restart 1); b ends and a
  // grows back to 4 (restart 2). b started at once on 2 GPUs.
  EXPECT_EQ(r.jobs[0].restarts, 2);
  EXPECT_EQ(r.jobs[1].start_s, 100.0);
  EXPECT_EQ(r.jobs[0].gpus.size(), 4u);
}

// A parameter-server job runs only on its requested GPUs: vf-wfs leaves it
// out of the sharing instead of halving it, which the engine could not run
// ("placement has 4 GPUs, job requests 5" before vf-wfs knew rigid jobs).
TEST(VfWfsInEngine, AParameterServerJobKeepsItsGpusWhileAnotherJobShares) {
  const Cluster cluster(testing::test_cluster("sim-1x2x4"));
  JobSpec ps = testing::make_job("p", 0.0, bert(), 5, 200);
  ps.ps.servers = 1;
  JobSpec b = testing::make_job("b", 1.0, bert(), 8, 200);
  VfWfsPolicy policy;
  const ReplayResult r = replay(cluster, {ps, b}, policy);
  testing::expect_no_overcommit(r, cluster.gpu_count());
  ASSERT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  ASSERT_EQ(r.jobs[1].state, FinalState::Completed) << r.jobs[1].reason;
  // p holds its 5 GPUs from start to end; b starts at once on 2 of the 3
  // free ones (a power of 2) and grows when p ends.
  EXPECT_EQ(r.jobs[0].restarts, 0);
  EXPECT_EQ(r.jobs[0].gpus.size(), 5u);
  EXPECT_EQ(r.jobs[1].start_s, 1.0);
}

}  // namespace
}  // namespace vnsim
