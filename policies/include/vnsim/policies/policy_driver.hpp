#pragma once
// The policy-facing half of an engine, shared by the simulator (sim/) and
// the real executor (real_exec/) so that a policy gets the same inputs from
// both for the same state. The driver owns the ClusterView, the queue (in
// submission order), the running list (in start order), arrivals with their
// feasibility check, requeueing, the decide loop with its looping guard,
// the policy's timer and the idle-cluster guard. It checks each decision
// against the jobs' phases and hands it to the engine through
// PolicyExecutor; the engine reports back what happened to the jobs
// (requeued, finished, new placement).
//
// Queued jobs' estimated_remaining_s comes from one estimator for both
// engines: AloneEstimator (the job alone on an empty cluster, consolidated
// placement, idle-network perf model), scaled to the iterations left.
// Running jobs' estimates and attained service come from the engine, which
// alone knows their progress.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/alone_estimate.hpp"
#include "vnsim/policies/decision_cost.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

// What a job has behind it when it (re)enters the queue.
struct JobProgress {
  double attained_gpu_s = 0;
  long long iterations_done = 0;
};

// The engine side. The driver calls these only for decisions it has
// checked: start and reject only for queued jobs, preempt and resize only
// for running ones.
class PolicyExecutor {
 public:
  virtual ~PolicyExecutor() = default;
  // A job arrived (not yet checked for feasibility); returns what it has
  // done before (a resumed run), {} for a fresh job.
  virtual JobProgress arrived(JobIndex job, double now) = 0;
  // Starts the job and returns its running-list entry (the placement it
  // really got, its estimate). The engine allocates its GPUs in the view.
  virtual RunningJob start(const StartJob& d, double now) = 0;
  // Stops the job; the engine then calls PolicyDriver::requeue or
  // PolicyDriver::finished for it.
  virtual void preempt(JobIndex job, double now) = 0;
  // Moves the job; it may call PolicyDriver::moved or PolicyDriver::finished.
  virtual void resize(const ResizeJob& d, double now) = 0;
  // The job ends as rejected (infeasible, the policy's choice, or left on an
  // idle cluster).
  virtual void rejected(JobIndex job, double now, const std::string& reason) = 0;
  // After each applied decision.
  virtual void decision_applied(double /*now*/) {}
  // Fills attained_gpu_s, estimated_remaining_s (and the engine's start_s)
  // of every running job just before the policy is asked.
  virtual void refresh_running(std::vector<RunningJob>& running, double now) = 0;
  // Something will change without any job running or arriving (a node that
  // is down comes back, a stop still in flight).
  virtual bool will_change_by_itself() const = 0;
  // Why a job left queued on an idle cluster is rejected.
  virtual std::string idle_reason(JobIndex job) const = 0;
};

class PolicyDriver {
 public:
  enum class Phase { NotArrived, Queued, Running, Done };

  PolicyDriver(const Cluster& cluster, const Topology& topology, const GpuCatalog& gpu_catalog,
               const ModelCatalog& models, const std::vector<JobSpec>& jobs, Policy& policy,
               PolicyExecutor& executor);

  ClusterView& view() { return view_; }
  const ClusterView& view() const { return view_; }
  Phase phase(JobIndex job) const { return phase_[job]; }
  // Both lists are brought up to date first when a batch of decisions has
  // left requeues or removals pending (see flush()).
  const std::vector<QueuedJob>& queued() const {
    flush_queue();
    return queued_;
  }
  const std::vector<RunningJob>& running() const {
    flush_running();
    return running_;
  }
  std::optional<double> next_arrival_s() const;
  bool arrivals_left() const { return next_arrival_ < arrival_order_.size(); }
  std::optional<double> timer_s() const { return timer_s_; }
  // What the policy's decide() calls cost so far (run.json's scheduler_*).
  const DecisionCost& decision_cost() const { return cost_; }
  // Whole-list passes over the queue and the running list (erase, insert,
  // filter, merge) so far: what the driver's bookkeeping costs, which a
  // test checks stays one per list and batch of decisions.
  std::uint64_t list_passes() const { return list_passes_; }

  // Before the run: a job a resumed run already finished.
  void mark_done(JobIndex job);

  // Arrivals with submit_s <= now, in (submit_s, job index) order; an
  // infeasible one is rejected with why_infeasible()'s reason.
  void process_arrivals(double now);
  // Policy::decide, called again as long as it returns decisions; each is
  // checked and applied in order.
  void run_policy(double now);
  // The policy's next timer after `now` (none once `all_done`).
  void update_timer(double now, bool all_done);
  // Never hang, never drop: with nothing running, nothing left to arrive
  // and no timer that could change the policy's mind, queued jobs can never
  // start and are rejected. Returns whether it rejected any.
  bool guard_against_idle_deadlock(double now);

  // Engine side.
  // Back into the queue at its submission-order place.
  void requeue(JobIndex job, const JobProgress& progress);
  // The job completed (running, or queued after a stop that raced its end).
  void finished(JobIndex job);
  // A resized job's new placement.
  void moved(JobIndex job, const Placement& placement);

 private:
  class Changes;  // InputChanges over the lists lent to the policy
  void apply(const Decision& d, double now);
  // The job's queued or running entry appeared, changed or went.
  void mark_changed(JobIndex job);
  void check_phase(JobIndex job, Phase wanted, const char* action) const;
  void reject(JobIndex job, double now, const std::string& reason);
  QueuedJob queue_entry(JobIndex job, const JobProgress& progress);
  // While a batch of decisions is applied, a preempted or finished job's
  // running entry is only counted stale and a requeued job's entry only
  // noted; these bring the lists up to date in one pass each: the running
  // list keeps start order, the queue submission order.
  void flush_running() const;
  void flush_queue() const;
  class Batch;  // the scope of one batch of decisions

  const Cluster& cluster_;
  const GpuCatalog& gpu_catalog_;
  const ModelCatalog& models_;
  const std::vector<JobSpec>& jobs_;
  Policy& policy_;
  PolicyExecutor& executor_;
  ClusterView view_;
  AloneEstimator estimator_;
  std::vector<Phase> phase_;
  std::vector<JobIndex> arrival_order_;
  std::vector<std::size_t> arrival_rank_;  // position of each job in arrival_order_
  std::size_t next_arrival_ = 0;
  // mutable: the const accessors flush what a batch left pending.
  mutable std::vector<QueuedJob> queued_;    // submission order
  mutable std::vector<RunningJob> running_;  // start order
  std::vector<std::uint64_t> start_seq_;     // per job: its last start's rank, which orders running_
  std::uint64_t starts_ = 0;
  // Entered the queue during the batch, in call order; requeued_at_[job] is
  // 1 + the position of the job's last such entry (0: none).
  mutable std::vector<QueuedJob> requeued_;
  mutable std::vector<std::size_t> requeued_at_;
  // Per job: how many of its entries in running_ (its earliest) are stale.
  mutable std::vector<std::uint32_t> stale_running_;
  mutable std::size_t stale_total_ = 0;
  bool batching_ = false;  // in a batch: starts, rejects and requeues leave the queue to flush
  mutable bool queue_dirty_ = false;
  mutable std::uint64_t list_passes_ = 0;
  std::vector<JobIndex> changed_;  // since the policy's previous call (InputChanges::jobs)
  std::vector<char> is_changed_;   // per job: in changed_
  std::optional<double> timer_s_;
  int idle_timer_wakes_ = 0;
  DecisionCost cost_;
};

}  // namespace vnsim
