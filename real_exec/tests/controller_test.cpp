#include "vnsim/real_exec/controller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim::real_exec {
namespace {

// A fleet on a simulated clock: every job's step takes 1 s, whatever its
// rank set. Stops take effect at the next step boundary, failures at the
// injected step; checkpoints every `checkpoint_every` steps.
class FakeFleet final : public WorkerFleet {
 public:
  FakeFleet(const std::vector<JobSpec>& jobs, long long checkpoint_every)
      : jobs_(jobs), every_(checkpoint_every) {}
  double now_s() override { return now_; }
  void start(const Launch& l) override {
    launches.push_back(l);
    Run r{l, now_, l.start_iteration};
    runs_[l.job] = r;
  }
  void stop(JobIndex job, int epoch) override {
    stops.emplace_back(job, epoch);
    Run& r = runs_.at(job);
    r.stop_at = std::ceil(now_ - r.begin_s) + r.begin_s;  // the next boundary
  }
  void resize(JobIndex job, int epoch, const Launch& next) override {
    resizes.push_back({job, epoch, next});
    Run& r = runs_.at(job);
    const long long done = r.first + static_cast<long long>(std::ceil(now_ - r.begin_s));
    runs_[job] = Run{next, std::ceil(now_ - r.begin_s) + r.begin_s, done};
  }
  std::vector<FleetEvent> wait(double until_s) override {
    // The earliest event of any run.
    double best = until_s;
    JobIndex who = 0;
    bool any = false;
    for (auto& [job, r] : runs_) {
      const double t = end_of(r);
      if (t <= best) {
        best = t;
        who = job;
        any = true;
      }
    }
    if (!any) {
      now_ = until_s;
      return {};
    }
    now_ = best;
    Run r = runs_.at(who);
    runs_.erase(who);
    FleetEvent e;
    e.job = who;
    e.epoch = r.launch.epoch;
    e.time_s = now_;
    const long long total = total_of(r);
    if (fails(r)) {
      e.kind = FleetEvent::Kind::Failed;
      e.failed_gpu = r.launch.gpus.back();
      e.iteration = every_ > 0 ? (r.launch.fail_at_iteration / every_) * every_ : 0;
      e.iteration = std::max(e.iteration, r.first);
    } else if (r.stop_at >= 0 && r.stop_at < r.begin_s + static_cast<double>(total - r.first)) {
      e.kind = FleetEvent::Kind::Stopped;
      e.iteration = r.first + static_cast<long long>(std::llround(r.stop_at - r.begin_s));
    } else {
      e.kind = FleetEvent::Kind::Finished;
      e.iteration = total;
    }
    return {e};
  }
  void shutdown() override {}

  std::vector<Launch> launches;
  std::vector<std::pair<JobIndex, int>> stops;
  struct Resize {
    JobIndex job;
    int epoch;
    Launch next;
  };
  std::vector<Resize> resizes;

 private:
  struct Run {
    Launch launch;
    double begin_s = 0;
    long long first = 0;
    double stop_at = -1;
  };
  bool fails(const Run& r) const {
    return r.launch.fail_at_iteration >= r.first && r.launch.fail_at_iteration < total_of(r);
  }
  long long total_of(const Run& r) const {
    return r.launch.total_iterations > 0 ? r.launch.total_iterations : jobs_[r.launch.job].iterations;
  }
  double end_of(const Run& r) const {
    if (fails(r)) return r.begin_s + static_cast<double>(r.launch.fail_at_iteration - r.first);
    const double finish = r.begin_s + static_cast<double>(total_of(r) - r.first);
    return r.stop_at >= 0 ? std::min(finish, r.stop_at) : finish;
  }
  const std::vector<JobSpec>& jobs_;
  long long every_;
  double now_ = 0;
  std::map<JobIndex, Run> runs_;
};

Cluster two_worker_cluster() {
  return Cluster(parse_cluster_spec(R"({"name": "t", "defaults": {"gpu_type": "T4", "gpus": 2,
      "intra": {"kind": "pcie", "bandwidth_gbps": 100}, "nic": {"bandwidth_gbps": 100}},
      "racks": [{"name": "r", "nodes": [{"name": "n"}]}]})",
                                    "test"));
}

JobSpec job(const std::string& id, double submit, int gpus, long long iterations) {
  JobSpec s;
  s.id = id;
  s.submit_s = submit;
  s.model = "cifar10";
  s.gpus = gpus;
  s.global_batch = 128 * gpus;
  s.iterations = iterations;
  return s;
}

