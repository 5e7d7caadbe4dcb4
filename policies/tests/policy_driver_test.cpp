// The PolicyDriver on a fake executor, one node of 4 V100s: queue order,
// feasibility at arrival, requeue at the submission-order place with the
// alone-estimate scaled to the iterations left, the checks of decisions, the
// looping guard and the idle-cluster guard, all worked out by hand; the
// changes a policy is told of between calls, and Tiresias driven by them.
#include "vnsim/policies/policy_driver.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/policies/tiresias_policy.hpp"

namespace vnsim {
namespace {

// Records what the driver asks; allocates whole GPUs in the driver's view.
class FakeExecutor final : public PolicyExecutor {
 public:
  PolicyDriver* driver = nullptr;
  const std::vector<JobSpec>* jobs = nullptr;
  std::vector<std::string> calls;
  bool changing = false;
  int refreshes = 0;

  JobProgress arrived(JobIndex job, double now) override {
    calls.push_back("arrived " + std::to_string(job) + " at " + std::to_string(static_cast<int>(now)));
    return {};
  }
  // What it started, kept here: reading the driver's running list in the
  // middle of a batch of decisions would make the driver bring it up to date.
  std::map<JobIndex, RunningJob> held;
  RunningJob start(const StartJob& d, double now) override {
    calls.push_back("start " + std::to_string(d.job) + " at " + std::to_string(static_cast<int>(now)));
    driver->view().allocate(d.placement.gpus, d.job);
    const RunningJob r{d.job, &jobs->at(d.job), d.placement, now, 0, -1};
    held.insert_or_assign(d.job, r);
    return r;
  }
  bool keep_service = false;  // requeue with the GPU-s held, not 7
  void preempt(JobIndex job, double now) override {
    calls.push_back("preempt " + std::to_string(job));
    double attained = 7;
    const RunningJob& r = held.at(job);
    driver->view().release(r.placement.gpus, job);
    if (keep_service) attained = static_cast<double>(r.placement.gpus.size()) * (now - r.start_s);
    held.erase(job);
    driver->requeue(job, JobProgress{attained, 50});  // half of its 100 iterations done
  }
  void resize(const ResizeJob& d, double) override { calls.push_back("resize " + std::to_string(d.job)); }
  void rejected(JobIndex job, double, const std::string& reason) override {
    calls.push_back("rejected " + std::to_string(job) + ": " + reason);
  }
  void refresh_running(std::vector<RunningJob>&, double) override { ++refreshes; }
  bool will_change_by_itself() const override { return changing; }
  std::string idle_reason(JobIndex) const override { return "idle"; }
};

// Answers with whatever the test's function returns.
class ScriptedPolicy final : public Policy {
 public:
  std::function<std::vector<Decision>(const SchedulerInput&)> script;
  std::vector<SchedulerInput> seen;
  std::string name() const override { return "scripted"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    seen.push_back(in);
    return script ? script(in) : std::vector<Decision>{};
  }
};

JobSpec job(const std::string& id, double submit, int gpus) {
  JobSpec s;
  s.id = id;
  s.submit_s = submit;
  s.gpus = gpus;
  s.model = "cifar10";
  s.global_batch = 128 * gpus;
  s.iterations = 100;
  return s;
}

struct DriverRig {
  explicit DriverRig(std::vector<JobSpec> j) : DriverRig(std::move(j), nullptr) {}
  DriverRig(std::vector<JobSpec> j, Policy* other)
      : cluster(testing::test_cluster("v100-1x1x4")),
        topology(cluster),
        jobs(std::move(j)),
        driver(cluster, topology, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs,
               other != nullptr ? *other : static_cast<Policy&>(policy), executor) {
    executor.driver = &driver;
    executor.jobs = &jobs;
  }
  double alone_s(JobIndex j) {
    AloneEstimator e(topology, GpuCatalog::builtin(), ModelCatalog::builtin());
    return e.estimate_s(jobs[j], kAnyGpuType);
  }
  Cluster cluster;
  Topology topology;
  std::vector<JobSpec> jobs;
  ScriptedPolicy policy;
  FakeExecutor executor;
  PolicyDriver driver;
};

TEST(PolicyDriver, ArrivalsQueueInSubmitOrderAndAnInfeasibleJobIsRejectedWithItsReason) {
  // Job 0 arrives last; job 2 needs 8 GPUs of a 4-GPU node.
  DriverRig s({job("late", 20, 1), job("a", 0, 2), job("huge", 5, 8), job("b", 5, 1)});
  s.driver.process_arrivals(5);
  ASSERT_EQ(s.driver.queued().size(), 2u);
  EXPECT_EQ(s.driver.queued()[0].index, 1u);
  EXPECT_EQ(s.driver.queued()[1].index, 3u);
  EXPECT_EQ(s.driver.queued()[0].estimated_remaining_s, s.alone_s(1));
  EXPECT_EQ(s.driver.phase(2), PolicyDriver::Phase::Done);
  ASSERT_EQ(s.executor.calls.size(), 4u);
  EXPECT_EQ(s.executor.calls[2].rfind("rejected 2: ", 0), 0u) << s.executor.calls[2];
  EXPECT_EQ(*s.driver.next_arrival_s(), 20);
}

TEST(PolicyDriver, APreemptedJobGoesBackToItsSubmissionPlaceWithItsEstimateScaled) {
  DriverRig s({job("a", 0, 4), job("b", 1, 1), job("c", 2, 1)});
  s.driver.process_arrivals(0);
  s.policy.script = [&](const SchedulerInput& in) -> std::vector<Decision> {
    if (s.policy.seen.size() == 1) return {StartJob{0, Placement{{0, 1, 2, 3}, {}}}};
    if (in.now_s == 2 && s.driver.phase(0) == PolicyDriver::Phase::Running) return {PreemptJob{0}};
    return {};
  };
  s.driver.run_policy(0);
  EXPECT_EQ(s.driver.running().size(), 1u);
  s.driver.process_arrivals(2);
  s.driver.run_policy(2);
  // a (index 0) is back in front of b and c, with half its alone time.
  ASSERT_EQ(s.driver.queued().size(), 3u);
  EXPECT_EQ(s.driver.queued()[0].index, 0u);
  EXPECT_EQ(s.driver.queued()[0].attained_gpu_s, 7);
  EXPECT_DOUBLE_EQ(s.driver.queued()[0].estimated_remaining_s, s.alone_s(0) * 0.5);
  EXPECT_TRUE(s.driver.running().empty());
  EXPECT_EQ(s.driver.view().free_total(), 4);
}

TEST(PolicyDriver, DecisionsOnJobsInTheWrongPhaseAreRefusedWithTheJobNamed) {
  DriverRig s({job("a", 0, 1), job("b", 10, 1)});
  s.driver.process_arrivals(0);
  s.policy.script = [](const SchedulerInput&) -> std::vector<Decision> { return {StartJob{1, {{0}, {}}}}; };
  try {
    s.driver.run_policy(0);
    FAIL() << "started a job that has not arrived";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "policy 'scripted' tried to start job 1 ('b'), which is not queued");
  }
  s.policy.script = [](const SchedulerInput&) -> std::vector<Decision> { return {PreemptJob{0}}; };
  EXPECT_THROW(s.driver.run_policy(0), std::logic_error);  // queued, not running
  s.policy.script = [](const SchedulerInput&) -> std::vector<Decision> { return {ResizeJob{5, {}}}; };
  EXPECT_THROW(s.driver.run_policy(0), std::logic_error);  // no such job
}

TEST(PolicyDriver, APolicyThatAnswersForeverAtOneInstantIsStopped) {
  DriverRig s({job("a", 0, 1)});
  s.driver.process_arrivals(0);
  // Starts and preempts the same job, over and over.
  s.policy.script = [&](const SchedulerInput&) -> std::vector<Decision> {
    if (s.driver.phase(0) == PolicyDriver::Phase::Queued) return {StartJob{0, {{0}, {}}}};
    return {PreemptJob{0}};
  };
  EXPECT_THROW(s.driver.run_policy(0), std::logic_error);
  EXPECT_EQ(s.policy.seen.size(), 10000u);
}

TEST(PolicyDriver, QueuedJobsOnAnIdleClusterAreRejectedUnlessSomethingCanStillChange) {
  DriverRig s({job("a", 0, 1), job("b", 0, 1)});
  s.driver.process_arrivals(0);
  s.driver.run_policy(0);  // the policy starts nothing
  s.executor.changing = true;
  EXPECT_FALSE(s.driver.guard_against_idle_deadlock(0));
  s.executor.changing = false;
  EXPECT_TRUE(s.driver.guard_against_idle_deadlock(0));
  EXPECT_TRUE(s.driver.queued().empty());
  EXPECT_EQ(s.driver.phase(0), PolicyDriver::Phase::Done);
  EXPECT_EQ(s.executor.calls.back(), "rejected 1: idle");
}

// What each call is told changed, and where each such job is then.
TEST(PolicyDriver, EachCallIsToldWhichJobsChangedSinceTheLastAndFindsThemWhereTheyAreNow) {
  DriverRig s({job("a", 0, 1), job("b", 0, 1), job("c", 1, 1)});
  std::vector<std::string> told;
  s.policy.script = [&](const SchedulerInput& in) -> std::vector<Decision> {
    std::string line;
    for (JobIndex j : in.changes->jobs()) {
      line += std::to_string(j);
      if (const QueuedJob* q = in.changes->queued(j))
        line += q->index == j ? "q " : "q? ";
      else if (const RunningJob* r = in.changes->running(j))
        line += r->index == j ? "r " : "r? ";
      else
        line += "gone ";
    }
    told.push_back(line);
    if (in.now_s == 0 && s.driver.phase(0) == PolicyDriver::Phase::Queued) return {StartJob{0, {{0}, {}}}};
    if (in.now_s == 1 && s.driver.phase(1) == PolicyDriver::Phase::Queued) return {StartJob{1, {{1}, {}}}};
    if (in.now_s == 2 && s.driver.phase(1) == PolicyDriver::Phase::Running) return {PreemptJob{1}};
    return {};
  };
  s.driver.process_arrivals(0);
  s.driver.run_policy(0);
  s.driver.finished(0);
  s.driver.process_arrivals(1);
  s.driver.run_policy(1);
  s.driver.run_policy(2);
  s.driver.run_policy(3);
  EXPECT_EQ(told, (std::vector<std::string>{"0q 1q ", "0r ", "0gone 2q ", "1r ", "", "1q ", ""}));
}

// run.json's scheduler_calls and scheduler_active_jobs_mean: every call
// counts, also the one that answers nothing after a batch, and a call's
// active jobs are the queued and running entries it is handed (a finished
// job no longer, a started one still).
TEST(PolicyDriver, CountsDecideCallsAndTheActiveJobsEachIsHanded) {
  DriverRig s({job("a", 0, 1), job("b", 0, 1), job("c", 1, 1), job("d", 1, 1)});
  s.policy.script = [&](const SchedulerInput& in) -> std::vector<Decision> {
    if (in.now_s == 0 && s.driver.phase(0) == PolicyDriver::Phase::Queued) return {StartJob{0, {{0}, {}}}};
    if (in.now_s == 2 && s.driver.phase(1) == PolicyDriver::Phase::Queued)
      return {StartJob{1, {{1}, {}}}, StartJob{2, {{2}, {}}}};
    return {};
  };
  s.driver.process_arrivals(0);
  s.driver.run_policy(0);  // a, b queued: 2 (starts a); then b queued, a running: 2
  s.driver.finished(0);
  s.driver.process_arrivals(1);
  s.driver.run_policy(1);  // b, c, d queued: 3
  s.driver.run_policy(2);  // 3, nothing changed since t=1 (starts b, c); then d queued, b, c running: 3
  s.driver.finished(1);
  s.driver.run_policy(3);  // d queued, c running: 2
  s.driver.run_policy(4);  // the same 2, and nothing changed since the last call
  const DecisionCost& cost = s.driver.decision_cost();
  EXPECT_EQ(cost.calls(), 7u);
  EXPECT_DOUBLE_EQ(cost.active_jobs_mean(), (2 + 2 + 3 + 3 + 3 + 2 + 2) / 7.0);
  // The first calls at 2 and at 4; the call after a batch is told of it.
  EXPECT_EQ(cost.unchanged_calls(), 2u);
  EXPECT_EQ(cost.idle_calls(), 1u) << "the call at 2 started b and c, the one at 4 nothing";
  // No timer: the first call of each kind is timed, and the golden-ratio
  // sequence times none of the next four changed ones (0.618, 0.236,
  // 0.854, 0.472 are not below 1/64).
  EXPECT_EQ(cost.measured_calls(), 2u);
  EXPECT_GE(cost.wall_s(), 0);
  EXPECT_GE(cost.cpu_s(), cost.unchanged_cpu_s());
  EXPECT_GE(cost.unchanged_cpu_s(), 0);
}

// A round-based policy preempts and starts many jobs in one batch of
// decisions: the preempted jobs go back to their submission places and the
// running list keeps start order, as if each had been requeued at once, but
// the driver passes over each list once per batch, not once per job.
TEST(PolicyDriver, BatchedPreemptionsRequeueInSubmissionOrderWithOnePassOverEachList) {
  DriverRig s(
      {job("a", 0, 1), job("b", 1, 1), job("c", 2, 1), job("d", 3, 1), job("e", 4, 1), job("f", 5, 1)});
  s.driver.process_arrivals(5);
  std::string told;  // the changes the call after the batch is told of, and where each job is then
  s.policy.script = [&](const SchedulerInput& in) -> std::vector<Decision> {
    if (in.now_s == 5 && s.driver.phase(0) == PolicyDriver::Phase::Queued)
      return {StartJob{0, {{0}, {}}}, StartJob{1, {{1}, {}}}, StartJob{2, {{2}, {}}}, StartJob{3, {{3}, {}}}};
    if (in.now_s == 6 && s.driver.phase(5) == PolicyDriver::Phase::Queued)
      return {PreemptJob{2}, PreemptJob{0}, StartJob{5, {{2}, {}}}, PreemptJob{3}, StartJob{4, {{0}, {}}}};
    if (in.now_s == 6)
      for (JobIndex j : in.changes->jobs())
        told += std::to_string(j) + (in.changes->queued(j) ? "q " : in.changes->running(j) ? "r " : "? ");
    return {};
  };
  s.driver.run_policy(5);
  const std::uint64_t before = s.driver.list_passes();
  s.driver.run_policy(6);
  EXPECT_EQ(s.driver.list_passes() - before, 2u) << "one pass over the running list, one over the queue";
  EXPECT_EQ(told, "2q 0q 5r 3q 4r ");
  std::vector<JobIndex> running;
  for (const RunningJob& r : s.driver.running()) running.push_back(r.index);
  EXPECT_EQ(running, (std::vector<JobIndex>{1, 5, 4}));
  std::vector<JobIndex> queued;
  for (const QueuedJob& q : s.driver.queued()) queued.push_back(q.index);
  EXPECT_EQ(queued, (std::vector<JobIndex>{0, 2, 3}));
  EXPECT_EQ(s.driver.queued()[1].attained_gpu_s, 7);
}

// A job started and preempted, or preempted and started again, in one batch
// has one entry, in the list of its last phase.
TEST(PolicyDriver, AJobStoppedAndStartedInOneBatchHasOneEntry) {
  DriverRig s({job("a", 0, 1), job("b", 0, 1)});
  s.driver.process_arrivals(0);
  s.policy.script = [&](const SchedulerInput& in) -> std::vector<Decision> {
    if (in.now_s == 0 && s.policy.seen.size() == 1) return {StartJob{0, {{0}, {}}}, PreemptJob{0}};
    if (in.now_s == 1 && s.policy.seen.size() == 3)
      return {StartJob{1, {{1}, {}}}, PreemptJob{1}, StartJob{1, {{2}, {}}}};
    return {};
  };
  s.driver.run_policy(0);
  ASSERT_EQ(s.driver.queued().size(), 2u);
  EXPECT_EQ(s.driver.queued()[0].index, 0u);
  EXPECT_EQ(s.driver.queued()[0].attained_gpu_s, 7);
  EXPECT_EQ(s.driver.queued()[1].index, 1u);
  EXPECT_TRUE(s.driver.running().empty());
  s.driver.run_policy(1);
  ASSERT_EQ(s.driver.queued().size(), 1u);
  EXPECT_EQ(s.driver.queued()[0].index, 0u);
  ASSERT_EQ(s.driver.running().size(), 1u);
  EXPECT_EQ(s.driver.running()[0].index, 1u);
  EXPECT_EQ(s.driver.running()[0].placement.gpus, (std::vector<GpuId>{2}));
}

// Tiresias counts a running job's service itself (4 GPUs x time since its
// start), so the driver refreshes nothing, and the demotion still happens
// at the crossing: a (4 GPUs from t = 0) reaches 40 GPU-s at t = 10.
TEST(PolicyDriver, TiresiasDemotesAtTheCrossingWithoutAnyRefreshAndWalksOnlyWhatItMust) {
  TiresiasParams params;
  params.thresholds_gpu_s = {40};
  TiresiasPolicy tiresias(params);
  DriverRig s({job("a", 0, 4), job("b", 5, 4)}, &tiresias);
  s.executor.keep_service = true;
  s.driver.process_arrivals(0);
  s.driver.run_policy(0);
  s.driver.update_timer(0, false);
  EXPECT_EQ(s.executor.calls.back(), "start 0 at 0");
  EXPECT_EQ(s.driver.timer_s(), 10);
  s.driver.process_arrivals(5);
  s.driver.run_policy(5);  // b waits behind a, in the same queue
  EXPECT_EQ(s.executor.calls.back(), "arrived 1 at 5");
  EXPECT_EQ(tiresias.last_walk_length(), 0u) << "no GPU left for any queued job: nothing walked";
  s.driver.run_policy(10);
  const std::vector<std::string> tail(s.executor.calls.end() - 2, s.executor.calls.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"preempt 0", "start 1 at 10"}));
  EXPECT_EQ(s.driver.queued().front().attained_gpu_s, 40);
  EXPECT_EQ(s.executor.refreshes, 0);
}

}  // namespace
}  // namespace vnsim
