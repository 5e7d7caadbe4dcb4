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
FluidRings::Loads ring_loads(const std::vector<HopRoute>& hops, double gradient_bytes) {
  const std::size_t n = hops.size();
  const double chunk = gradient_bytes / static_cast<double>(n);
  double step_s = 0;
  for (const HopRoute& hop : hops) {
    double bottleneck = std::numeric_limits<double>::infinity();
    for (const sg4::Link* l : hop.links) bottleneck = std::min(bottleneck, l->get_bandwidth());
    step_s = std::max(step_s, hop.latency_s + (std::isinf(bottleneck) ? 0.0 : chunk / bottleneck));
  }
  FluidRings::Loads out;
  out.allreduce_s = 2.0 * static_cast<double>(n - 1) * step_s;
  if (!(step_s > 0)) return out;
  std::map<const sg4::Link*, double> sum;
  for (const HopRoute& hop : hops)
    for (const sg4::Link* l : hop.links) sum[l] += chunk / step_s;
  out.per_link.assign(sum.begin(), sum.end());
  return out;
}

}  // namespace

FluidRings::FluidRings(const RingContext& ctx) : RingTiming(ctx), rings_(ctx.in.jobs.size()) {}

void FluidRings::start(JobIndex job, const Placement& placement, long long iterations, double now) {
  Ring& r = rings_[job];
  const double gradient_bytes = ctx_.in.models.at(ctx_.in.jobs[job].model).gradient_bytes;
  auto key = std::make_pair(placement.gpus, gradient_bytes);
  auto it = loads_cache_.find(key);
  if (it == loads_cache_.end()) {
    if (loads_cache_.size() >= kMaxCachedRingLoads) loads_cache_.clear();
    std::vector<HopRoute> hops;
    for (std::size_t k = 0; k < placement.gpus.size(); ++k)
      hops.push_back(hop_route(ctx_.platform.gpu_hosts.at(placement.gpus[k]),
                               ctx_.platform.gpu_hosts.at(placement.gpus[(k + 1) % placement.gpus.size()])));
    it = loads_cache_.emplace(std::move(key), ring_loads(hops, gradient_bytes)).first;
  }
  r.placement = placement;
  r.loads = it->second;
  r.comm_stretch = 1;
  r.timed = true;
  timed_.insert(job);
  ctx_.clock.begin_analytic_segment(job, iterations, ring_rate(job, placement, 1), now);
  stale_ = true;
}

const HopRoute& FluidRings::hop_route(sg4::Host* from, sg4::Host* to) {
  auto key = std::make_pair(from, to);
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  if (routes_.size() >= kMaxCachedHopRoutes) routes_.clear();
  HopRoute& hop = routes_[key];
  from->route_to(to, hop.links, &hop.latency_s);  // as ring_hop_routes does
  return hop;
}

void FluidRings::let_go(JobIndex job) {
  if (!rings_[job].timed) return;
  rings_[job].timed = false;
  timed_.erase(job);
  stale_ = true;  // its neighbours speed up
}

long long FluidRings::stop(JobIndex job, double now, bool count) {
  const long long done = count ? analytic_iterations_done(job, now) : 0;
  let_go(job);
  return done;
}

void FluidRings::finish(JobIndex job) {
  let_go(job);
}

// A fluid ring's compute speed changes its comm fraction, hence how much it
// slows the rings beside it.
void FluidRings::speed_changed(JobIndex job, double now) {
  const Ring& r = rings_[job];
  const double rate = ring_rate(job, r.placement, r.comm_stretch);
  stale_ = true;
  if (rate != ctx_.clock.at(job).progress.rate()) ctx_.clock.change_rate(job, rate, now);
}

// Links only one ring crosses cannot slow anyone, so only the shared ones
// go to the model, and only the rings that cross one of them: a ring that
// shares no link keeps stretch 1 and, having no user on any shared link,
// changes no one else's (fluid_allreduce_stretch), so leaving it out gives
// the others the same stretches, bit for bit. On a large cluster most rings
// share nothing, and pricing each one's compute per rank was a fifth of a
// Pollux replay of Philly.
void FluidRings::settle(double now) {
  if (!stale_) return;
  stale_ = false;
  const std::vector<JobIndex> rings(timed_.begin(), timed_.end());
  // Every link as often as rings cross it, in address order (the order the
  // shared links are numbered in).
  std::vector<const sg4::Link*> crossed;
  for (JobIndex j : rings)
    for (const auto& [link, load] : rings_[j].loads.per_link) crossed.push_back(link);
  std::sort(crossed.begin(), crossed.end());
  std::vector<const sg4::Link*> shared;
  std::vector<double> capacity;
  for (std::size_t i = 0; i + 1 < crossed.size(); ++i)
    if (crossed[i] == crossed[i + 1] && (shared.empty() || shared.back() != crossed[i])) {
      shared.push_back(crossed[i]);
      capacity.push_back(crossed[i]->get_bandwidth());
    }
  std::vector<FluidRing> model;
  std::vector<std::size_t> in_model;  // position in `rings` of each model ring
  for (std::size_t i = 0; i < rings.size() && !shared.empty(); ++i) {
    const Ring& r = rings_[rings[i]];
    FluidRing f;
    for (const auto& [link, load] : r.loads.per_link)
      if (auto it = std::lower_bound(shared.begin(), shared.end(), link); it != shared.end() && *it == link)
        f.loads.push_back(FluidLinkLoad{static_cast<std::size_t>(it - shared.begin()), load});
    if (f.loads.empty()) continue;
    f.compute_s = slowest_rank_compute_s(rings[i], r.placement);
    f.allreduce_s = r.loads.allreduce_s;
    f.overlap_fraction = ctx_.in.models.at(ctx_.in.jobs[rings[i]].model).overlap_fraction;
    model.push_back(std::move(f));
    in_model.push_back(i);
  }
  std::vector<double> stretch(rings.size(), 1.0);
  const std::vector<double> modelled = fluid_allreduce_stretch(model, capacity);
  for (std::size_t k = 0; k < in_model.size(); ++k) stretch[in_model[k]] = modelled[k];
  for (std::size_t i = 0; i < rings.size(); ++i) {
    Ring& r = rings_[rings[i]];
    // Below this the change is the fixed point's own rounding: a new end
    // for it would only churn the heap.
    if (std::abs(stretch[i] - r.comm_stretch) <= 1e-9 * r.comm_stretch) continue;
    r.comm_stretch = stretch[i];
    const double rate = ring_rate(rings[i], r.placement, r.comm_stretch);
    if (rate != ctx_.clock.at(rings[i]).progress.rate()) ctx_.clock.change_rate(rings[i], rate, now);
  }
}

}  // namespace vnsim::sim