struct Outcome {
  std::vector<JobRecord> records;
  std::vector<GpuId> failed;
};

Outcome run(const std::vector<JobSpec>& jobs, Policy& policy, FakeFleet& fleet, ControllerOptions opts = {}) {
  const Cluster cluster = two_worker_cluster();
  MeasurementLog log;
  Controller c(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, fleet, log, opts);
  Outcome out;
  out.records = c.run();
  out.failed = c.failed_gpus();
  return out;
}

TEST(Controller, FifoOrderAndTimesOnTwoWorkersByHand) {
  // a (2 workers, 3 steps) runs 0-3. b (1 worker, 2 steps) and c (1, 1)
  // wait for it (c arrives at 1), then run side by side: b 3-5, c 3-4.
  const std::vector<JobSpec> jobs = {job("a", 0, 2, 3), job("b", 0, 1, 2), job("c", 1, 1, 1)};
  FakeFleet fleet(jobs, 0);
  auto policy = make_policy("fifo");
  const Outcome r = run(jobs, *policy, fleet);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0].start_s, 0);
  EXPECT_EQ(r.records[0].finish_s, 3);
  EXPECT_EQ(r.records[1].start_s, 3);
  EXPECT_EQ(r.records[1].finish_s, 5);
  EXPECT_EQ(r.records[2].start_s, 3);
  EXPECT_EQ(r.records[2].finish_s, 4);
  for (const auto& rec : r.records) EXPECT_EQ(rec.state, FinalState::Completed) << rec.id;
  EXPECT_EQ(r.records[0].gpu_seconds, 6);  // 2 workers x 3 s
}

TEST(Controller, FailedJobResumesFromItsCheckpointOnTheWorkersLeft) {
  // x (1 worker, 10 steps) fails before step 5 on worker 0 (its only one);
  // checkpoints every 2 steps leave 4 done. It restarts at t=5 on worker 1
  // from step 4 and needs 6 more steps: finish at 11. Worker 0 is retired.
  const std::vector<JobSpec> jobs = {job("x", 0, 1, 10)};
  FakeFleet fleet(jobs, 2);
  auto policy = make_policy("fifo");
  ControllerOptions opts;
  opts.checkpoint_every = 2;
  opts.inject_failure["x"] = 5;
  const Outcome r = run(jobs, *policy, fleet, opts);
  EXPECT_EQ(r.records[0].state, FinalState::Completed);
  EXPECT_EQ(r.records[0].finish_s, 11);
  EXPECT_EQ(r.records[0].restarts, 1);
  EXPECT_EQ(r.failed, (std::vector<GpuId>{0}));
  ASSERT_EQ(fleet.launches.size(), 2u);
  EXPECT_EQ(fleet.launches[1].start_iteration, 4);
  EXPECT_EQ(fleet.launches[1].params, ParamSource::Checkpoint);
  EXPECT_EQ(fleet.launches[1].gpus, (std::vector<GpuId>{1}));
  EXPECT_EQ(fleet.launches[1].fail_at_iteration, -1);  // injected once
}

TEST(Controller, JobThatNoLongerFitsAfterAFailureIsRejectedWithAReason) {
  const std::vector<JobSpec> jobs = {job("wide", 0, 2, 4)};
  FakeFleet fleet(jobs, 0);
  auto policy = make_policy("fifo");
  ControllerOptions opts;
  opts.inject_failure["wide"] = 1;
  const Outcome r = run(jobs, *policy, fleet, opts);
  EXPECT_EQ(r.records[0].state, FinalState::Rejected);
  EXPECT_NE(r.records[0].reason.find("1 left in service"), std::string::npos) << r.records[0].reason;
}

// Preempts job 0 for job 1 at t >= 1.5, then restarts job 0 when job 1 ends.
class SwapPolicy final : public Policy {
 public:
  std::string name() const override { return "swap"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    std::vector<Decision> out;
    for (const RunningJob& r : in.running)
      if (r.index == 0 && in.now_s >= 1.5 && !swapped_) {
        swapped_ = true;
        out.push_back(PreemptJob{0});
        out.push_back(StartJob{1, spread_virtual_nodes(r.placement.gpus, 1)});
        return out;
      }
    for (const QueuedJob& q : in.queued)
      if ((q.index == 0 && (!swapped_ || in.running.empty())) && in.view->free_total() >= 1)
        out.push_back(StartJob{0, spread_virtual_nodes({0}, 1)});
    return out;
  }
  std::optional<double> next_timer_s(double now) const override {
    return swapped_ ? std::nullopt : std::optional<double>(now < 1.5 ? 1.5 : now);
  }

