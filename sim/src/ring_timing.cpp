// What the ring engines share: a ring's compute per rank, its speed next to
// GPU co-tenants, launching its actors, and timing it analytically.
#include "ring_timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "actor_rings.hpp"
#include "fluid_rings.hpp"
#include "quiet_rings.hpp"
#include "ring_job.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {

void RingTiming::handed_back(JobIndex job, int /*epoch*/, long long /*iterations*/, double /*now*/) {
  throw std::logic_error("ring job " + std::to_string(job) +
                         " handed itself back to a ring engine that never lets go of its actors");
}

double RingTiming::rank_compute_s(JobIndex job, const Placement& placement, std::size_t r) const {
  const ModelParams& model = ctx_.in.models.at(ctx_.in.jobs[job].model);
  const double local_batch =
      static_cast<double>(ctx_.batches.batch_of(job)) / ctx_.batches.virtual_nodes_of(job);
  const double speed =
      ctx_.in.gpu_catalog.at(ctx_.in.cluster.gpu(placement.gpus[r]).type).speed_for(model.name);
  const double extra_s = model.step_extra_s(static_cast<int>(placement.gpus.size()));
  return (placement.vn_per_gpu[r] * model.micro_batch_time_s(local_batch) + extra_s) / speed;
}

double RingTiming::slowest_rank_compute_s(JobIndex job, const Placement& placement) const {
  double slowest = 0;
  for (std::size_t r = 0; r < placement.gpus.size(); ++r)
    slowest =
        std::max(slowest, rank_compute_s(job, placement, r) / ctx_.sharing.gpu_rate(job, placement.gpus[r]));
  return slowest;
}

double RingTiming::ring_rate(JobIndex job, const Placement& placement, double comm_stretch) const {
  if (ctx_.sharing.slowest_rate(job, placement.gpus) == 1 && comm_stretch == 1) return 1;
  const ModelParams& model = ctx_.in.models.at(ctx_.in.jobs[job].model);
  const IterationBreakdown it =
      iteration_time(ctx_.in.topology, ctx_.in.gpu_catalog, model, placement, ctx_.batches.batch_of(job));
  return ring_rate_of(it, slowest_rank_compute_s(job, placement), comm_stretch, model.overlap_fraction);
}

double RingTiming::ring_rate_of(const IterationBreakdown& alone, double slowest_compute_s,
                                double comm_stretch, double overlap_fraction) {
  return alone.total_s /
         overlapped_step_s(slowest_compute_s, alone.allreduce_s * comm_stretch, overlap_fraction);
}

std::shared_ptr<RingState> RingTiming::simulate(JobIndex job, const Placement& placement,
                                                long long iterations, double now, double head_start_s,
                                                bool hand_off_when_alone) {
  const ReplayOptions& options = ctx_.in.options;
  const ModelParams& model = ctx_.in.models.at(ctx_.in.jobs[job].model);
  ctx_.clock.begin_actor_segment(job, iterations, head_start_s, now);
  const RunTimes& run = ctx_.clock.at(job);
  RingJob ring;
  ring.job = job;
  ring.epoch = run.epoch;
  ring.gradient_bytes = model.gradient_bytes;
  ring.overlap_fraction = model.overlap_fraction;
  ring.iterations = iterations;
  ring.iterations_per_macro = iterations_per_macro(ring.iterations, options.macro_iterations);
  ring.hand_off_when_alone = hand_off_when_alone;
  ring.head_start_s = head_start_s;
  if (head_start_s > 0)
    ring.allreduce_s =
        iteration_time(ctx_.in.topology, ctx_.in.gpu_catalog, model, placement, ctx_.batches.batch_of(job))
            .allreduce_s;
  ring.iterations_per_macro_contended =
      contended_iterations_per_macro(ring.iterations_per_macro, options.shorten_macro_when_contended,
                                     options.contended_macro_s, run.iteration_s);
  for (std::size_t r = 0; r < placement.gpus.size(); ++r) {
    simgrid::s4u::Host* host = ctx_.platform.gpu_hosts.at(placement.gpus[r]);
    ring.ranks.push_back(host);
    ring.flops_per_iteration.push_back(rank_compute_s(job, placement, r) * host->get_speed());
    ring.compute_rate.push_back(ctx_.sharing.gpu_rate(job, placement.gpus[r]));
  }
  return ctx_.actors.launch(std::move(ring));
}

void RingTiming::set_actor_rates(JobIndex job, const Placement& placement, RingState& ring) {
  for (std::size_t r = 0; r < placement.gpus.size(); ++r)
    set_ring_rank_rate(ring, r, ctx_.sharing.gpu_rate(job, placement.gpus[r]));
  ctx_.clock.note_rate(job, ctx_.sharing.slowest_rate(job, placement.gpus));
}

long long RingTiming::analytic_iterations_done(JobIndex job, double now) const {
  const RunTimes& run = ctx_.clock.at(job);
  if (!(run.iteration_s > 0)) return 0;
  return static_cast<long long>(std::floor(std::max(0.0, run.progress.progress_s(now)) / run.iteration_s));
}

std::unique_ptr<RingTiming> make_ring_timing(RingEngine engine, const RingContext& ctx) {
  switch (engine) {
    case RingEngine::Quiet:
      return std::make_unique<QuietRings>(ctx);
    case RingEngine::Fluid:
      return std::make_unique<FluidRings>(ctx);
    case RingEngine::Actors:
      break;
  }
  return std::make_unique<ActorRings>(ctx);
}

}  // namespace vnsim::sim
