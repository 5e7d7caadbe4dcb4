// GPU sharing in the replay: jobs that hold shares of the same GPU slow each
// other down (GpuSharing, gpu_sharing.hpp, gives the speeds); here an
// analytic job's progress follows its speed as co-tenants come and go.
#include <algorithm>

#include "replay_controller.hpp"

namespace vnsim::sim {

// Progress of a new run begins at the speed its co-tenants allow.
void ReplayController::start_at_rate(JobIndex job, double now) {
  clock_.at(job).progress.begin_run(sharing_.slowest_rate(job, state_[job].placement.gpus), now);
}

// A co-tenant came or went. A ring job's engine takes the new speeds; an
// analytic job banks its progress at the old speed and gets a new end (the
// old heap entry turns stale with the epoch).
void ReplayController::update_rate(JobIndex job, double now) {
  const JobState& s = state_[job];
  if (s.phase != Phase::Running) return;  // a job setting up takes its speed when it begins
  if (rings_->holds(job)) {
    rings_->speed_changed(job, now);
    return;
  }
  const RunTimes& run = clock_.at(job);
  const double rate = sharing_.slowest_rate(job, s.placement.gpus);
  // Multi-node jobs whose traffic runs as flows keep their speed (docs:
  // "Not implemented yet").
  if (run.analytic_end_s < 0 || rate == run.progress.rate()) return;
  clock_.change_rate(job, rate, now);
}

void ReplayController::rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now) {
  for (JobIndex j : sharing_.co_tenants(gpus, except)) update_rate(j, now);
}

}  // namespace vnsim::sim