 private:
  bool swapped_ = false;
};

TEST(Controller, PreemptionWaitsForTheStopThenResumesFromIt) {
  // j0 (5 steps) runs from 0; at 1.5 the policy preempts it and starts j1
  // (2 steps) on its worker. j0 stops at the boundary t=2 with 2 steps
  // done; j1's launch is sent then (deferred) and runs 2-4; j0 resumes at
  // 4 from step 2 and finishes at 7.
  std::vector<JobSpec> jobs = {job("j0", 0, 1, 5), job("j1", 0.5, 1, 2)};
  FakeFleet fleet(jobs, 0);
  SwapPolicy policy;
  const Outcome r = run(jobs, policy, fleet);
  ASSERT_EQ(fleet.launches.size(), 3u);
  EXPECT_EQ(fleet.launches[1].job, 1u);
  EXPECT_EQ(r.records[1].finish_s, 4);
  EXPECT_EQ(fleet.launches[2].job, 0u);
  EXPECT_EQ(fleet.launches[2].start_iteration, 2);
  EXPECT_EQ(fleet.launches[2].params, ParamSource::Checkpoint);
  EXPECT_EQ(r.records[0].finish_s, 7);
  EXPECT_EQ(r.records[0].restarts, 1);
}

// Starts job 0 on worker 0, then at t >= 2.5 doubles its batch there by
// checkpoint-restart, as Pollux changes batches.
class DoubleBatchPolicy final : public Policy {
 public:
  std::string name() const override { return "double-batch"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    if (!in.queued.empty() && in.running.empty()) return {StartJob{0, spread_virtual_nodes({0}, 1)}};
    if (!in.running.empty() && in.now_s >= 2.5 && !done_) {
      done_ = true;
      return {ResizeJob{0, spread_virtual_nodes({0}, 1), ResizeMode::CheckpointRestart, 256}};
    }
    return {};
  }
  std::optional<double> next_timer_s(double now) const override {
    return done_ ? std::nullopt : std::optional<double>(now < 2.5 ? 2.5 : now);
  }

 private:
  bool done_ = false;
};

TEST(Controller, ABatchChangeReExpressesTheWorkLeftAsTheSimulatorDoes) {
  // j (batch 128, 10 steps) with phi = 128 = M0. At 2.5 the policy asks for
  // batch 256; the segment stops at t=3 with 3 steps done and 7 left at
  // 128. A step at 256 makes (256/128) x (128+128)/(128+256) = 4/3 steps'
  // progress at 128, so 7 / (4/3) = 5.25 -> 5 steps are left (rounded as the
  // simulator's change_batch does): total 8 at batch 256, finish at 8.
  const NoiseScaleCatalog noise = NoiseScaleCatalog::parse(
      R"({"models": {"cifar10": {"initial_batch": 128, "max_batch": 4096, "total_progress": 1e6,
          "phi": [[0, 128]]}}})",
      "noise.json");
  std::vector<JobSpec> jobs = {job("j", 0, 1, 10)};
  FakeFleet fleet(jobs, 0);
  DoubleBatchPolicy policy;
  ControllerOptions opts;
  opts.noise = &noise;
  const Outcome r = run(jobs, policy, fleet, opts);
  ASSERT_EQ(fleet.launches.size(), 2u);
  EXPECT_EQ(fleet.launches[0].total_iterations, 10);
  EXPECT_EQ(fleet.launches[1].global_batch, 256);
  EXPECT_EQ(fleet.launches[1].start_iteration, 3);
  EXPECT_EQ(fleet.launches[1].total_iterations, 8);
  EXPECT_EQ(r.records[0].state, FinalState::Completed);
  EXPECT_EQ(r.records[0].finish_s, 8);
}

// Grows job 0 from worker 0 to workers 0 and 1 at t >= 1.
class GrowPolicy final : public Policy {
 public:
  std::string name() const override { return "grow"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    if (!in.queued.empty()) return {StartJob{0, spread_virtual_nodes({0}, 2)}};
    if (!grown_ && !in.running.empty() && in.now_s >= 1) {
      grown_ = true;
      return {ResizeJob{0, spread_virtual_nodes({0, 1}, 2), ResizeMode::InPlace, 0}};
    }
    return {};
  }
  std::optional<double> next_timer_s(double) const override {
    return grown_ ? std::nullopt : std::optional<double>(1.0);
  }

 private:
  bool grown_ = false;
};

