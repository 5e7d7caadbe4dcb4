#pragma once
// The controller actor: the simulator's executor of the policy's decisions.
// The PolicyDriver (policies/) owns the queue, the running list, arrivals,
// the decide loop and the timer. This class owns the replay's components and
// runs the event loop: it hands the driver's decisions to the JobLifecycle,
// the ends that come due (RunClock, actors' reports) to the lifecycle or the
// ring engine, and the node changes of the NodeEventSchedule to the view and
// the lifecycle.
//
// It waits (an s4u ConditionVariable with a deadline) until the next arrival,
// analytic completion or policy timer, or until a ring job reports its end.
// Same-instant order at a wake at time t:
//   1. completions at or before t (GPUs released; ordered by time, then job
//      index), so GPUs freed at t can be reused at t;
//   2. node events at or before t (returns, then revocations and failures;
//      docs/SPOT.md), after completions so a job ending at t is not revoked;
//   3. arrivals with submit_s <= t, in (submit_s, job index) order:
//      infeasible ones are rejected with why_infeasible()'s reason;
//   4. Policy::decide, called again as long as it returns decisions.
// A ring job whose last rank ends at t after the controller already ran at
// t is handled in a second pass at the same t (still deterministic).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actor_jobs.hpp"
#include "elasticity_costs.hpp"
#include "gpu_sharing.hpp"
#include "job_batches.hpp"
#include "job_lifecycle.hpp"
#include "node_event_schedule.hpp"
#include "platform.hpp"
#include "replay_inputs.hpp"
#include "replay_recorder.hpp"
#include "ring_timing.hpp"
#include "run_clock.hpp"
#include "vnsim/policies/policy_driver.hpp"

namespace vnsim::sim {

class ReplayController final : private PolicyExecutor {
 public:
  ReplayController(const ReplayInputs& in, const Platform& platform, ReplayRecorder& recorder);

  // The actor body. Returns when every job is completed or rejected.
  void run();
  double last_event_s() const { return lifecycle_.last_event_s(); }
  const DecisionCost& decision_cost() const { return driver_.decision_cost(); }

 private:
  // One wake at `now`, in the documented order.
  void step(double now);
  void process_completions(double now);
  // Node revocations and failures (replay_node_events.cpp): the schedule's
  // changes carried out on the view and, through the lifecycle, the jobs.
  void process_node_events(double now);
  std::optional<double> next_wake_s() const;

  // PolicyExecutor: the driver's calls, handed to the lifecycle.
  JobProgress arrived(JobIndex job, double now) override;
  void rejected(JobIndex job, double now, const std::string& reason) override;
  void decision_applied(double now) override;
  bool will_change_by_itself() const override;
  std::string idle_reason(JobIndex job) const override;
  RunningJob start(const StartJob& d, double now) override;
  void preempt(JobIndex job, double now) override;
  void refresh_running(std::vector<RunningJob>& running, double now) override;
  void resize(const ResizeJob& d, double now) override;

  const ReplayInputs& in_;
  ReplayRecorder& recorder_;
  PolicyDriver driver_;
  ClusterView& view_;  // the driver's
  JobBatches batches_;
  ElasticityCosts costs_;
  GpuSharing sharing_;
  RunClock clock_;
  ActorJobs actors_;
  std::unique_ptr<RingTiming> rings_;  // the ring engine the options chose
  NodeEventSchedule node_events_;
  JobLifecycle lifecycle_;
  double first_submit_s_ = 0, last_submit_s_ = 0;  // for ReplayOptions::progress
};

}  // namespace vnsim::sim
