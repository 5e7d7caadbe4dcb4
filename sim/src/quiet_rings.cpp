#include "quiet_rings.hpp"

#include <algorithm>

namespace vnsim::sim {

QuietRings::QuietRings(const RingContext& ctx) : RingTiming(ctx), rings_(ctx.in.jobs.size()) {}

void QuietRings::start(JobIndex job, const Placement& placement, long long iterations, double now) {
  Ring& r = rings_[job];
  r.placement = placement;
  r.iterations = iterations;
  r.banked_iterations = 0;
  if (!start_quiet_segment(job, now)) simulate_segment(job, now, 0);
}

void QuietRings::simulate_segment(JobIndex job, double now, double head_start_s) {
  Ring& r = rings_[job];
  r.ring = simulate(job, r.placement, iterations_left(r), now, head_start_s, /*hand_off_when_alone=*/true);
}

bool QuietRings::start_quiet_segment(JobIndex job, double now) {
  Ring& r = rings_[job];
  auto user = std::make_unique<LinkUser>();
  std::vector<simgrid::s4u::Host*> hosts;
  for (GpuId g : r.placement.gpus) hosts.push_back(ctx_.platform.gpu_hosts.at(g));
  user->links = ring_route_links(hosts);
  register_link_user(*user);
  if (user->contended) {
    unregister_link_user(*user);
    return false;
  }
  // The registry only takes note; the ring leaves its quiet segment in traffic_changed.
  user->became_contended = [this, job] { woken_.push_back(job); };
  r.quiet = std::move(user);
  ctx_.clock.begin_analytic_segment(job, iterations_left(r), ring_rate(job, r.placement, 1), now);
  return true;
}

void QuietRings::stop_quiet_segment(Ring& r) {
  if (!r.quiet) return;
  unregister_link_user(*r.quiet);
  r.quiet.reset();
}

long long QuietRings::stop(JobIndex job, double now, bool count) {
  Ring& r = rings_[job];
  long long done = 0;
  if (count)
    done = r.banked_iterations + (r.ring ? ring_iterations_done(*r.ring, now, ctx_.clock.at(job).iteration_s)
                                         : analytic_iterations_done(job, now));
  if (r.ring) {
    stop_ring_job(*r.ring);
    ctx_.actors.retire(std::move(r.ring));
  }
  stop_quiet_segment(r);
  return done;
}

void QuietRings::finish(JobIndex job) {
  Ring& r = rings_[job];
  if (r.ring) ctx_.actors.retire(std::move(r.ring));  // released once quiescent
  stop_quiet_segment(r);
}

void QuietRings::speed_changed(JobIndex job, double now) {
  Ring& r = rings_[job];
  if (r.ring) {
    set_actor_rates(job, r.placement, *r.ring);
    return;
  }
  const double rate = ring_rate(job, r.placement, 1);
  if (rate != ctx_.clock.at(job).progress.rate()) ctx_.clock.change_rate(job, rate, now);
}

// Another job now shares a link: bank the quiet segment's iterations and
// simulate the rest with actors.
void QuietRings::leave_quiet_segment(JobIndex job, double now) {
  Ring& r = rings_[job];
  const RunTimes& run = ctx_.clock.at(job);
  const long long done = analytic_iterations_done(job, now);
  // Ending within an iteration: its analytic end stands.
  if (done + 1 >= iterations_left(r)) return;
  // The iteration in flight goes on in the actors (RingJob::head_start_s).
  const double head_start_s =
      std::max(0.0, run.progress.progress_s(now) - static_cast<double>(done) * run.iteration_s);
  stop_quiet_segment(r);
  r.banked_iterations += done;
  ctx_.clock.invalidate(job);  // the quiet segment's analytic end is now stale
  simulate_segment(job, now, head_start_s);
}

void QuietRings::traffic_changed(double now) {
  while (!woken_.empty()) {
    const JobIndex job = woken_.back();
    woken_.pop_back();
    const Ring& r = rings_[job];
    if (r.quiet && r.quiet->contended) leave_quiet_segment(job, now);
  }
}

void QuietRings::handed_back(JobIndex job, int epoch, long long iterations, double now) {
  Ring& r = rings_[job];
  if (ctx_.clock.epoch(job) != epoch || !r.ring) return;  // stopped meanwhile
  ctx_.actors.retire(std::move(r.ring));
  r.banked_iterations += iterations;
  ctx_.clock.invalidate(job);
  if (!start_quiet_segment(job, now)) simulate_segment(job, now, 0);
}

}  // namespace vnsim::sim
