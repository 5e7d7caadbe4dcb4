#pragma once
// The job lifecycle in the replay: carries out the driver's checked
// decisions on the simulated jobs (start, preempt, resize), and the ends,
// stops and speed changes that follow. It owns each job's lifecycle state
// (phase, placement, iterations done, attained service, set-up, pending
// restore, GPU share, flow-job actors). Each job's run on the clock is the
// RunClock's, which it tells of each estimate, run begun, set-up, stop and
// change of speed; how a ring is timed is the ring engine's, which it tells
// of each start, stop, end and change of speed. What it does is reported back to the PolicyDriver (requeue,
// finished, moved) and to the ReplayRecorder.
//
// Files: job_starts.cpp (start, begin a run, the policy's estimates),
// job_stops.cpp (preemption, set-ups, stops, checkpoints, resizes),
// job_speeds.cpp (GPU co-tenants' speeds), job_flow_launch.cpp
// (parameter-server and layout jobs' actors), job_node_loss.cpp (a node's
// jobs stopped when it leaves).
#include <memory>
#include <string>
#include <vector>

#include "actor_jobs.hpp"
#include "elasticity_costs.hpp"
#include "flow_job.hpp"
#include "gpu_sharing.hpp"
#include "job_batches.hpp"
#include "node_event_schedule.hpp"
#include "platform.hpp"
#include "replay_inputs.hpp"
#include "replay_recorder.hpp"
#include "ring_timing.hpp"
#include "run_clock.hpp"
#include "vnsim/policies/policy_driver.hpp"

namespace vnsim::sim {

// The components the lifecycle acts through; the controller owns them.
struct LifecycleParts {
  const ReplayInputs& in;
  const Platform& platform;
  ReplayRecorder& recorder;
  PolicyDriver& driver;
  JobBatches& batches;
  const ElasticityCosts& costs;
  const GpuSharing& sharing;
  RunClock& clock;
  ActorJobs& actors;
  RingTiming& rings;
};

class JobLifecycle {
 public:
  explicit JobLifecycle(const LifecycleParts& parts);

  // The driver's checked decisions.
  RunningJob start(const StartJob& d, double now);
  void preempt(JobIndex job, double now);
  void resize(const ResizeJob& d, double now);
  void rejected(JobIndex job, double now, const std::string& reason);
  // Attained service and the estimated time left of each running job.
  void refresh_running(std::vector<RunningJob>& running, double now) const;
  // Ends that came due, sorted by time, then job: a set-up's end begins the
  // run, a run's end completes the job; stale ones are skipped.
  void process_ends(const std::vector<RunClock::End>& ends);
  // The node of `change` left: its jobs stop and go back to the queue.
  void take_node_down(const NodeChange& change);
  // The last time a job's state changed (an arrival, a decision, an end).
  double last_event_s() const { return last_event_s_; }
  void note_event(double t);

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
    int gpu_milli = kGpuMilli;      // the share of each GPU held (GPU sharing)
    std::shared_ptr<FlowJob> flow;  // a parameter-server or layout job's actors
    // The last data-parallel iteration estimate and what it was computed
    // on: iteration_time is a pure function of the placement and the
    // batch, and a time-sliced job often resumes on the GPUs it left.
    Placement timed_placement;
    int timed_batch = -1;  // -1: none yet
    double timed_iteration_s = 0;
  };

  void begin_run(JobIndex job, double now);
  void set_up_then_run(JobIndex job, double now, double delay_s);
  void estimate_run(JobIndex job);
  bool stop_run(JobIndex job, double now, bool lose_since_checkpoint);
  void stop_and_requeue(JobIndex job, double now, AllocationCause cause);
  void finish_job(JobIndex job, double now);
  void launch_flow_job(JobIndex job);
  // A GPU co-tenant came or went.
  void update_rate(JobIndex job, double now);
  void rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now);

  const ReplayInputs& in_;
  const LifecycleParts parts_;
  ClusterView& view_;  // the driver's
  std::vector<JobState> state_;
  double last_event_s_ = 0;
};

}  // namespace vnsim::sim
