#pragma once
// What the replay reports: one JobRecord per job, the allocation log in
// execution order, and progress. Pure bookkeeping, no SimGrid.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "vnsim/core/job_record.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::sim {

class ReplayRecorder {
 public:
  ReplayRecorder(const std::vector<JobSpec>& jobs, std::function<void(std::size_t, std::size_t)> progress);

  // `milli`: the share of each GPU the job holds (kGpuMilli = whole GPUs);
  // its GPU-seconds, energy and cost count that share only.
  void started(JobIndex job, double now_s, const std::vector<GpuId>& gpus, int milli = kGpuMilli);
  void completed(JobIndex job, double now_s, const std::vector<GpuId>& gpus);
  void rejected(JobIndex job, double now_s, const std::string& reason);
  // The job gave its GPUs back and went back to the queue (one restart).
  void preempted(JobIndex job, double now_s, const std::vector<GpuId>& gpus);
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
  // A node's GPUs were out of the cluster during [from_s, to_s).
  void node_down(const std::vector<GpuId>& gpus, double from_s, double to_s);
  void job_revoked() { ++result_.usage.jobs_revoked; }
  void node_event() { ++result_.usage.node_events; }

  std::size_t jobs_done() const { return done_; }
  bool all_done() const { return done_ == result_.jobs.size(); }
  // Moves the result out; call once, at the end.
  ReplayResult take(double simulated_end_s, double scheduler_wall_s);

 private:
  void count_done();
  void hold_ended(JobIndex job, const std::vector<GpuId>& gpus, double now_s);
  void finish_usage(double span_s);

  struct DownInterval {
    GpuId gpu;
    double from_s, to_s;
  };
  std::vector<GpuRate> rates_;
  std::vector<DownInterval> downs_;

  ReplayResult result_;
  std::vector<double> held_since_;  // start of the current allocation, -1 when none
  std::vector<int> held_milli_;     // share of each GPU in the current allocation
  std::size_t done_ = 0;
  std::size_t progress_step_ = 1;
  std::function<void(std::size_t, std::size_t)> progress_;
};

}  // namespace vnsim::sim
