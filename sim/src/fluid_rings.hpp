#pragma once
// Fluid rings (ReplayOptions::fluid_rings, the default): every multi-node
// ring job is timed analytically, alone or not. Rings that share links slow
// each other by the fluid model of fluid_contention.hpp, and their speeds
// are worked out again whenever a ring starts, stops or changes compute
// speed, once per instant (settle). No actor and no SimGrid activity runs for
// a ring, so the cost of a replay no longer follows the time its rings spend
// contended (docs/PERFORMANCE.md, "Fluid rings"). The rings are not
// registered with the link registry: parameter-server and layout jobs, which
// still run as actors, and fluid rings do not see each other's traffic.
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fluid_contention.hpp"
#include "fluid_rings_links.hpp"
#include "ring_job.hpp"
#include "ring_timing.hpp"

namespace vnsim::sim {

class FluidRings final : public RingTiming {
 public:
  explicit FluidRings(const RingContext& ctx);

  void start(JobIndex job, const Placement& placement, long long iterations, double now) override;
  bool holds(JobIndex job) const override { return rings_[job].timed; }
  long long stop(JobIndex job, double now, bool count) override;
  void finish(JobIndex job) override;
  void speed_changed(JobIndex job, double now) override;
  void settle(double now) override;

  // What a ring puts on each link of its route while its all-reduce runs
  // alone (bytes/s, sorted by link), and that all-reduce's idle-network time.
  struct Loads {
    std::vector<std::pair<const simgrid::s4u::Link*, double>> per_link;
    double allreduce_s = 0;
  };

 private:
  struct Ring {
    bool timed = false;      // its run is timed here now
    bool has_loads = false;  // loads are those of placement's GPUs
    Placement placement;
    // Shared with loads_cache_ (and other rings on the same GPUs): a start
    // copies no per-link vector.
    std::shared_ptr<const Loads> loads;
    double comm_stretch = 1;  // what contention does to its all-reduce now
    // Its slowest rank's compute per iteration next to its GPU co-tenants,
    // kept until they change (speed_changed); < 0 until priced.
    double compute_s = -1;
    // Its GPUs' slowest GPU-sharing speed (GpuSharing::slowest_rate), kept
    // as compute_s is; < 0 until read. A settle re-prices most rings of the
    // component it solves (some 130 of 145 at each Gandiva slice), and
    // reading every GPU's co-tenants again for each was 5 % of its profile.
    double slowest_rate = -1;
    double overlap_fraction = 0;
    // Its iteration alone (iteration_time) on `placement` at its batch,
    // neither of which changes while it is timed; priced at the first
    // change of rate of the run. A Gandiva slice re-prices every ring that
    // shares a link with a start or a stop, and routing each ring's hops
    // over Topology again at each of them was over a tenth of its profile.
    bool has_alone = false;
    IterationBreakdown alone;
  };
  // ring_rate of a timed ring, from what it keeps.
  double rate_now(JobIndex job, Ring& r);
  void let_go(JobIndex job);
  // The route from one rank's host to the next one's (SimGrid's route_to),
  // kept per pair of hosts. It never clears the cache, so the routes it
  // returned stay valid: start() makes room for a whole ring before asking
  // (the one place that bounds the cache).
  const HopRoute& hop_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

  std::vector<Ring> rings_;  // per job
  // settle's working vectors, kept from one settle to the next.
  std::vector<FluidRing> model_;
  std::vector<std::pair<JobIndex, double>> new_stretch_;
  FluidStretchSolver solver_;
  RingLinkUsers<const simgrid::s4u::Link*> link_users_;  // of the timed rings
  // Keyed by the placement's GPUs in ring order and the gradient bytes;
  // looked up by reference (LoadsKeyLess), so a hit copies no GPU list.
  struct LoadsKeyRef {
    const std::vector<GpuId>& gpus;
    double gradient_bytes;
  };
  struct LoadsKeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::tie(a.gradient_bytes, a.gpus) < std::tie(b.gradient_bytes, b.gpus);
    }
  };
  struct LoadsKey {
    std::vector<GpuId> gpus;
    double gradient_bytes;
  };
  std::map<LoadsKey, std::shared_ptr<const Loads>, LoadsKeyLess> loads_cache_;
  // Looked up at every ring not seen before: hashed, not ordered (nothing
  // walks it), which was the top self cost of a Gandiva replay's starts.
  struct HostPairHash {
    std::size_t operator()(const std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>& p) const {
      const std::hash<const void*> h;
      return h(p.first) * 31 + h(p.second);
    }
  };
  std::unordered_map<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>, HopRoute, HostPairHash> routes_;
};

}  // namespace vnsim::sim
