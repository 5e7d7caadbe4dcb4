#pragma once
// The controller actor: the simulator's executor of the policy's decisions.
// The PolicyDriver (policies/) owns the queue, the running list, arrivals,
// the decide loop and the timer; this class times the jobs and reports
// their ends, stops and moves back to it.
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
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "actor_jobs.hpp"
#include "completion_channel.hpp"
#include "elasticity_costs.hpp"
#include "flow_job.hpp"
#include "gpu_sharing.hpp"
#include "job_batches.hpp"
#include "link_registry.hpp"
#include "node_event_schedule.hpp"
#include "platform.hpp"
#include "replay_inputs.hpp"
#include "replay_recorder.hpp"
#include "ring_timing.hpp"
#include "run_clock.hpp"
#include "vnsim/policies/policy_driver.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

class ReplayController final : private PolicyExecutor {
 public:
  ReplayController(const ReplayInputs& in, const Platform& platform, ReplayRecorder& recorder);

  // The actor body. Returns when every job is completed or rejected.
  void run();
  double last_event_s() const { return last_event_s_; }
  double scheduler_wall_s() const { return driver_.scheduler_wall_s(); }

 private:
  // SettingUp: holds its GPUs but makes no progress yet (a resize's
  // communicator rebuild and state broadcast, or a checkpoint restore); its
  // next end event (heap entry or channel report) starts the run.
  enum class Phase { NotArrived, Queued, Running, SettingUp, Done };
  struct JobState {
    Phase phase = Phase::NotArrived;
    Placement placement;
    // Preemption (zero-cost, as in the Tiresias simulator): a job keeps the
    // whole iterations it completed and its attained service across runs.
    long long iterations_done = 0;  // before the current run
    double attained_gpu_s = 0;      // before the current run
    double run_start_s = 0;         // when progress began in the current run
    double held_since_s = 0;        // when it took its current GPUs
    double setup_end_s = -1;        // SettingUp only, -1 when unknown (a broadcast in flight)
    bool restore_pending = false;   // stopped with checkpoints on: its next start restores
    // GPU sharing (replay_sharing.cpp): the share of each GPU held.
    int gpu_milli = kGpuMilli;
    std::shared_ptr<FlowJob> flow;  // a parameter-server or layout job's actors (replay_flow_jobs.cpp)
  };
  using AnalyticEnd = RunClock::End;

  // One wake at `now`, in the documented order.
  void step(double now);
  void drop_stale_ends();
  void process_completions(double now);
  void process_ends(const std::vector<AnalyticEnd>& ends);  // sorted by time, then job
  std::optional<double> next_wake_s() const;

  // PolicyExecutor: the driver's calls (replay_controller.cpp).
  JobProgress arrived(JobIndex job, double now) override;
  void rejected(JobIndex job, double now, const std::string& reason) override;
  void decision_applied(double now) override;
  bool will_change_by_itself() const override;
  std::string idle_reason(JobIndex job) const override;
  // Decisions (replay_decisions.cpp).
  RunningJob start(const StartJob& d, double now) override;
  void preempt(JobIndex job, double now) override;
  void refresh_running(std::vector<RunningJob>& running, double now) override;
  // Elasticity and checkpoints (replay_elasticity.cpp).
  void resize(const ResizeJob& d, double now) override;
  bool stop_run(JobIndex job, double now, bool lose_since_checkpoint);
  void stop_and_requeue(JobIndex job, double now, AllocationCause cause);
  void begin_run(JobIndex job, double now);
  void set_up_then_run(JobIndex job, double now, double delay_s);
  void estimate_run(JobIndex job);
  // Node revocations and failures (replay_node_events.cpp): the schedule's
  // changes carried out on the jobs and the view.
  void process_node_events(double now);
  void take_node_down(const NodeChange& change);
  void finish_job(JobIndex job, double now);
  void launch_flow_job(JobIndex job);  // replay_flow_jobs.cpp
  // GPU sharing (replay_sharing.cpp).
  void start_at_rate(JobIndex job, double now);
  void update_rate(JobIndex job, double now);
  void rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now);

  const ReplayInputs& in_;
  const Platform& platform_;
  ReplayRecorder& recorder_;
  PolicyDriver driver_;
  ClusterView& view_;  // the driver's
  std::vector<JobState> state_;
  JobBatches batches_;
  ElasticityCosts costs_;
  GpuSharing sharing_;
  RunClock clock_;
  ActorJobs actors_;
  std::unique_ptr<RingTiming> rings_;  // the ring engine the options chose
  NodeEventSchedule node_events_;
  double last_event_s_ = 0;
  double first_submit_s_ = 0, last_submit_s_ = 0;  // for ReplayOptions::progress
};

}  // namespace vnsim::sim
