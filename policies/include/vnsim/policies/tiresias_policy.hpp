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
    int queue = 0;
    double entered_queue_s = 0;
    double service_offset_gpu_s = 0;  // attained service at the last promotion
    bool was_running = false;
    double pending_since_s = -1;  // when it last stopped running
  };
  JobMemo& memo(JobIndex job, double submit_s);
  void update_queue(JobMemo& m, double service_gpu_s, double now_s);

  TiresiasParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<JobMemo> memos_;
  double next_timer_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
