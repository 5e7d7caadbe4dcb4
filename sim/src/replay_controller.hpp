#pragma once
// The controller actor: owns all scheduling state and drives the policy.
//
// It waits (an s4u ConditionVariable with a deadline) until the next arrival,
// analytic completion or policy timer, or until a ring job reports its end.
// Same-instant order at a wake at time t:
//   1. completions at or before t (GPUs released; ordered by time, then job
//      index), so GPUs freed at t can be reused at t;
//   2. arrivals with submit_s <= t, in (submit_s, job index) order:
//      infeasible ones are rejected with why_infeasible()'s reason;
//   3. Policy::decide, called again as long as it returns decisions.
// A ring job whose last rank ends at t after the controller already ran at
// t is handled in a second pass at the same t (still deterministic).
#include <cstddef>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "alone_estimate.hpp"
#include "completion_channel.hpp"
#include "platform.hpp"
#include "replay_recorder.hpp"
#include "ring_job.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

struct ReplayInputs {
  const Cluster& cluster;
  const Topology& topology;
  const GpuCatalog& gpu_catalog;
  const ModelCatalog& models;
  const std::vector<JobSpec>& jobs;
  Policy& policy;
  const ReplayOptions& options;
};

class ReplayController {
 public:
  ReplayController(const ReplayInputs& in, const Platform& platform, ReplayRecorder& recorder);

  // The actor body. Returns when every job is completed or rejected.
  void run();
  double last_event_s() const { return last_event_s_; }
  double scheduler_wall_s() const { return scheduler_wall_s_; }

 private:
  enum class Phase { NotArrived, Queued, Running, Done };
  struct JobState {
    Phase phase = Phase::NotArrived;
    Placement placement;
    double estimated_total_s = -1;  // idle-network run time in this placement
    double analytic_end_s = -1;     // single-node jobs only
    // Preemption (zero-cost, as in the Tiresias simulator): a job keeps the
    // whole iterations it completed and its attained service across runs.
    long long iterations_done = 0;  // before the current run
    double attained_gpu_s = 0;      // before the current run
    double run_start_s = 0;
    double iteration_s = 0;  // idle-network iteration time in this placement
    int epoch = 0;           // launches so far; tells stale completions apart
    std::shared_ptr<RingState> ring;
  };
  struct AnalyticEnd {
    double time_s;
    JobIndex job;
    int epoch = 0;
    bool operator>(const AnalyticEnd& o) const {
      return time_s != o.time_s ? time_s > o.time_s : job > o.job;
    }
  };

  // One wake at `now`, in the documented order.
  void step(double now);
  void process_completions(double now);
  void process_arrivals(double now);
  void run_policy(double now);
  void guard_against_idle_deadlock(double now);
  std::optional<double> next_wake_s() const;

  // Decisions (replay_decisions.cpp).
  void apply(const Decision& d, double now);
  void start_job(const StartJob& d, double now);
  void reject_job(const RejectJob& d, double now);
  void preempt_job(const PreemptJob& d, double now);
  void finish_job(JobIndex job, double now);
  void requeue(JobIndex job);
  void launch_ring(JobIndex job, const Placement& placement);
  void refresh_running(double now);
  JobState& queued_job(JobIndex job, const char* action);

  const ReplayInputs& in_;
  const Platform& platform_;
  ReplayRecorder& recorder_;
  ClusterView view_;
  AloneEstimator estimator_;
  std::vector<JobState> state_;
  std::vector<JobIndex> arrival_order_;
  std::vector<std::size_t> arrival_rank_;  // position of each job in arrival_order_
  std::size_t next_arrival_ = 0;
  std::vector<QueuedJob> queued_;    // submission order
  std::vector<RunningJob> running_;  // start order
  std::priority_queue<AnalyticEnd, std::vector<AnalyticEnd>, std::greater<>> analytic_ends_;
  std::shared_ptr<CompletionChannel> channel_;
  // Stopped ring jobs: kept to the end so no in-flight comm loses its last
  // reference (simgrid.md §8.2).
  std::vector<std::shared_ptr<RingState>> stopped_rings_;
  std::optional<double> timer_s_;
  int idle_timer_wakes_ = 0;
  double last_event_s_ = 0;
  double scheduler_wall_s_ = 0;
};

}  // namespace vnsim::sim
