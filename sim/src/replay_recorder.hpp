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

  void started(JobIndex job, double now_s, const std::vector<GpuId>& gpus);
  void completed(JobIndex job, double now_s, const std::vector<GpuId>& gpus);
  void rejected(JobIndex job, double now_s, const std::string& reason);
  // The job gave its GPUs back and went back to the queue (one restart).
  void preempted(JobIndex job, double now_s, const std::vector<GpuId>& gpus);

  std::size_t jobs_done() const { return done_; }
  bool all_done() const { return done_ == result_.jobs.size(); }
  // Moves the result out; call once, at the end.
  ReplayResult take(double simulated_end_s, double scheduler_wall_s);

 private:
  void count_done();

  ReplayResult result_;
  std::vector<double> held_since_;  // start of the current allocation, -1 when none
  std::size_t done_ = 0;
  std::size_t progress_step_ = 1;
  std::function<void(std::size_t, std::size_t)> progress_;
};

}  // namespace vnsim::sim
