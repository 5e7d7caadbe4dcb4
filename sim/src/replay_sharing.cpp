// GPU sharing in the replay: jobs that hold shares of the same GPU slow each
// other down by the interference table's fractions (docs/HETEROGENEITY.md,
// "GPU sharing"). A job's speed on one GPU is the product of its fractions
// next to each co-tenant (Gavel measured pairs only; the product extends
// that to more tenants), and a synchronous job runs at its slowest GPU.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "replay_controller.hpp"
#include "vnsim/core/interference.hpp"
#include "vnsim/core/throughput_profile.hpp"

namespace vnsim::sim {

std::vector<std::string> interference_families(const std::vector<JobSpec>& jobs) {
  const ThroughputProfiles& profiles = ThroughputProfiles::builtin();
  std::vector<std::string> out;
  out.reserve(jobs.size());
  // A model with no Gavel family keeps its own name: the table then gives it
  // the documented default fraction.
  for (const JobSpec& j : jobs) out.push_back(profiles.family_of_model(j.model).value_or(j.model));
  return out;
}

void ReplayController::check_share(const StartJob& d, const std::vector<GpuId>& gpus) const {
  const std::string who = "policy '" + in_.policy.name() + "' started job '" + in_.jobs[d.job].id + "'";
  if (d.gpu_milli < 0 || d.gpu_milli > kGpuMilli)
    throw std::logic_error(who + " with a share of " + std::to_string(d.gpu_milli) + " milli, must be 0.." +
                           std::to_string(kGpuMilli));
  const InterferenceTable& table = InterferenceTable::builtin();
  for (GpuId g : gpus) {
    const std::string& type = in_.cluster.gpu(g).type;
    for (const GpuTenant& t : view_.tenants(g))
      if (table.fraction(type, family_[d.job], family_[t.job]) <= 0 ||
          table.fraction(type, family_[t.job], family_[d.job]) <= 0)
        throw std::logic_error(who + " on GPU " + std::to_string(g) + " next to job '" + in_.jobs[t.job].id +
                               "': the pair does not fit on one " + type + " (interference fraction 0)");
  }
}

double ReplayController::gpu_rate(JobIndex job, GpuId g) const {
  const InterferenceTable& table = InterferenceTable::builtin();
  const std::string& type = in_.cluster.gpu(g).type;
  double rate = 1;
  for (const GpuTenant& t : view_.tenants(g))
    if (t.job != job) rate *= table.fraction(type, family_[job], family_[t.job]);
  return rate;
}

double ReplayController::sharing_rate(JobIndex job) const {
  double rate = 1;
  for (GpuId g : state_[job].placement.gpus) rate = std::min(rate, gpu_rate(job, g));
  return rate;
}

double ReplayController::analytic_progress_s(const JobState& s, double now) const {
  return s.progress_s + (now - s.rate_since_s) * s.rate;
}

// Progress of a new run begins at the speed its co-tenants allow.
void ReplayController::start_at_rate(JobIndex job, double now) {
  JobState& s = state_[job];
  s.rate = sharing_rate(job);
  s.progress_s = 0;
  s.rate_since_s = now;
  s.slowed_this_run = s.rate != 1;
}

// A co-tenant came or went. An analytic job banks its progress at the old
// speed and gets a new end (the old heap entry turns stale with the epoch);
// a ring job's ranks compute at their GPUs' new speeds from their next
// macro-iteration on.
void ReplayController::update_rate(JobIndex job, double now) {
  JobState& s = state_[job];
  if (s.phase != Phase::Running) return;  // a job setting up takes its speed when it begins
  const double rate = s.quiet ? quiet_ring_rate(job) : sharing_rate(job);
  if (s.ring) {
    for (std::size_t r = 0; r < s.placement.gpus.size(); ++r)
      set_ring_rank_rate(*s.ring, r, gpu_rate(job, s.placement.gpus[r]));
    s.rate = rate;
    s.slowed_this_run = s.slowed_this_run || rate != 1;
    return;
  }
  // A fluid ring's compute speed changes its comm fraction, hence how much
  // it slows the rings beside it.
  if (s.quiet && fluid_rings_on()) fluid_rates_stale_ = true;
  // Multi-node jobs whose traffic runs as flows keep their speed (docs:
  // "Not implemented yet").
  if (s.analytic_end_s < 0 || rate == s.rate) return;
  change_analytic_rate(job, rate, now);
}

// Banks an analytic job's progress at its old speed and gives it a new end
// (the old heap entry turns stale with the epoch).
void ReplayController::change_analytic_rate(JobIndex job, double rate, double now) {
  JobState& s = state_[job];
  s.progress_s = analytic_progress_s(s, now);
  s.rate_since_s = now;
  s.rate = rate;
  s.slowed_this_run = s.slowed_this_run || rate != 1;
  ++s.epoch;
  s.analytic_end_s = now + std::max(0.0, s.estimated_total_s - s.progress_s) / rate;
  analytic_ends_.push(AnalyticEnd{s.analytic_end_s, job, s.epoch});
}

void ReplayController::rescale_tenants(const std::vector<GpuId>& gpus, JobIndex except, double now) {
  std::vector<JobIndex> jobs;
  for (GpuId g : gpus)
    for (const GpuTenant& t : view_.tenants(g))
      if (t.job != except) jobs.push_back(t.job);
  if (jobs.empty()) return;
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (JobIndex j : jobs) update_rate(j, now);
}

}  // namespace vnsim::sim
