#include "fluid_rings.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fluid_contention.hpp"
#include "ring_job.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

// Placements a policy gives again and again (time slicing, rounds) are
// routed once: SimGrid's route lookups were an eighth of a Gandiva replay.
// Bounded, so that a long replay with ever new placements does not grow it
// without end; dropping it changes no result.
constexpr std::size_t kMaxCachedRingLoads = 4096;
// A placement not seen before (Pollux moves jobs to new ones every few
// rounds) is mostly made of GPU pairs that were hops of earlier rings:
// their routes are kept too, up to this many.
constexpr std::size_t kMaxCachedHopRoutes = 1 << 16;

// What each hop of the ring moves per step (bytes / N) over its route, at
// the pace of the slowest hop, as ring_allreduce_time_s prices the step.
// `hops` point into the route cache, which is not cleared while they are
// read (FluidRings::start).
FluidRings::Loads ring_loads(const std::vector<const HopRoute*>& hops, double gradient_bytes) {
  const std::size_t n = hops.size();
  const double chunk = gradient_bytes / static_cast<double>(n);
  double step_s = 0;
  for (const HopRoute* hop : hops) {
    double bottleneck = std::numeric_limits<double>::infinity();
    for (const sg4::Link* l : hop->links) bottleneck = std::min(bottleneck, l->get_bandwidth());
    step_s = std::max(step_s, hop->latency_s + (std::isinf(bottleneck) ? 0.0 : chunk / bottleneck));
  }
  FluidRings::Loads out;
  out.allreduce_s = 2.0 * static_cast<double>(n - 1) * step_s;
  if (!(step_s > 0)) return out;
  std::map<const sg4::Link*, double> sum;
  for (const HopRoute* hop : hops)
    for (const sg4::Link* l : hop->links) sum[l] += chunk / step_s;
  out.per_link.assign(sum.begin(), sum.end());
  return out;
}

}  // namespace

FluidRings::FluidRings(const RingContext& ctx) : RingTiming(ctx), rings_(ctx.in.jobs.size()) {}

void FluidRings::start(JobIndex job, const Placement& placement, long long iterations, double now) {
  Ring& r = rings_[job];
  // A job resuming on the GPUs of its last ring (a time slice's resume, a
  // third of Gandiva's) puts the same loads on the same links: its ring
  // keeps them (a job's model, hence its gradient bytes, never changes).
  if (!r.has_loads || r.placement.gpus != placement.gpus) {
    const double gradient_bytes = ctx_.in.models.at(ctx_.in.jobs[job].model).gradient_bytes;
    auto it = loads_cache_.find(LoadsKeyRef{placement.gpus, gradient_bytes});
    if (it == loads_cache_.end()) {
      if (loads_cache_.size() >= kMaxCachedRingLoads) loads_cache_.clear();
      // The hops point into the route cache (no copy of each hop's links per
      // start), so the cache makes room for a whole ring first: it is not
      // cleared while they are read.
      const std::size_t n = placement.gpus.size();
      if (routes_.size() + n >= kMaxCachedHopRoutes) routes_.clear();
      std::vector<const HopRoute*> hops;
      hops.reserve(n);
      for (std::size_t k = 0; k < n; ++k)
        hops.push_back(&hop_route(ctx_.platform.gpu_hosts.at(placement.gpus[k]),
                                  ctx_.platform.gpu_hosts.at(placement.gpus[(k + 1) % n])));
      it = loads_cache_
               .emplace(LoadsKey{placement.gpus, gradient_bytes},
                        std::make_shared<const Loads>(ring_loads(hops, gradient_bytes)))
               .first;
    }
    r.loads = it->second;
    r.has_loads = true;
  }
  r.placement = placement;
  r.comm_stretch = 1;
  r.compute_s = -1;
  r.slowest_rate = -1;
  r.has_alone = false;
  r.overlap_fraction = ctx_.in.models.at(ctx_.in.jobs[job].model).overlap_fraction;
  r.timed = true;
  link_users_.add(job, r.loads->per_link);
  ctx_.clock.begin_analytic_segment(job, iterations, rate_now(job, r), now);
}

double FluidRings::rate_now(JobIndex job, Ring& r) {
  if (r.slowest_rate < 0) r.slowest_rate = ctx_.sharing.slowest_rate(job, r.placement.gpus);
  if (r.slowest_rate == 1 && r.comm_stretch == 1) return 1;
  if (!r.has_alone) {
    r.alone =
        iteration_time(ctx_.in.topology, ctx_.in.gpu_catalog, ctx_.in.models.at(ctx_.in.jobs[job].model),
                       r.placement, ctx_.batches.batch_of(job));
    r.has_alone = true;
  }
  if (r.compute_s < 0) r.compute_s = slowest_rank_compute_s(job, r.placement);
  return ring_rate_of(r.alone, r.compute_s, r.comm_stretch, r.overlap_fraction);
}

