// The replay engine's bookkeeping: admission, rejection reasons, the idle
// deadlock guard, exact analytic single-node jobs, same-instant reuse of
// GPUs, and refusal of unsupported or invalid decisions (preemption itself:
// preemption_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "sim_test_support.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

const GpuCatalog& gpus() {
  return GpuCatalog::builtin();
}
const ModelCatalog& models() {
  return ModelCatalog::builtin();
}
const ModelParams& any_model() {
  return models().at(models().names().front());
}

double analytic_iteration_s(const Cluster& cluster, const JobSpec& job, const std::vector<GpuId>& on) {
  const Topology topo(cluster);
  return iteration_time(topo, gpus(), models().at(job.model),
                        spread_virtual_nodes(on, job.effective_virtual_nodes()), job.global_batch)
      .total_s;
}

TEST(Engine, InfeasibleJobIsRejectedWithItsReason) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("huge", 1.0, any_model(), 5, 10)};
  const auto why = why_infeasible(jobs[0], cluster, gpus(), models());
  ASSERT_TRUE(why.has_value());
  testing::ScriptedPolicy policy({});
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].state, FinalState::Rejected);
  EXPECT_EQ(r.jobs[0].reason, *why);
  EXPECT_EQ(r.jobs[0].start_s, -1);
  EXPECT_EQ(r.jobs[0].gpu_seconds, 0);
  EXPECT_TRUE(r.allocations.empty());
  EXPECT_EQ(r.simulated_end_s, 1.0);
}

TEST(Engine, JobNeverStartedOnIdleClusterIsRejectedNotHung) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("ignored", 2.0, any_model(), 2, 10)};
  testing::ScriptedPolicy policy({});  // never starts anything
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_EQ(r.jobs[0].state, FinalState::Rejected);
  EXPECT_EQ(r.jobs[0].reason, "policy left the job queued on an idle cluster");
  EXPECT_GE(policy.calls, 1);
}

TEST(Engine, SingleNodeJobFinishesAtExactAnalyticTime) {
  Cluster cluster(testing::test_cluster("sim-1x2x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("local", 5.25, any_model(), 4, 1234)};
  const std::vector<GpuId> on = testing::gpu_range(4, 4);
  testing::ScriptedPolicy policy({{0, on}});
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  const JobRecord& rec = r.jobs[0];
  ASSERT_EQ(rec.state, FinalState::Completed) << rec.reason;
  const double t_iter = analytic_iteration_s(cluster, jobs[0], on);
  EXPECT_EQ(rec.start_s, 5.25);
  EXPECT_EQ(rec.finish_s, 5.25 + 1234 * t_iter);
  EXPECT_EQ(rec.gpus, on);
  EXPECT_DOUBLE_EQ(rec.gpu_seconds, 4 * (rec.finish_s - rec.start_s));
  EXPECT_EQ(rec.restarts, 0);
  EXPECT_EQ(rec.iterations, 1234);
  EXPECT_EQ(rec.model, jobs[0].model);
  EXPECT_EQ(r.simulated_end_s, rec.finish_s);
  ASSERT_EQ(r.allocations.size(), 2u);
  EXPECT_TRUE(r.allocations[0].taken);
  EXPECT_FALSE(r.allocations[1].taken);
  EXPECT_EQ(r.allocations[1].time_s, rec.finish_s);
}

TEST(Engine, GpusReleasedAtAnInstantAreReusedAtThatInstant) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<GpuId> on = testing::gpu_range(0, 2);
  JobSpec first = testing::make_job("first", 0.0, any_model(), 2, 100);
  const double end = 100 * analytic_iteration_s(cluster, first, on);
  // The second job arrives exactly when the first ends, wanting its GPUs.
  const std::vector<JobSpec> jobs = {first, testing::make_job("second", end, any_model(), 2, 100)};
  testing::ScriptedPolicy policy({{0, on}, {1, on}});
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_EQ(r.jobs[0].finish_s, end);
  EXPECT_EQ(r.jobs[1].start_s, end);
  ASSERT_EQ(r.allocations.size(), 4u);
  EXPECT_EQ(r.allocations[1].job, 0u);
  EXPECT_FALSE(r.allocations[1].taken);  // completion first...
  EXPECT_EQ(r.allocations[2].job, 1u);
  EXPECT_TRUE(r.allocations[2].taken);  // ...then the start at the same instant
}

TEST(Engine, JobsOnOneNodeRunConcurrentlyAndProgressIsReported) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  std::vector<JobSpec> jobs;
  std::map<JobIndex, std::vector<GpuId>> plan;
  for (int i = 0; i < 4; ++i) {
    jobs.push_back(testing::make_job("j" + std::to_string(i), i * 0.5, any_model(), 1, 50 + 10 * i));
    plan[i] = {i};
  }
  testing::ScriptedPolicy policy(plan);
  std::vector<ReplayProgress> progress;
  ReplayOptions opts;
  opts.progress = [&](const ReplayProgress& p) { progress.push_back(p); };
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, opts);
  double last = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(r.jobs[i].start_s, jobs[i].submit_s);
    last = std::max(last, r.jobs[i].finish_s);
  }
  EXPECT_EQ(r.simulated_end_s, last);
  // A report at every controller step: the simulated clock and the jobs
  // done only move forward, within the trace's submit span [0, 1.5] s.
  ASSERT_GE(progress.size(), 8u);  // 4 arrivals and 4 completions at distinct times
  for (std::size_t i = 0; i < progress.size(); ++i) {
    EXPECT_EQ(progress[i].jobs_total, 4u);
    EXPECT_EQ(progress[i].first_submit_s, 0.0);
    EXPECT_EQ(progress[i].last_submit_s, 1.5);
    if (i == 0) continue;
    EXPECT_GE(progress[i].simulated_s, progress[i - 1].simulated_s);
    EXPECT_GE(progress[i].jobs_done, progress[i - 1].jobs_done);
  }
  EXPECT_EQ(progress.back().jobs_done, 4u);
  EXPECT_EQ(progress.back().simulated_s, r.simulated_end_s);
  EXPECT_GE(r.scheduler_wall_s, 0);
}

