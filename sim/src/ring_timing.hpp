#pragma once
// How the replay times multi-node data-parallel ring jobs: one engine,
// chosen once per run from the options (docs/PERFORMANCE.md, "Ring
// engines"), behind one interface. The controller tells the engine when a
// ring's run starts, stops, ends or changes compute speed, and when the
// traffic on the network changed; the engine owns how the ring is timed
// (actors, analytic segments, fluid contention) and tells the RunClock, the
// one writer of each job's run on the clock, of each segment it begins and
// each change of speed. Each engine keeps its own per-job state.
#include <cstddef>
#include <memory>
#include <vector>

#include "actor_jobs.hpp"
#include "gpu_sharing.hpp"
#include "job_batches.hpp"
#include "platform.hpp"
#include "replay_inputs.hpp"
#include "run_clock.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {

enum class RingEngine {
  Actors,  // one SimGrid actor per GPU, macro-iterations (actor_rings.cpp, ring_job.cpp)
  Quiet,   // analytic while alone on its links, actors while contended (quiet_rings.cpp)
  Fluid,   // analytic, the all-reduce stretched by the fluid model (fluid_rings.cpp)
};

// Fluid rings (the default) win over quiet rings. Quiet rings need shortened contended
// macro-iterations and M > 0, so never apply to the fidelity references
// (every iteration simulated, or plain macro-iterations).
inline RingEngine ring_engine_of(const ReplayOptions& options) {
  if (options.fluid_rings) return RingEngine::Fluid;
  if (options.quiet_rings && options.shorten_macro_when_contended && options.macro_iterations > 0)
    return RingEngine::Quiet;
  return RingEngine::Actors;
}

// What every engine reads, and the run clock it times the rings on.
struct RingContext {
  const ReplayInputs& in;
  const Platform& platform;
  ActorJobs& actors;
  const GpuSharing& sharing;
  const JobBatches& batches;
  RunClock& clock;
};

class RingTiming {
 public:
  explicit RingTiming(const RingContext& ctx) : ctx_(ctx) {}
  virtual ~RingTiming() = default;
  RingTiming(const RingTiming&) = delete;
  RingTiming& operator=(const RingTiming&) = delete;

  // The ring's run begins at `now` on `placement` with `iterations` left;
  // its progress already began at the GPU-sharing speed (RunClock).
  virtual void start(JobIndex job, const Placement& placement, long long iterations, double now) = 0;
  // Whether the engine times the job's run now.
  virtual bool holds(JobIndex job) const = 0;
  // Stops a held run at `now`; returns its whole iterations done (0 unless
  // `count`).
  virtual long long stop(JobIndex job, double now, bool count) = 0;
  // A held run ended (its iterations are all done): let go of it.
  virtual void finish(JobIndex job) = 0;
  // A GPU co-tenant of a held run came or went.
  virtual void speed_changed(JobIndex job, double now) = 0;
  // A job's traffic joined the network (a start, or a report handled).
  virtual void traffic_changed(double /*now*/) {}
  // A ring's actors reported it alone on its links after `iterations`.
  virtual void handed_back(JobIndex job, int epoch, long long iterations, double now);
  // The end of an instant, after every start and stop of it.
  virtual void settle(double /*now*/) {}

 protected:
  // Alone-seconds of compute per iteration of rank `r`.
  double rank_compute_s(JobIndex job, const Placement& placement, std::size_t r) const;
  // Seconds of compute per iteration of the slowest rank, next to its GPUs' co-tenants.
  double slowest_rank_compute_s(JobIndex job, const Placement& placement) const;
  // Speed next to GPU co-tenants, as the ring's actors would run: each rank's
  // compute is divided by its GPU's rate, the all-reduce (stretched by
  // `comm_stretch`) is not, and the slowest rank paces the step.
  double ring_rate(JobIndex job, const Placement& placement, double comm_stretch) const;
  // ring_rate, when a co-tenant or a stretch slows the ring, from its
  // parts: the iteration alone (iteration_time), the slowest rank's compute
  // next to its co-tenants, and the stretch.
  static double ring_rate_of(const IterationBreakdown& alone, double slowest_compute_s, double comm_stretch,
                             double overlap_fraction);
  // The ring's `iterations` left run as actors from `now`, the first one
  // already `head_start_s` along (RingJob::head_start_s); the run keeps its
  // own time (RunClock::begin_actor_segment) until they report.
  std::shared_ptr<RingState> simulate(JobIndex job, const Placement& placement, long long iterations,
                                      double now, double head_start_s, bool hand_off_when_alone);
  // The ranks' compute speeds changed: the actors take them from their next
  // macro-iteration; the run's progress notes the slowest.
  void set_actor_rates(JobIndex job, const Placement& placement, RingState& ring);
  // Whole iterations of an analytically timed segment: a stop loses the one in flight.
  long long analytic_iterations_done(JobIndex job, double now) const;

  const RingContext ctx_;
};

std::unique_ptr<RingTiming> make_ring_timing(RingEngine engine, const RingContext& ctx);

}  // namespace vnsim::sim
