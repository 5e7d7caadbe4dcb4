// GPU sharing in the job lifecycle: jobs that hold shares of the same GPU
// slow each other down (GpuSharing, gpu_sharing.hpp, gives the speeds); here
// a running job's timing follows its speed as co-tenants come and go.
#include <algorithm>

#include "job_lifecycle.hpp"

namespace vnsim::sim {

// A co-tenant came or went. A ring job's engine takes the new speeds; an
// analytic job banks its progress at the old speed and gets a new end (the
// old heap entry turns stale with the epoch).
void JobLifecycle::update_rate(JobIndex job, double now) {
  const JobState& s = state_[job];
  if (s.phase != Phase::Running) return;  // a job setting up takes its speed when it begins
  if (parts_.rings.holds(job)) {
    parts_.rings.speed_changed(job, now);
    return;
  }
  const RunTimes& run = parts_.clock.at(job);
  const double rate = parts_.sharing.slowest_rate(job, s.placement.gpus);
  // Multi-node jobs whose traffic runs as flows keep their speed (docs:
  // "Not implemented yet").
  if (run.analytic_end_s < 0 || rate == run.progress.rate()) return;
  parts_.clock.change_rate(job, rate, now);
}

void JobLifecycle::rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now) {
  for (JobIndex j : parts_.sharing.co_tenants(gpus, except)) update_rate(j, now);
}

}  // namespace vnsim::sim
