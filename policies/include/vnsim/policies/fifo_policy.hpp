#pragma once
// FIFO baselines (the Tiresias simulator's "fifo" and "fjf", SymbioticLab/
// Tiresias simulator/run_sim.py; Gavel's FIFO, scheduler/policies/fifo.py).
// Both walk the queue in submission order
// and place each job with find_consolidated_gpus; neither preempts.
//   "fifo":          strict head-of-line blocking: the first job that does
//                    not fit stops the walk (Tiresias "fifo", Gavel FIFO).
//   "fifo-backfill": a job that does not fit is skipped and later jobs may
//                    start (Tiresias "fjf", fit-job-first).
#include <string>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

class FifoPolicy : public Policy {
 public:
  explicit FifoPolicy(bool backfill) : backfill_(backfill) {}

  std::string name() const override { return backfill_ ? "fifo-backfill" : "fifo"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  // Never reads the running jobs.
  bool reads_running_progress() const override { return false; }

 private:
  bool backfill_;
  // GPUs handed out earlier in the current decide() call: the view is only
  // updated after the call, so without this two StartJobs could share a GPU.
  // Kept between calls (all false) to avoid reallocating on every event.
  std::vector<char> taken_;
};

}  // namespace vnsim