TEST(Controller, InPlaceResizeSendsParametersFromAMemberThatStays) {
  std::vector<JobSpec> jobs = {job("e", 0, 1, 4)};
  jobs[0].virtual_nodes = 2;
  FakeFleet fleet(jobs, 0);
  GrowPolicy policy;
  const Outcome r = run(jobs, policy, fleet);
  ASSERT_EQ(fleet.resizes.size(), 1u);
  EXPECT_EQ(fleet.resizes[0].epoch, 0);
  EXPECT_EQ(fleet.resizes[0].next.epoch, 1);
  EXPECT_EQ(fleet.resizes[0].next.params, ParamSource::FromMember);
  EXPECT_EQ(fleet.resizes[0].next.params_root, 0);  // worker 0 is index 0 of {0, 1}
  EXPECT_EQ(fleet.resizes[0].next.vn_per_gpu, (std::vector<int>{1, 1}));
  EXPECT_EQ(r.records[0].state, FinalState::Completed);
  EXPECT_EQ(r.records[0].finish_s, 4);
  EXPECT_EQ(r.records[0].restarts, 0);  // in place: no restart
  EXPECT_EQ(r.records[0].gpus, (std::vector<GpuId>{0, 1}));
}

}  // namespace
}  // namespace vnsim::real_exec

namespace vnsim::real_exec {
namespace {

TEST(Controller, AResumedRunSkipsDoneJobsAndRestartsTheOthersFromTheirCheckpoint) {
  // The killed attempt finished a at t = 5 and had b running in segment 2
  // with a checkpoint at step 3 of 6.
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 5), job("b", 1, 2, 6)};
  ControllerOptions opts;
  PriorJob a;
  a.submitted = a.done = true;
  a.record.state = FinalState::Completed;
  a.record.start_s = 0;
  a.record.finish_s = 5;
  a.record.gpus = {0};
  a.last_epoch = 0;
  PriorJob b;
  b.submitted = b.running = true;
  b.record.start_s = 5;
  b.record.restarts = 1;
  b.last_epoch = 2;
  b.checkpoint_iteration = 3;
  opts.prior = {{"a", a}, {"b", b}};
  auto policy = make_policy("fifo");
  FakeFleet fleet(jobs, 0);
  const Outcome out = run(jobs, *policy, fleet, opts);
  ASSERT_EQ(fleet.launches.size(), 1u);  // a is not run again
  EXPECT_EQ(fleet.launches[0].job, 1u);
  EXPECT_EQ(fleet.launches[0].epoch, 3);  // after the killed attempt's segments
  EXPECT_EQ(fleet.launches[0].start_iteration, 3);
  EXPECT_EQ(fleet.launches[0].params, ParamSource::Checkpoint);
  EXPECT_EQ(out.records[0].state, FinalState::Completed);
  EXPECT_DOUBLE_EQ(out.records[0].finish_s, 5);
  EXPECT_EQ(out.records[1].state, FinalState::Completed);
  EXPECT_DOUBLE_EQ(out.records[1].start_s, 5);  // the first start, in the killed attempt
  // The fake clock starts at 0 (vnexec's continues from the killed attempt's
  // last record), so b arrives at 1 and runs its 3 remaining steps.
  EXPECT_DOUBLE_EQ(out.records[1].finish_s, 4);
  EXPECT_EQ(out.records[1].restarts, 1);
}

TEST(Controller, AResumedRunKeepsTheBatchAndTotalOfTheJobsLastLaunch) {
  // The killed attempt had changed b's batch to 256, its work re-expressed
  // to end at step 7, and checkpointed step 5: the resumed segment runs
  // steps 5-6 at 256, as the killed one would have.
  const std::vector<JobSpec> jobs = {job("b", 0, 1, 10)};
  ControllerOptions opts;
  PriorJob b;
  b.submitted = b.running = true;
  b.record.start_s = 0;
  b.last_epoch = 1;
  b.checkpoint_iteration = 5;
  b.global_batch = 256;
  b.total_iterations = 7;
  opts.prior = {{"b", b}};
  auto policy = make_policy("fifo");
  FakeFleet fleet(jobs, 0);
  const Outcome out = run(jobs, *policy, fleet, opts);
  ASSERT_EQ(fleet.launches.size(), 1u);
  EXPECT_EQ(fleet.launches[0].global_batch, 256);
  EXPECT_EQ(fleet.launches[0].start_iteration, 5);
  EXPECT_EQ(fleet.launches[0].total_iterations, 7);
  EXPECT_DOUBLE_EQ(out.records[0].finish_s, 2);  // 2 steps from t = 0
}

}  // namespace
}  // namespace vnsim::real_exec
