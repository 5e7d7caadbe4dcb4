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
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct TiresiasParams {
  // Tiresias simulator defaults (jobs.py _TFJobs: 3 queues, limits 3250 and
  // 7200 GPU-s); K queues = thresholds.size() + 1.
  std::vector<double> thresholds_gpu_s = {3250, 7200};
  double promote_knob = 0;  // PROMOTE_KNOB; 0 = off (dlas-gpu default)
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
};

class TiresiasPolicy : public Policy {
 public:
  explicit TiresiasPolicy(TiresiasParams params = {});
  std::string name() const override { return "tiresias"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

  // The queue of a job with this much service (since its last promotion).
  int queue_of(double service_gpu_s) const;

 private:
  struct JobMemo {
    bool seen = false;
    JobIndex index = 0;
    double submit_s = 0;
    int queue = 0;
    double entered_queue_s = 0;
    double service_offset_gpu_s = 0;  // attained service at the last promotion
    bool was_running = false;
    double pending_since_s = -1;  // when it last stopped running
    bool in_order = false;        // in order_ under order_key()
    std::uint64_t call = 0;       // the last decide() call whose input held it
    // From that call's input: the job's spec, allowed types, placement
    // (running jobs; nullptr when queued).
    const JobSpec* spec = nullptr;
    GpuTypeMask allowed = kAnyGpuType;
    const Placement* placement = nullptr;
  };
  // Priority order: queue, then time entered it, submission time, index
  // (unique per job, so the order is total and the same as a stable sort).
  struct OrderKey {
    int queue;
    double entered_s;
    double submit_s;
    JobIndex index;
    auto operator<=>(const OrderKey&) const = default;
  };
  OrderKey order_key(const JobMemo& m) const {
    return OrderKey{m.queue, m.entered_queue_s, m.submit_s, m.index};
  }
  void reorder(JobMemo& m, const OrderKey& before);
  JobMemo& memo(JobIndex job, double submit_s);
  void update_queue(JobMemo& m, double service_gpu_s, double now_s);

  TiresiasParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<JobMemo> memos_;
  std::set<OrderKey> order_;  // every job of the last call's input
  std::uint64_t call_ = 0;
  double next_timer_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