const HopRoute& FluidRings::hop_route(sg4::Host* from, sg4::Host* to) {
  auto key = std::make_pair(from, to);
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  HopRoute& hop = routes_[key];
  from->route_to(to, hop.links, &hop.latency_s);  // as ring_hop_routes does
  return hop;
}

void FluidRings::let_go(JobIndex job) {
  if (!rings_[job].timed) return;
  rings_[job].timed = false;
  link_users_.remove(job);  // its neighbours speed up
}

long long FluidRings::stop(JobIndex job, double now, bool count) {
  const long long done = count ? analytic_iterations_done(job, now) : 0;
  let_go(job);
  return done;
}

void FluidRings::finish(JobIndex job) {
  let_go(job);
  link_users_.forget(job);  // its run is over for good
}

// A fluid ring's compute speed changes its comm fraction, hence how much it
// slows the rings beside it.
void FluidRings::speed_changed(JobIndex job, double now) {
  Ring& r = rings_[job];
  r.compute_s = -1;
  r.slowest_rate = -1;
  const double rate = r.timed ? rate_now(job, r) : ring_rate(job, r.placement, r.comm_stretch);
  if (r.timed) link_users_.changed(job);
  if (rate != ctx_.clock.at(job).progress.rate()) ctx_.clock.change_rate(job, rate, now);
}

// Links only one ring crosses cannot slow anyone, nor can those whose
// rings fit together even all communicating at once, so only the others
// (contending links) go to the model, and only the rings that cross one of
// them: any other ring keeps stretch 1. In the model a ring's stretch
// follows only from the rings on its contending links, so rings connected
// through them (a component) are solved apart from every other component,
// and only the components that hold a ring that started or changed speed,
// or one a stopped ring shared a contending link with, are solved again: every other
// ring keeps its stretch (RingLinkUsers::take_changed). On 10,000 GPUs
// re-solving every ring on a shared link at each settle was the top symbol
// of a sia replay (docs/PERFORMANCE_HISTORY.md, "Fluid rings: settle only
// what changed"). A ring's slowest-rank compute is priced only when it goes to
// the model, and kept until its co-tenants change.
void FluidRings::settle(double now) {
  if (!link_users_.any_changed()) return;
  const auto components = link_users_.take_changed([](const sg4::Link* l) { return l->get_bandwidth(); });
  // The new stretches of every re-solved ring, applied in job order as
  // one solve of all of them applied them.
  std::vector<std::pair<JobIndex, double>>& stretch = new_stretch_;
  stretch.clear();
  for (const auto& c : components) {
    if (c.links.empty()) {  // a ring on no contending link
      stretch.emplace_back(c.rings.front(), 1.0);
      continue;
    }
    // model_'s rings keep their loads' vectors from earlier settles.
    if (model_.size() < c.rings.size()) model_.resize(c.rings.size());
    for (std::size_t i = 0; i < c.rings.size(); ++i) {
      const JobIndex j = c.rings[i];
      Ring& r = rings_[j];
      FluidRing& f = model_[i];
      f.loads.clear();
      for (std::size_t k = c.first[i]; k < c.first[i + 1]; ++k) {
        const auto& [place, index] = c.ring_links[k];
        f.loads.push_back(FluidLinkLoad{index, r.loads->per_link[place].second});
      }
      if (r.compute_s < 0) r.compute_s = slowest_rank_compute_s(j, r.placement);
      f.compute_s = r.compute_s;
      f.allreduce_s = r.loads->allreduce_s;
      f.overlap_fraction = r.overlap_fraction;
    }
    const std::vector<double>& modelled = solver_.solve({model_.data(), c.rings.size()}, c.capacity);
    for (std::size_t k = 0; k < c.rings.size(); ++k) stretch.emplace_back(c.rings[k], modelled[k]);
  }
  std::sort(stretch.begin(), stretch.end());
  for (const auto& [j, s] : stretch) {
    Ring& r = rings_[j];
    // Below this the change is the fixed point's own rounding: a new end
    // for it would only churn the heap.
    if (std::abs(s - r.comm_stretch) > 1e-9 * r.comm_stretch) {
      r.comm_stretch = s;
      const double rate = rate_now(j, r);
      if (rate != ctx_.clock.at(j).progress.rate()) ctx_.clock.change_rate(j, rate, now);
    }
  }
}

}  // namespace vnsim::sim
