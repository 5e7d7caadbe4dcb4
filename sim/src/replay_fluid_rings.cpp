// Fluid rings (ReplayOptions::fluid_rings): every multi-node ring job is
// timed analytically, alone or not. Rings that share links slow each other
// by the fluid model of fluid_contention.hpp, and their speeds are worked out
// again whenever a ring starts, stops or changes compute speed, at the end of
// the controller's step. No actor and no SimGrid activity runs for a ring, so
// the cost of a replay no longer follows the time its rings spend contended
// (docs/PERFORMANCE.md, "Fluid rings"). The rings are not registered with the
// link registry: parameter-server and layout jobs, which still run as
// actors, and fluid rings do not see each other's traffic.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "fluid_contention.hpp"
#include "replay_controller.hpp"
#include "ring_job.hpp"
#include "vnsim/core/perf_model.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

using RingLoads = ReplayController::FluidRingLoads;

// Placements a policy gives again and again (time slicing, rounds) are
// routed once: SimGrid's route lookups were an eighth of a Gandiva replay.
// Bounded, so that a long replay with ever new placements does not grow it
// without end; dropping it changes no result.
constexpr std::size_t kMaxCachedRingLoads = 4096;

// What each hop of the ring moves per step (bytes / N) over its route, at
// the pace of the slowest hop, as ring_allreduce_time_s prices the step.
RingLoads ring_loads(const std::vector<sg4::Host*>& ranks, double gradient_bytes) {
  const std::size_t n = ranks.size();
  const double chunk = gradient_bytes / static_cast<double>(n);
  const std::vector<HopRoute> hops = ring_hop_routes(ranks);
  double step_s = 0;
  for (const HopRoute& hop : hops) {
    double bottleneck = std::numeric_limits<double>::infinity();
    for (const sg4::Link* l : hop.links) bottleneck = std::min(bottleneck, l->get_bandwidth());
    step_s = std::max(step_s, hop.latency_s + (std::isinf(bottleneck) ? 0.0 : chunk / bottleneck));
  }
  RingLoads out;
  out.allreduce_s = 2.0 * static_cast<double>(n - 1) * step_s;
  if (!(step_s > 0)) return out;
  std::map<const sg4::Link*, double> sum;
  for (const HopRoute& hop : hops)
    for (const sg4::Link* l : hop.links) sum[l] += chunk / step_s;
  out.per_link.assign(sum.begin(), sum.end());
  return out;
}

}  // namespace

void ReplayController::start_fluid_segment(JobIndex job, double now) {
  JobState& s = state_[job];
  const double gradient_bytes = in_.models.at(in_.jobs[job].model).gradient_bytes;
  auto key = std::make_pair(s.placement.gpus, gradient_bytes);
  auto it = fluid_loads_cache_.find(key);
  if (it == fluid_loads_cache_.end()) {
    if (fluid_loads_cache_.size() >= kMaxCachedRingLoads) fluid_loads_cache_.clear();
    std::vector<sg4::Host*> hosts;
    for (GpuId g : s.placement.gpus) hosts.push_back(platform_.gpu_hosts.at(g));
    it = fluid_loads_cache_.emplace(std::move(key), ring_loads(hosts, gradient_bytes)).first;
  }
  s.fluid_loads = it->second.per_link;
  s.fluid_allreduce_s = it->second.allreduce_s;
  time_ring_analytically(job, std::make_unique<LinkUser>(), now);  // never registered
  fluid_rates_stale_ = true;
}

// Links only one ring crosses cannot slow anyone, so only the shared ones
// go to the model.
void ReplayController::refresh_fluid_rates(double now) {
  if (!fluid_rates_stale_) return;
  fluid_rates_stale_ = false;
  std::vector<JobIndex> rings;
  for (const RunningJob& r : driver_.running()) {
    const JobState& s = state_[r.index];
    if (s.phase == Phase::Running && s.quiet) rings.push_back(r.index);
  }
  std::sort(rings.begin(), rings.end());
  std::map<const sg4::Link*, int> users;
  for (JobIndex j : rings)
    for (const auto& [link, load] : state_[j].fluid_loads) ++users[link];
  std::map<const sg4::Link*, std::size_t> index;
  std::vector<double> capacity;
  for (const auto& [link, count] : users)
    if (count > 1) {
      index.emplace(link, capacity.size());
      capacity.push_back(link->get_bandwidth());
    }
  std::vector<FluidRing> model;
  model.reserve(rings.size());
  for (JobIndex j : rings) {
    const JobState& s = state_[j];
    FluidRing f;
    for (const auto& [link, load] : s.fluid_loads)
      if (auto it = index.find(link); it != index.end()) f.loads.push_back(FluidLinkLoad{it->second, load});
    f.compute_s = slowest_rank_compute_s(j);
    f.allreduce_s = s.fluid_allreduce_s;
    f.overlap_fraction = in_.models.at(in_.jobs[j].model).overlap_fraction;
    model.push_back(std::move(f));
  }
  const std::vector<double> stretch = fluid_allreduce_stretch(model, capacity);
  for (std::size_t i = 0; i < rings.size(); ++i) {
    JobState& s = state_[rings[i]];
    // Below this the change is the fixed point's own rounding: a new end
    // for it would only churn the heap.
    if (std::abs(stretch[i] - s.comm_stretch) <= 1e-9 * s.comm_stretch) continue;
    s.comm_stretch = stretch[i];
    const double rate = quiet_ring_rate(rings[i]);
    if (rate != s.progress.rate()) change_analytic_rate(rings[i], rate, now);
  }
}

}  // namespace vnsim::sim
