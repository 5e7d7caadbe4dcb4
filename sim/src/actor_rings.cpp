#include "actor_rings.hpp"

namespace vnsim::sim {

ActorRings::ActorRings(const RingContext& ctx) : RingTiming(ctx), rings_(ctx.in.jobs.size()) {}

void ActorRings::start(JobIndex job, const Placement& placement, long long iterations, double now) {
  Ring& r = rings_[job];
  r.placement = placement;
  r.ring = simulate(job, placement, iterations, now, 0, /*hand_off_when_alone=*/false);
}

long long ActorRings::stop(JobIndex job, double now, bool count) {
  Ring& r = rings_[job];
  const long long done = count ? ring_iterations_done(*r.ring, now, ctx_.clock.at(job).iteration_s) : 0;
  stop_ring_job(*r.ring);
  ctx_.actors.retire(std::move(r.ring));
  return done;
}

void ActorRings::finish(JobIndex job) {
  ctx_.actors.retire(std::move(rings_[job].ring));  // released once quiescent
}

void ActorRings::speed_changed(JobIndex job, double /*now*/) {
  set_actor_rates(job, rings_[job].placement, *rings_[job].ring);
}

}  // namespace vnsim::sim
