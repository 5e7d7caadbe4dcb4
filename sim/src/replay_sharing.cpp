// GPU sharing in the replay: jobs that hold shares of the same GPU slow each
// other down (GpuSharing, gpu_sharing.hpp, gives the speeds); here an
// analytic job's progress follows its speed as co-tenants come and go.
#include <algorithm>

#include "replay_controller.hpp"

namespace vnsim::sim {

// Progress of a new run begins at the speed its co-tenants allow.
void ReplayController::start_at_rate(JobIndex job, double now) {
  state_[job].progress.begin_run(sharing_.slowest_rate(job, state_[job].placement.gpus), now);
}

// A co-tenant came or went. An analytic job banks its progress at the old
// speed and gets a new end (the old heap entry turns stale with the epoch);
// a ring job's ranks compute at their GPUs' new speeds from their next
// macro-iteration on.
void ReplayController::update_rate(JobIndex job, double now) {
  JobState& s = state_[job];
  if (s.phase != Phase::Running) return;  // a job setting up takes its speed when it begins
  const double rate = s.quiet ? quiet_ring_rate(job) : sharing_.slowest_rate(job, state_[job].placement.gpus);
  if (s.ring) {
    for (std::size_t r = 0; r < s.placement.gpus.size(); ++r)
      set_ring_rank_rate(*s.ring, r, sharing_.gpu_rate(job, s.placement.gpus[r]));
    s.progress.note_rate(rate);
    return;
  }
  // A fluid ring's compute speed changes its comm fraction, hence how much
  // it slows the rings beside it.
  if (s.quiet && fluid_rings_on()) fluid_rates_stale_ = true;
  // Multi-node jobs whose traffic runs as flows keep their speed (docs:
  // "Not implemented yet").
  if (s.analytic_end_s < 0 || rate == s.progress.rate()) return;
  change_analytic_rate(job, rate, now);
}

// Banks an analytic job's progress at its old speed and gives it a new end
// (the old heap entry turns stale with the epoch).
void ReplayController::change_analytic_rate(JobIndex job, double rate, double now) {
  JobState& s = state_[job];
  s.progress.change_rate(rate, now);
  ++s.epoch;
  s.analytic_end_s = now + std::max(0.0, s.estimated_total_s - s.progress.banked_s()) / rate;
  analytic_ends_.push(AnalyticEnd{s.analytic_end_s, job, s.epoch});
}

void ReplayController::rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now) {
  for (JobIndex j : sharing_.co_tenants(gpus, except)) update_rate(j, now);
}

}  // namespace vnsim::sim
