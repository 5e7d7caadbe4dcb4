#pragma once
// What the replay reports: one JobRecord per job, the allocation log in
// execution order. Pure bookkeeping, no SimGrid.
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/job_record.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/policies/decision_cost.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

// Told, at the simulated time it happens, of every change in which GPUs jobs
// hold and which are up: the SimGrid energy meter (gpu_energy_meter.hpp)
// listens, so the recorder itself stays free of SimGrid.
class GpuStateListener {
 public:
  virtual ~GpuStateListener() = default;
  virtual void taken(const std::vector<GpuId>& gpus) = 0;     // one more tenant on each
  virtual void released(const std::vector<GpuId>& gpus) = 0;  // one tenant fewer on each
  virtual void went_down(const std::vector<GpuId>& gpus) = 0;
  virtual void came_up(const std::vector<GpuId>& gpus) = 0;
  // Every change at this simulated time has been told; the time may advance.
  virtual void instant_over() {}
};

class ReplayRecorder {
 public:
  explicit ReplayRecorder(const std::vector<JobSpec>& jobs);

  // `milli`: the share of each GPU the job holds (kGpuMilli = whole GPUs);
  // its GPU-seconds, energy and cost count that share only.
  void started(JobIndex job, double now_s, const std::vector<GpuId>& gpus, int milli = kGpuMilli);
  void completed(JobIndex job, double now_s, const std::vector<GpuId>& gpus);
  void rejected(JobIndex job, double now_s, const std::string& reason);
  // The job gave its GPUs back and went back to the queue (one restart).
  // `cause`: AllocationCause::Preempt or AllocationCause::NodeDown.
  void preempted(JobIndex job, double now_s, const std::vector<GpuId>& gpus, AllocationCause cause);
  // The running job moved from `old_gpus` to `new_gpus` (one restart).
  void resized(JobIndex job, double now_s, const std::vector<GpuId>& old_gpus,
               const std::vector<GpuId>& new_gpus);
  void lost_work(JobIndex job, double seconds);

  // Cost and energy: prices and power per GPU (docs/ELASTICITY.md). Without
  // it, jobs' energy and cost stay 0 and ReplayResult::usage stays empty.
  struct GpuRate {
    std::size_t type = 0;  // index into type_names
    bool spot = false;
    double busy_watts = 0;
    double idle_watts = 0;
    double usd_per_s = 0;
  };
  void set_accounting(std::vector<std::string> type_names, std::vector<GpuRate> per_gpu);
  // A node's GPUs left the cluster at `now_s` / came back at `now_s`; a node
  // still down at the end counts as down until then.
  void node_left(const std::vector<GpuId>& gpus, double now_s);
  void node_returned(const std::vector<GpuId>& gpus, double now_s);
  void set_listener(GpuStateListener* listener) { listener_ = listener; }
  // The controller is done with this simulated time (GpuStateListener).
  void instant_over() {
    if (listener_ != nullptr) listener_->instant_over();
  }
  // Allocation events go to `sink` as they happen instead of into
  // ReplayResult::allocations (ReplayOptions::allocation_sink).
  void set_allocation_sink(std::function<void(const AllocationEvent&)> sink) { sink_ = std::move(sink); }
  // Cluster energy measured by the SimGrid plugin, per GPU type (same order
  // as type_names): replaces the analytic busy and idle energy in take().
  void set_measured_energy(std::vector<double> busy_j, std::vector<double> idle_j);
  void job_revoked() { ++result_.usage.jobs_revoked; }
  void node_event() { ++result_.usage.node_events; }

  std::size_t jobs_done() const { return done_; }
  bool all_done() const { return done_ == result_.jobs.size(); }
  // Moves the result out; call once, at the end.
  ReplayResult take(double simulated_end_s, const DecisionCost& scheduler);

 private:
  void count_done();
  void log(AllocationEvent e);
  void hold_ended(JobIndex job, const std::vector<GpuId>& gpus, double now_s);
  void finish_usage(double span_s);

  struct DownInterval {
    GpuId gpu;
    double from_s, to_s;
  };
  std::vector<GpuRate> rates_;
  std::vector<DownInterval> downs_;  // to_s = infinity while still down
  GpuStateListener* listener_ = nullptr;
  std::function<void(const AllocationEvent&)> sink_;       // empty: keep the log in result_
  std::vector<double> measured_busy_j_, measured_idle_j_;  // empty: keep the analytic energy

  ReplayResult result_;
  std::vector<double> held_since_;  // start of the current allocation, -1 when none
  std::vector<int> held_milli_;     // share of each GPU in the current allocation
  std::size_t done_ = 0;
};

}  // namespace vnsim::sim
