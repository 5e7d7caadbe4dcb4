// Quiet rings: a multi-node ring job whose links no other running job
// crosses is timed analytically, with no actor and no activity, because
// alone on its links the simulated ring takes the idle-network iteration time
// (ring_accuracy_test). It registers its links all the same. When a job that
// shares one of them starts, the ring's progress so far is banked and its
// actors are launched for the rest; they run contended macro-iterations of at
// most ReplayOptions::contended_macro_s and hand the job back to the
// controller at the first boundary where it is alone again. The cost of a
// ring job then follows the time it spends contended, not its iteration count
// nor how often a policy moves it (docs/PERFORMANCE.md, "Quiet rings").
#include <algorithm>
#include <cmath>

#include "replay_controller.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {

void ReplayController::run_ring(JobIndex job, double now) {
  if (fluid_rings_on()) {
    start_fluid_segment(job, now);
    return;
  }
  if (!quiet_rings_on() || !start_quiet_segment(job, now)) simulate_ring_segment(job, now, 0);
}

// The iterations left run as actors from `now`; the first one is already
// `head_start_s` along (RingJob::head_start_s).
void ReplayController::simulate_ring_segment(JobIndex job, double now, double head_start_s) {
  JobState& s = state_[job];
  s.analytic_end_s = -1;
  s.segment_start_s = now;
  s.estimated_total_s = static_cast<double>(iterations_left(job)) * s.iteration_s - head_start_s;
  launch_ring(job, head_start_s);
}

// Whole iterations, as for any analytic job: a stop loses the one in flight.
long long ReplayController::quiet_iterations_done(const JobState& s, double now) const {
  if (!(s.iteration_s > 0)) return 0;
  return static_cast<long long>(std::floor(std::max(0.0, s.progress.progress_s(now)) / s.iteration_s));
}

// Speed next to GPU co-tenants, as the ring's actors would run: each rank's
// compute is divided by its GPU's rate, the all-reduce is not, and the
// slowest rank paces the step. A fluid ring's all-reduce is also stretched by
// the rings that share its links (replay_fluid_rings.cpp).
double ReplayController::quiet_ring_rate(JobIndex job) const {
  const JobState& s = state_[job];
  if (sharing_.slowest_rate(job, state_[job].placement.gpus) == 1 && s.comm_stretch == 1) return 1;
  const ModelParams& model = in_.models.at(in_.jobs[job].model);
  const IterationBreakdown it =
      iteration_time(in_.topology, in_.gpu_catalog, model, s.placement, batches_.batch_of(job));
  return it.total_s / overlapped_step_s(slowest_rank_compute_s(job), it.allreduce_s * s.comm_stretch,
                                        model.overlap_fraction);
}

// Seconds of compute per iteration of the slowest rank, next to its GPUs'
// co-tenants.
double ReplayController::slowest_rank_compute_s(JobIndex job) const {
  const Placement& placement = state_[job].placement;
  double slowest = 0;
  for (std::size_t r = 0; r < placement.gpus.size(); ++r)
    slowest = std::max(slowest, rank_compute_s(job, r) / sharing_.gpu_rate(job, placement.gpus[r]));
  return slowest;
}

// Times the iterations left analytically if the ring is alone on its links;
// false (nothing changed) when it is not.
bool ReplayController::start_quiet_segment(JobIndex job, double now) {
  JobState& s = state_[job];
  auto user = std::make_unique<LinkUser>();
  std::vector<simgrid::s4u::Host*> hosts;
  for (GpuId g : s.placement.gpus) hosts.push_back(platform_.gpu_hosts.at(g));
  user->links = ring_route_links(hosts);
  register_link_user(*user);
  if (user->contended) {
    unregister_link_user(*user);
    return false;
  }
  user->became_contended = [this, job] { quiet_rings_woken_.push_back(job); };
  time_ring_analytically(job, std::move(user), now);
  return true;
}

// From `now` the iterations left of the ring are timed like a single-node
// job's, at the ring's current speed; `marker` is held while they are.
void ReplayController::time_ring_analytically(JobIndex job, std::unique_ptr<LinkUser> marker, double now) {
  JobState& s = state_[job];
  s.quiet = std::move(marker);
  s.comm_stretch = 1;
  s.segment_start_s = now;
  s.estimated_total_s = static_cast<double>(std::max(0LL, iterations_left(job))) * s.iteration_s;
  s.progress.begin_segment(quiet_ring_rate(job), now);
  s.analytic_end_s = now + s.estimated_total_s / s.progress.rate();
  analytic_ends_.push(AnalyticEnd{s.analytic_end_s, job, s.epoch});
}

void ReplayController::stop_quiet_segment(JobState& s) {
  if (!s.quiet) return;
  if (fluid_rings_on()) fluid_rates_stale_ = true;  // its neighbours speed up
  unregister_link_user(*s.quiet);
  s.quiet.reset();
}

// Another job now shares a link: bank the quiet segment's iterations and
// simulate the rest with actors.
void ReplayController::leave_quiet_segment(JobIndex job, double now) {
  JobState& s = state_[job];
  const long long done = quiet_iterations_done(s, now);
  // Ending within an iteration: its analytic end stands.
  if (done + 1 >= iterations_left(job)) return;
  // The iteration in flight goes on in the actors (RingJob::head_start_s).
  const double head_start_s =
      std::max(0.0, s.progress.progress_s(now) - static_cast<double>(done) * s.iteration_s);
  stop_quiet_segment(s);
  s.run_banked_iterations += done;
  ++s.epoch;  // the quiet segment's analytic end is now stale
  simulate_ring_segment(job, now, head_start_s);
}

// The registry only takes note of the quiet rings a registration made
// contended; they leave their quiet segments here, outside its update.
void ReplayController::wake_contended_quiet_rings(double now) {
  while (!quiet_rings_woken_.empty()) {
    const JobIndex job = quiet_rings_woken_.back();
    quiet_rings_woken_.pop_back();
    const JobState& s = state_[job];
    if (s.phase == Phase::Running && s.quiet && s.quiet->contended) leave_quiet_segment(job, now);
  }
}

// A ring reported that it is alone on its links again after `iterations`.
void ReplayController::take_back_ring(JobIndex job, int epoch, long long iterations, double now) {
  JobState& s = state_[job];
  if (s.epoch != epoch || s.phase != Phase::Running || !s.ring) return;  // stopped meanwhile
  actors_.retire(std::move(s.ring));
  s.run_banked_iterations += iterations;
  ++s.epoch;
  if (!start_quiet_segment(job, now)) simulate_ring_segment(job, now, 0);
}

}  // namespace vnsim::sim