// Starts queued jobs only at round boundaries (every `round_s`), like a
// round-based policy.
class RoundPolicy : public testing::ScriptedPolicy {
 public:
  RoundPolicy(std::map<JobIndex, std::vector<GpuId>> plan, double round_s, bool ever_start)
      : ScriptedPolicy(std::move(plan)), round_s_(round_s), ever_start_(ever_start) {}
  std::vector<Decision> decide(const SchedulerInput& in) override {
    const double phase = std::fmod(in.now_s, round_s_);
    if (!ever_start_ || phase != 0) return {};
    return ScriptedPolicy::decide(in);
  }
  std::optional<double> next_timer_s(double now_s) const override {
    return (std::floor(now_s / round_s_) + 1) * round_s_;
  }

 private:
  double round_s_;
  bool ever_start_;
};

TEST(Engine, PolicyTimerWakesTheController) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 1.0, any_model(), 1, 10)};
  RoundPolicy policy({{0, {0}}}, 8.0, true);
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_EQ(r.jobs[0].state, FinalState::Completed) << r.jobs[0].reason;
  EXPECT_EQ(r.jobs[0].start_s, 8.0);
}

TEST(Engine, TimerPolicyThatNeverStartsIsStoppedNotSpun) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 1.0, any_model(), 1, 10)};
  RoundPolicy policy({{0, {0}}}, 8.0, false);
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_EQ(r.jobs[0].state, FinalState::Rejected);
  EXPECT_EQ(r.jobs[0].reason, "policy left the job queued on an idle cluster");
  EXPECT_GT(r.simulated_end_s, 8.0 * 100);  // it was given many rounds first
}

class OneDecisionPolicy : public Policy {
 public:
  explicit OneDecisionPolicy(Decision d) : d_(std::move(d)) {}
  std::string name() const override { return "one-decision"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    if (in.queued.empty()) return {};
    return {d_};
  }

 private:
  Decision d_;
};

TEST(Engine, PreemptingAJobThatIsNotRunningIsRefusedClearly) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 0.0, any_model(), 1, 10)};
  OneDecisionPolicy policy(PreemptJob{0});
  try {
    run_replay(cluster, gpus(), models(), jobs, policy, {});
    FAIL() << "PreemptJob of a queued job was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("not running"), std::string::npos) << e.what();
  }
}

// Resizes themselves are tested in elasticity_test.cpp; one of a job that
// is only queued is a policy bug.
TEST(Engine, ResizeOfAQueuedJobIsRefusedClearly) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 0.0, any_model(), 1, 10)};
  OneDecisionPolicy policy(ResizeJob{0, {{0}, {1}}});
  try {
    run_replay(cluster, gpus(), models(), jobs, policy, {});
    FAIL() << "ResizeJob was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("which is not running"), std::string::npos) << e.what();
  }
}

TEST(Engine, StartingAJobTwiceIsAnError) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 0.0, any_model(), 1, 10)};
  // Returns the same start forever: the second application must fail, not over-commit.
  class Twice : public Policy {
   public:
    std::string name() const override { return "twice"; }
    std::vector<Decision> decide(const SchedulerInput&) override { return {StartJob{0, {{0}, {1}}}}; }
  } policy;
  EXPECT_THROW(run_replay(cluster, gpus(), models(), jobs, policy, {}), std::logic_error);
}

TEST(Engine, PolicyRejectionKeepsItsReason) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 3.0, any_model(), 1, 10)};
  OneDecisionPolicy policy(RejectJob{0, "not today"});
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_EQ(r.jobs[0].state, FinalState::Rejected);
  EXPECT_EQ(r.jobs[0].reason, "not today");
}

TEST(Engine, QueuedJobsSeeAnEstimateAndRunningJobsTheirProgress) {
  Cluster cluster(testing::test_cluster("sim-1x1x4"));
  const std::vector<JobSpec> jobs = {testing::make_job("a", 0.0, any_model(), 4, 100),
                                     testing::make_job("b", 1e-3, any_model(), 4, 100)};
  class Observer : public testing::ScriptedPolicy {
   public:
    using ScriptedPolicy::ScriptedPolicy;
    std::vector<Decision> decide(const SchedulerInput& in) override {
      for (const auto& q : in.queued) EXPECT_GT(q.estimated_remaining_s, 0) << q.index;
      for (const auto& run : in.running)
        if (in.now_s > run.start_s)
          seen_running_progress = run.attained_gpu_s > 0 && run.estimated_remaining_s >= 0;
      return ScriptedPolicy::decide(in);
    }
    bool seen_running_progress = false;
  } policy({{0, testing::gpu_range(0, 4)}, {1, testing::gpu_range(0, 4)}});
  const ReplayResult r = run_replay(cluster, gpus(), models(), jobs, policy, {});
  EXPECT_TRUE(policy.seen_running_progress);
  EXPECT_EQ(r.jobs[1].start_s, r.jobs[0].finish_s);
}

}  // namespace
}  // namespace vnsim
