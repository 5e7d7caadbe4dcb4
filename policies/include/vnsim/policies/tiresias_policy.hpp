#pragma once
// Tiresias discretized 2D-LAS (Tiresias, Gu et al., NSDI'19; SymbioticLab/Tiresias
// simulator/jobs.py and run_sim.py). Priority is attained
// service in GPU-s; a job starts in queue 0 and moves to queue k+1 when its
// service crosses thresholds[k]. Queues are served high to low, FIFO inside
// a queue (by the time the job entered it), with the preemptive pass of the
// Tiresias simulator. A timer wakes the engine at the earliest crossing, so
// demotion happens exactly at the threshold. Starvation promotion (when
// promote_knob > 0): a queued job below queue 0 that has waited, since it
// last ran, at least promote_knob x its executed time goes back to queue 0
// with its executed time reset.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct PassChoice;  // policies/src/priority_pass.hpp

struct TiresiasParams {
  // Tiresias simulator defaults (jobs.py _TFJobs: 3 queues, limits 3250 and
  // 7200 GPU-s); K queues = thresholds.size() + 1.
  std::vector<double> thresholds_gpu_s = {3250, 7200};
  double promote_knob = 0;  // PROMOTE_KNOB; 0 = off (dlas-gpu default)
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
};

// Per call the policy reads only the jobs the driver says changed
// (SchedulerInput::changes) and keeps the rest between calls: the priority
// order of running and of queued jobs, the time each running job reaches
// its queue's threshold, and each queued job's promotion time. A running
// job's service is the engine's rule, counted by the policy: its service at
// the start plus GPUs held x time since (so the engine need not refresh
// every running job before each call). An input without `changes` is read
// whole, with running jobs' attained_gpu_s as their service now.
class TiresiasPolicy : public Policy {
 public:
  explicit TiresiasPolicy(TiresiasParams params = {});
  std::string name() const override { return "tiresias"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;
  bool reads_running_progress() const override { return false; }

  // The queue of a job with this much service (since its last promotion).
  int queue_of(double service_gpu_s) const;
  // Jobs the last decide() call walked in its priority order (the plain
  // cases walk none or only the queued jobs that can still be chosen).
  std::size_t last_walk_length() const { return last_walk_; }

 private:
  enum class State : std::uint8_t { Unknown, Queued, Running };
  struct JobMemo {
    bool seen = false;
    State state = State::Unknown;
    JobIndex index = 0;
    double submit_s = 0;
    int queue = 0;
    double entered_queue_s = 0;
    double service_offset_gpu_s = 0;  // attained service at the last promotion
    double pending_since_s = -1;      // when it last stopped running
    std::uint64_t call = 0;           // an input without changes: the last call that held it
    const JobSpec* spec = nullptr;
    GpuTypeMask allowed = kAnyGpuType;  // queued
    double queued_service_gpu_s = 0;    // queued: its service
    Placement placement;                // running
    double held_since_s = 0;            // running: service = held_service + GPUs x (t - held_since)
    double held_service_gpu_s = 0;
    double crossing_s = kNever;   // running: in crossings_ at this time
    double promotion_s = kNever;  // queued: in promotions_ at this time
  };
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  // Priority order: queue, then time entered it, submission time, index
  // (unique per job, so the order is total and the same as a stable sort).
  struct OrderKey {
    int queue;
    double entered_s;
    double submit_s;
    JobIndex index;
    auto operator<=>(const OrderKey&) const = default;
  };
  using Timed = std::pair<double, JobIndex>;

  OrderKey order_key(const JobMemo& m) const {
    return OrderKey{m.queue, m.entered_queue_s, m.submit_s, m.index};
  }
  JobMemo& memo(JobIndex job, double submit_s);
  std::set<OrderKey>& order_of(State s) { return s == State::Running ? running_order_ : queued_order_; }
  double service_now(const JobMemo& m, double now) const;
  double crossing_from(const JobMemo& m, double now) const;
  // The changed jobs of this call, or every job of an input without changes.
  void read_changes(const SchedulerInput& input);
  void now_running(JobMemo& m, const RunningJob& r, double held_since, double now);
  void now_queued(JobMemo& m, const QueuedJob& q, double now);
  void now_gone(JobMemo& m);
  void leave(JobMemo& m);
  void set_queue(JobMemo& m, int queue, double now);
  void update_crossing(JobMemo& m, double now);
  void update_promotion(JobMemo& m);
  void demote_crossed(double now);
  void promote_starved(double now);
  double timer_after(double now);
  PassChoice choose(const SchedulerInput& input);

  TiresiasParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<JobMemo> memos_;
  std::set<OrderKey> running_order_;
  std::set<OrderKey> queued_order_;
  std::multiset<int> queued_gpus_;  // GPU counts of the queued jobs
  long long queued_gpus_total_ = 0;
  long long running_gpus_ = 0;  // GPUs the running jobs ask for
  std::set<Timed> crossings_;   // running jobs by when they reach their queue's threshold
  std::set<Timed> promotions_;  // queued jobs by when starvation promotes them
  std::uint64_t call_ = 0;
  std::size_t last_walk_ = 0;
  double next_timer_s_ = kNever;
};

}  // namespace vnsim
